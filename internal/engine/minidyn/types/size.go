package types

// ItemSize is an item's size as DynamoDB counts it for capacity: each
// attribute's name plus its value (strings and binaries by length, numbers
// by about one byte per two significant digits plus one, lists and maps 3
// bytes plus their elements, 1 byte per element).
func ItemSize(item map[string]*Item) int {
	n := 0

	for name, v := range item {
		n += len(name) + valueSize(v)
	}

	return n
}

func valueSize(v *Item) int {
	if v == nil {
		return 0
	}

	switch {
	case v.S != nil:
		return len(*v.S)
	case v.N != nil:
		return numberSize(*v.N)
	case v.B != nil:
		return len(v.B)
	case v.BOOL != nil, v.NULL != nil:
		return 1
	case v.SS != nil:
		n := 0
		for _, s := range v.SS {
			if s != nil {
				n += len(*s)
			}
		}

		return n
	case v.NS != nil:
		n := 0
		for _, s := range v.NS {
			if s != nil {
				n += numberSize(*s)
			}
		}

		return n
	case v.BS != nil:
		n := 0
		for _, b := range v.BS {
			n += len(b)
		}

		return n
	case v.L != nil:
		n := 3
		for _, e := range v.L {
			n += 1 + valueSize(e)
		}

		return n
	case v.M != nil:
		n := 3
		for k, e := range v.M {
			n += 1 + len(k) + valueSize(e)
		}

		return n
	}

	return 0
}

func numberSize(s string) int {
	_, digits, _, err := decimal(s)
	if err != nil {
		return len(s)
	}

	return (len(digits)+1)/2 + 1
}

package model

import "fmt"

// What the scalar types' codecs say of sizes and encodings: the bytes a
// value takes (the sizer's assumptions where the model is silent, the
// most a key value can hold) and the encoding KP202 compares.

// KeyEncoding names how an attribute is rendered in keys; equal encodings
// render equal values to equal text.
func KeyEncoding(a *Attribute) string {
	if s := a.ScalarType(); s != nil {
		return s.codec.encoding(a)
	}
	return string(a.Type)
}

func (numberCodec) encoding(a *Attribute) string {
	return fmt.Sprintf("number offset %d, %d digits", a.NumberOffset(), a.NumberWidth())
}

func (stringCodec) encoding(*Attribute) string { return "string" }

func (timeCodec) encoding(*Attribute) string { return string(TypeTime) }

func (boolCodec) encoding(*Attribute) string { return string(TypeBool) }

// MaxValueBytes is the most bytes an attribute's stored value takes, and
// whether that is known.
func MaxValueBytes(e *Entity, a *Attribute) (int, bool) {
	if a.InS3() && e != nil {
		return ObjectKeyBytes(e.Name, a.Name), true // the item holds the object's key
	}
	s := a.ScalarType()
	if s == nil {
		s = Scalar(TypeString)
	}
	return s.codec.maxBytes(a)
}

func (numberCodec) maxBytes(*Attribute) (int, bool) { return 21, true } // DynamoDB numbers: up to 38 significant digits

func (timeCodec) maxBytes(*Attribute) (int, bool) { return len(time3339), true }

func (boolCodec) maxBytes(*Attribute) (int, bool) { return 1, true }

func (stringCodec) maxBytes(a *Attribute) (int, bool) {
	if len(a.Values) > 0 {
		return a.MaxKeyBytes()
	}
	if a.MaxLength > 0 {
		return a.MaxLength, true
	}
	return 0, false
}

func (numberCodec) size(_ *Entity, a *Attribute) (int, bool, string) {
	lo, hi, ok := a.Bounds()
	if !ok {
		return DefaultNumberBytes, false, fmt.Sprintf("numbers without a range take %d bytes", DefaultNumberBytes)
	}
	digits := max(DecimalLen(lo), DecimalLen(hi))
	return (digits+1)/2 + 1, false, "" // DynamoDB: about one byte per two significant digits, plus one
}

func (timeCodec) size(*Entity, *Attribute) (int, bool, string) { return len(TimeLayout), false, "" }

func (boolCodec) size(*Entity, *Attribute) (int, bool, string) { return 1, false, "" }

func (stringCodec) size(e *Entity, a *Attribute) (int, bool, string) {
	if n, ok := MaxValueBytes(e, a); ok {
		return n, a.MaxLength > 0 && len(a.Values) == 0 && e != nil, ""
	}
	return DefaultStringBytes, false, fmt.Sprintf("strings without maxLength take %d bytes", DefaultStringBytes)
}

const time3339 = "2006-01-02T15:04:05.999999999Z07:00"

// Assumptions where the model is silent.
const (
	// DefaultPage is the number of items a query without limit is assumed
	// to return per request.
	DefaultPage = 25
	// DefaultStringBytes is the size assumed of a string without maxLength
	// or values.
	DefaultStringBytes = 32
	// DefaultNumberBytes is the size assumed of a number without a range.
	DefaultNumberBytes = 8
	// DefaultElements is the number of elements assumed of a set, list or
	// map without maxItems.
	DefaultElements = 10
	// ExpiredShare is the share of the items a read that hides expired
	// items is assumed to read and drop: items past their TTL that
	// DynamoDB has not deleted yet (it deletes within days, typically
	// two; the share is that delay over the items' lifetime).
	ExpiredShare = 0.1
)

// DecimalLen is the length of n written in decimal.
func DecimalLen(n int64) int {
	l := 1
	if n < 0 {
		l++
	}
	for n <= -10 || n >= 10 {
		n /= 10
		l++
	}
	return l
}

// Size is the size the sizer assumes of an attribute of this scalar type
// (an upper bound when atBound, the declared bound), and what was assumed
// where the model is silent ("": nothing).
func (s *ScalarType) Size(e *Entity, a *Attribute) (n int, atBound bool, assumed string) {
	return s.codec.size(e, a)
}

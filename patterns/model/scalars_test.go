package model

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// Every entry of the scalar table is handled by each consumer in this
// package: the loader reads its name and spellings, a key holds its
// valid values (order-preserving text above '$', decoded back), Check
// refuses its invalid ones, it has a DynamoDB type, a stored form of that
// type, a text, sizes, a KP202 encoding and a Go type. The other
// consumers' tests range over the same list (ScalarTypes): gen, workbench,
// the runtime, the stream decoder, the oracle.
func TestEveryScalarTypeIsHandled(t *testing.T) {
	if len(ScalarTypes()) < 5 {
		t.Fatalf("%d scalar types", len(ScalarTypes()))
	}
	for _, s := range ScalarTypes() {
		t.Run(string(s.Type), func(t *testing.T) {
			if len(s.Valid) == 0 || len(s.Invalid) == 0 || s.Noun == "" || s.codec == nil {
				t.Fatalf("entry %+v: needs valid and invalid values, a noun and an encoder", s)
			}
			if !slices.Contains([]string{"S", "N", "B", "BOOL"}, s.Dynamo) {
				t.Errorf("DynamoDB type %q", s.Dynamo)
			}
			for _, name := range append([]AttrType{s.Type}, s.Spellings...) {
				src := fmt.Sprintf("table: T\nentities:\n  Thing:\n    id: [tid]\n    attributes:\n      tid: string\n      v: {type: %s, optional: true}\npatterns:\n  GetThing: {get: Thing}\n", name)
				m, err := Parse("m.yaml", []byte(src))
				if err != nil {
					t.Fatalf("type %s: %v", name, err)
				}
				if got := m.Entity("Thing").Attr("v").Type; got != s.Type {
					t.Errorf("type %s loads as %q, want %q", name, got, s.Type)
				}
			}
			a := &Attribute{Name: "v", Type: s.Type}
			if !a.Scalar() || a.DynamoType() != s.Dynamo || a.GoType() == "" || KeyEncoding(a) == "" {
				t.Errorf("scalar %v, DynamoDB type %q, Go type %q, encoding %q", a.Scalar(), a.DynamoType(), a.GoType(), KeyEncoding(a))
			}
			if n, bound, _ := s.codec.size(nil, a); n <= 0 || bound {
				t.Errorf("size %d (at bound %v) without a bound", n, bound)
			}
			if _, known := s.codec.maxBytes(a); !known && !s.Takes(FacetMaxLength) {
				t.Errorf("no most bytes, and no maxLength to bound it")
			}
			for _, v := range s.Valid {
				k, err := a.EncodeKey(v)
				if err != nil {
					t.Errorf("EncodeKey(%#v): %v", v, err)
					continue
				}
				for i := 0; i < len(k); i++ {
					if k[i] <= '$' {
						t.Errorf("key form %q of %#v holds byte %#x, at or below '$'", k, v, k[i])
					}
				}
				back, err := a.DecodeKey(k)
				if err != nil {
					t.Errorf("DecodeKey(%q): %v", k, err)
				} else if k2, err := a.EncodeKey(back); err != nil || k2 != k {
					t.Errorf("%#v: key %q decodes to %#v, which encodes to %q (%v)", v, k, back, k2, err)
				}
				if n, ok := a.MaxKeyBytes(); ok && len(k) > n {
					t.Errorf("key form %q is longer than MaxKeyBytes %d", k, n)
				}
				if _, err := a.Text(v); err != nil {
					t.Errorf("Text(%#v): %v", v, err)
				}
				if _, err := a.RangeSide(v); err != nil {
					t.Errorf("RangeSide(%#v): %v", v, err)
				}
				x, err := a.StoredValue(v, false)
				if err != nil {
					t.Errorf("StoredValue(%#v): %v", v, err)
					continue
				}
				switch text := x.(type) {
				case string:
					if s.Dynamo != "S" && s.Dynamo != "N" {
						t.Errorf("stored form %T for DynamoDB type %s", x, s.Dynamo)
					}
					if s.Dynamo == "S" {
						if _, err := a.FromStoredText(text); err != nil {
							t.Errorf("FromStoredText(%q): %v", x, err)
						}
					}
				case []byte:
					if s.Dynamo != "B" {
						t.Errorf("stored form %T for DynamoDB type %s", x, s.Dynamo)
					}
				case bool:
					if s.Dynamo != "BOOL" {
						t.Errorf("stored form %T for DynamoDB type %s", x, s.Dynamo)
					}
				default:
					t.Errorf("stored form %T", x)
				}
			}
			for _, v := range s.Invalid {
				if err := a.Check(v); err == nil {
					t.Errorf("Check(%#v) accepts an invalid value", v)
				}
				if _, err := a.StoredValue(v, false); err == nil {
					t.Errorf("StoredValue(%#v) accepts an invalid value", v)
				}
			}
		})
	}
}

// A key's text order is the values' order, for every type with more
// than one valid value that compares: keys built from the table's own
// valid values, sorted by their key forms, decode in ascending order.
func TestScalarKeysKeepOrder(t *testing.T) {
	for _, s := range ScalarTypes() {
		a := &Attribute{Name: "v", Type: s.Type}
		var keys []string
		for _, v := range s.Valid {
			k, err := a.EncodeKey(v)
			if err != nil {
				t.Fatalf("%s: %v", s.Type, err)
			}
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for i := 1; i < len(keys); i++ {
			x, _ := a.DecodeKey(keys[i-1])
			y, _ := a.DecodeKey(keys[i])
			if c, ok := compareScalar(x, y); ok && c > 0 {
				t.Errorf("%s: key %q sorts before %q, but %v > %v", s.Type, keys[i-1], keys[i], x, y)
			}
		}
	}
}

// compareScalar orders two decoded values of one type, where Go can.
func compareScalar(x, y any) (int, bool) {
	switch x := x.(type) {
	case string:
		return strings.Compare(x, y.(string)), true
	case []byte:
		return bytes.Compare(x, y.([]byte)), true
	case int64:
		if yi, ok := y.(int64); ok {
			return int(x - yi), true
		}
	}
	return 0, false
}

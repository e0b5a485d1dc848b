package model

import (
	"math/rand/v2"
	"sort"
	"strings"
	"testing"
	"time"
)

func int64p(v int64) *int64 { return &v }

func TestEncodeNumbersSortAsStrings(t *testing.T) {
	tests := []struct {
		name   string
		attr   *Attribute
		values []int64 // in numeric order
	}{
		{"ratings 9 and 1000", &Attribute{Name: "rating", Type: TypeNumber, Min: int64p(0), Max: int64p(99999)}, []int64{0, 9, 990, 1000, 1842, 99999}},
		{"negatives offset", &Attribute{Name: "delta", Type: TypeNumber, Min: int64p(-999), Max: int64p(999)}, []int64{-999, -20, -5, 0, 3, 999}},
		{"digits", &Attribute{Name: "d", Type: TypeNumber, Digits: 3}, []int64{-999, -20, -5, 3, 9, 1000 - 1}},
		{"undeclared range", &Attribute{Name: "n", Type: TypeNumber}, []int64{-1 << 63, -20, -5, 3, 9, 1000, 1<<63 - 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var enc []string
			for _, v := range tt.values {
				s, err := tt.attr.EncodeKey(v)
				if err != nil {
					t.Fatalf("EncodeKey(%d): %v", v, err)
				}
				if len(s) != tt.attr.NumberWidth() {
					t.Errorf("EncodeKey(%d) = %q: width %d, want fixed %d", v, s, len(s), tt.attr.NumberWidth())
				}
				back, err := tt.attr.DecodeKey(s)
				if err != nil || back != v {
					t.Errorf("DecodeKey(%q) = %v, %v; want %d", s, back, err, v)
				}
				enc = append(enc, s)
			}
			if !sort.StringsAreSorted(enc) {
				t.Errorf("encoded values do not sort numerically: %q", enc)
			}
		})
	}
}

// Property: for random integers in the declared range, string order of the
// encodings equals numeric order.
func TestEncodeNumberOrderProperty(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	attrs := []*Attribute{
		{Name: "rating", Type: TypeNumber, Min: int64p(0), Max: int64p(99999)},
		{Name: "delta", Type: TypeNumber, Min: int64p(-999), Max: int64p(999)},
		{Name: "wide", Type: TypeNumber, Min: int64p(-1 << 62), Max: int64p(1 << 62)},
		{Name: "any", Type: TypeNumber},
		{Name: "digits", Type: TypeNumber, Digits: 9},
	}
	for _, a := range attrs {
		lo, hi, _ := a.Bounds()
		span := uint64(hi) - uint64(lo)
		draw := func() int64 {
			if span == ^uint64(0) {
				return int64(r.Uint64())
			}
			return int64(uint64(lo) + r.Uint64N(span+1))
		}
		for range 5000 {
			x, y := draw(), draw()
			ex, err1 := a.EncodeKey(x)
			ey, err2 := a.EncodeKey(y)
			if err1 != nil || err2 != nil {
				t.Fatalf("%s: encode %d, %d: %v %v", a.Name, x, y, err1, err2)
			}
			if (x < y) != (ex < ey) || (x == y) != (ex == ey) {
				t.Fatalf("%s: %d vs %d encode to %q vs %q: order differs", a.Name, x, y, ex, ey)
			}
		}
	}
}

func TestEncodeRejects(t *testing.T) {
	tests := []struct {
		name string
		attr *Attribute
		v    any
		want string
	}{
		{"above max", &Attribute{Name: "rating", Type: TypeNumber, Min: int64p(0), Max: int64p(99999)}, 100000, "out of the declared range 0..99999"},
		{"fraction of a ranged number", &Attribute{Name: "rating", Type: TypeNumber, Min: int64p(0), Max: int64p(99999)}, 1.5, "whole number"},
		{"enum", &Attribute{Name: "result", Type: TypeString, Values: []string{"win", "loss"}}, "tie", "expected one of win, loss"},
		{"time", &Attribute{Name: "at", Type: TypeTime}, "yesterday", "RFC 3339"},
		{"empty", &Attribute{Name: "id", Type: TypeString}, "", `value "": a required string cannot be empty: give it a value, or declare the attribute optional: true`},
		{"empty optional", &Attribute{Name: "note", Type: TypeString, Optional: true}, "", "an empty string is no value: leave the attribute out"},
		{"bool", &Attribute{Name: "b", Type: TypeBool}, "maybe", "true or false"},
		{"ttl negative", &Attribute{Name: "exp", Type: TypeTTL}, -1, "not negative"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := tt.attr.EncodeKey(tt.v)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("EncodeKey(%v) error = %v, want it to contain %q", tt.v, err, tt.want)
			}
		})
	}
}

func TestEncodeTimesFixedWidthUTC(t *testing.T) {
	a := &Attribute{Name: "at", Type: TypeTime}
	in := []string{"2026-06-23T11:00:00Z", "2026-06-23T13:00:00.5+02:00", "2026-06-23T14:00:00.123Z", "2026-06-23T14:00:00.123456789Z"}
	var enc []string
	for _, s := range in {
		e, err := a.EncodeKey(s)
		if err != nil {
			t.Fatal(err)
		}
		if len(e) != len(TimeLayout) || !strings.HasSuffix(e, "Z") {
			t.Errorf("EncodeKey(%q) = %q: want fixed-width UTC", s, e)
		}
		enc = append(enc, e)
	}
	if enc[1] != "2026-06-23T11:00:00.500Z" {
		t.Errorf("offset not converted to UTC: %q", enc[1])
	}
	if !sort.StringsAreSorted(enc) {
		t.Errorf("times do not sort: %q", enc)
	}
	back, err := a.DecodeKey(enc[2])
	if err != nil || !back.(time.Time).Equal(time.Date(2026, 6, 23, 14, 0, 0, 123e6, time.UTC)) {
		t.Errorf("DecodeKey(%q) = %v, %v", enc[2], back, err)
	}
}

// Strings never contain the separator or a byte below it once encoded, so
// "P" and "P#…" are exactly the keys in [P, P$).
func TestEncodeStringsEscapeSeparator(t *testing.T) {
	a := &Attribute{Name: "handle", Type: TypeString}
	for _, s := range []string{"a#b", "night hawk", "100%", "tab\there", "ok", "ünï"} {
		e, err := a.EncodeKey(s)
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < len(e); i++ {
			if e[i] <= Sep {
				t.Errorf("EncodeKey(%q) = %q holds byte %q", s, e, e[i])
			}
		}
		back, err := a.DecodeKey(e)
		if err != nil || back != s {
			t.Errorf("round trip %q -> %q -> %v, %v", s, e, back, err)
		}
	}
}

// The fast formatter writes what time.Format(TimeLayout) writes.
func TestFormatTimeMatchesLayout(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for range 10000 {
		tm := time.UnixMilli(r.Int64N(253402300799999)).UTC()
		if got, want := formatTime(tm), tm.Format(TimeLayout); got != want {
			t.Fatalf("formatTime(%v) = %s, want %s", tm, got, want)
		}
	}
}

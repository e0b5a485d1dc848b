package core

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// The ordered map against a sorted slice, over random operations on keys
// that share prefixes and hold the separators' bytes.
func TestOrderedMapMatchesASortedSlice(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	alphabet := []string{"", "a", "ab", "a\x00", "a\x00\x01", "\x00", "\xff", "b", "a#b", "zz"}
	randKey := func() string {
		k := ""
		for range rng.IntN(4) {
			k += alphabet[rng.IntN(len(alphabet))]
		}

		return k
	}

	var m orderedMap[int]

	ref := map[string]int{}

	for step := range 20000 {
		k := randKey()

		switch rng.IntN(5) {
		case 0, 1:
			m.Set(k, step)
			ref[k] = step
		case 2:
			_, had := ref[k]
			if got := m.Delete(k); got != had {
				t.Fatalf("step %d: Delete(%q) = %v, want %v", step, k, got, had)
			}

			delete(ref, k)
		case 3:
			v, ok := m.Get(k)
			if rv, rok := ref[k]; ok != rok || v != rv {
				t.Fatalf("step %d: Get(%q) = %v %v, want %v %v", step, k, v, ok, rv, rok)
			}
		case 4:
			checkWalks(t, &m, ref, k, rng.IntN(2) == 0)
		}

		if m.Len() != len(ref) {
			t.Fatalf("step %d: Len %d, want %d", step, m.Len(), len(ref))
		}
	}
}

func checkWalks(t *testing.T, m *orderedMap[int], ref map[string]int, from string, inclusive bool) {
	t.Helper()

	keys := make([]string, 0, len(ref))
	for k := range ref {
		keys = append(keys, k)
	}

	slices.Sort(keys)

	var want, got []string

	for _, k := range keys {
		if k > from || inclusive && k == from {
			want = append(want, k)
		}
	}

	m.Ascend(from, inclusive, func(k string, _ int) bool { got = append(got, k); return true })

	if !slices.Equal(got, want) {
		t.Fatalf("Ascend(%q, %v) = %q, want %q", from, inclusive, got, want)
	}

	want, got = nil, nil

	for _, k := range slices.Backward(keys) {
		if k < from || inclusive && k == from {
			want = append(want, k)
		}
	}

	m.Descend(from, inclusive, false, func(k string, _ int) bool { got = append(got, k); return true })

	if !slices.Equal(got, want) {
		t.Fatalf("Descend(%q, %v) = %q, want %q", from, inclusive, got, want)
	}

	got = nil
	m.Descend("", false, true, func(k string, _ int) bool { got = append(got, k); return true })

	if len(got) != len(keys) || len(got) > 0 && got[0] != keys[len(keys)-1] {
		t.Fatalf("Descend from the end: %q, want %d keys from %q", got, len(keys), keys)
	}
}

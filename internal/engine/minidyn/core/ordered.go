package core

import (
	"slices"
	"sort"
)

// orderedMap is a map from string keys kept in key order: lookups,
// inserts and deletes cost O(log n) searches plus a move within one chunk
// of at most chunkSize entries, and a walk from any key costs
// O(log n + entries visited). It holds the entries in sorted chunks: a
// B-tree of height two, which stays small and cache-friendly at the sizes
// a local engine holds.
type orderedMap[V any] struct {
	chunks []*chunk[V]
	n      int
}

type chunk[V any] struct {
	keys []string
	vals []V
}

const chunkSize = 512

// Len is the number of entries.
func (m *orderedMap[V]) Len() int { return m.n }

// chunkFor is the index of the chunk that holds or would hold k: the
// first chunk whose last key is >= k (the last chunk if none is).
func (m *orderedMap[V]) chunkFor(k string) int {
	i := sort.Search(len(m.chunks), func(i int) bool {
		c := m.chunks[i]
		return c.keys[len(c.keys)-1] >= k
	})

	if i == len(m.chunks) && i > 0 {
		i--
	}

	return i
}

// Get returns the value under k.
func (m *orderedMap[V]) Get(k string) (V, bool) {
	var zero V

	if len(m.chunks) == 0 {
		return zero, false
	}

	c := m.chunks[m.chunkFor(k)]
	if j, ok := slices.BinarySearch(c.keys, k); ok {
		return c.vals[j], true
	}

	return zero, false
}

// Set stores v under k, replacing what was there.
func (m *orderedMap[V]) Set(k string, v V) {
	if len(m.chunks) == 0 {
		m.chunks = []*chunk[V]{{keys: []string{k}, vals: []V{v}}}
		m.n = 1

		return
	}

	ci := m.chunkFor(k)
	c := m.chunks[ci]

	j, ok := slices.BinarySearch(c.keys, k)
	if ok {
		c.vals[j] = v
		return
	}

	c.keys = slices.Insert(c.keys, j, k)
	c.vals = slices.Insert(c.vals, j, v)
	m.n++

	if len(c.keys) > chunkSize {
		half := len(c.keys) / 2
		right := &chunk[V]{
			keys: slices.Clone(c.keys[half:]),
			vals: slices.Clone(c.vals[half:]),
		}
		clear(c.keys[half:])
		clear(c.vals[half:])
		c.keys = c.keys[:half]
		c.vals = c.vals[:half]
		m.chunks = slices.Insert(m.chunks, ci+1, right)
	}
}

// Delete removes k, reporting whether it was there.
func (m *orderedMap[V]) Delete(k string) bool {
	if len(m.chunks) == 0 {
		return false
	}

	ci := m.chunkFor(k)
	c := m.chunks[ci]

	j, ok := slices.BinarySearch(c.keys, k)
	if !ok {
		return false
	}

	c.keys = slices.Delete(c.keys, j, j+1)
	c.vals = slices.Delete(c.vals, j, j+1)
	m.n--

	if len(c.keys) == 0 {
		m.chunks = slices.Delete(m.chunks, ci, ci+1)
	}

	return true
}

// Ascend calls fn on the entries with keys after from (at from too when
// inclusive), in ascending order, until fn returns false.
func (m *orderedMap[V]) Ascend(from string, inclusive bool, fn func(k string, v V) bool) {
	if len(m.chunks) == 0 {
		return
	}

	ci := m.chunkFor(from)

	j, found := slices.BinarySearch(m.chunks[ci].keys, from)
	if found && !inclusive {
		j++
	}

	for ; ci < len(m.chunks); ci, j = ci+1, 0 {
		c := m.chunks[ci]
		for ; j < len(c.keys); j++ {
			if !fn(c.keys[j], c.vals[j]) {
				return
			}
		}
	}
}

// Descend calls fn on the entries with keys before from (at from too
// when inclusive), in descending order, until fn returns false; with last
// set it starts at the greatest key instead.
func (m *orderedMap[V]) Descend(from string, inclusive, last bool, fn func(k string, v V) bool) {
	if len(m.chunks) == 0 {
		return
	}

	ci := len(m.chunks) - 1
	j := len(m.chunks[ci].keys) - 1

	if !last {
		ci = m.chunkFor(from)

		var found bool

		j, found = slices.BinarySearch(m.chunks[ci].keys, from)
		if !found || !inclusive {
			j--
		}
	}

	for ci >= 0 {
		c := m.chunks[ci]
		for ; j >= 0; j-- {
			if !fn(c.keys[j], c.vals[j]) {
				return
			}
		}

		ci--
		if ci >= 0 {
			j = len(m.chunks[ci].keys) - 1
		}
	}
}

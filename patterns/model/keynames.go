package model

import (
	"strconv"
	"strings"
)

// The key attribute and index names keyplan's keys use, which no entity
// attribute may take: the base table's PK and SK, and the names of the
// GSIs and LSIs the planner creates (written and read here alone).

// BaseIndex is the base table where an index name is expected (a
// pattern's Index, an entity's keys, the cost's per-index lines): "table"
// beside the GSIs' names.
const BaseIndex = "table"

// The base table's key attributes: strings, overloaded by every entity.
const (
	TablePK = "PK"
	TableSK = "SK"
)

// IndexKeyNames are the key attribute names of an overloaded GSI:
// GSI1 → GSI1PK, GSI1SK.
func IndexKeyNames(index string) (pk, sk string) { return index + "PK", index + "SK" }

// gsiPrefix starts the name of every GSI the planner names: GSI1, GSI2, …
// (GSIName writes such a name, GSINumber reads it back).
const gsiPrefix = "GSI"

// gsiNames are the first GSI names, precomputed (the search names GSIs
// for every candidate).
var gsiNames = func() []string {
	out := make([]string, MaxGSIs+1)
	for i := range out {
		out[i] = gsiPrefix + strconv.Itoa(i+1)
	}
	return out
}()

// GSIName names the planner's GSI i, counted from 0: GSI1 for 0.
func GSIName(i int) string {
	if i < len(gsiNames) {
		return gsiNames[i]
	}
	return gsiPrefix + strconv.Itoa(i+1)
}

// GSINumber reads the number back from a name GSIName writes (GSI3 → 3):
// ok is false for other names (a hand-made layout's).
func GSINumber(name string) (n int, ok bool) {
	digits, found := strings.CutPrefix(name, gsiPrefix)
	if !found || digits == "" || strings.Trim(digits, "0123456789") != "" {
		return 0, false
	}
	n, err := strconv.Atoi(digits)
	return n, err == nil
}

// ReservedAttr reports whether an attribute name is one keyplan's keys
// use: the base table's PK and SK, or a planned GSI's (GSI1PK, GSI1SK, …),
// so that no entity may have an attribute of the name.
func ReservedAttr(name string) bool { return reservedAttr(name) }

// reservedAttr reports whether an attribute name is one keyplan's keys
// use: the base table's PK and SK, a planned GSI's (GSI1PK, GSI1SK, …) or
// a planned LSI's sort key (LSI1SK, …).
func reservedAttr(name string) bool {
	if name == TablePK || name == TableSK {
		return true
	}
	for _, suffix := range []string{"PK", "SK"} {
		if ix, ok := strings.CutSuffix(name, suffix); ok {
			if _, ok := GSINumber(ix); ok {
				return true
			}
		}
	}
	if ix, ok := strings.CutSuffix(name, "SK"); ok {
		if _, ok := LSINumber(ix); ok {
			return true
		}
	}
	return false
}

// lsiPrefix starts the name of every LSI the planner names: LSI1, LSI2, …
// (LSIName writes such a name, LSINumber reads it back).
const lsiPrefix = "LSI"

// LSIName names the planner's LSI i, counted from 0: LSI1 for 0.
func LSIName(i int) string { return lsiPrefix + strconv.Itoa(i+1) }

// LSINumber reads the number back from a name LSIName writes (LSI3 → 3):
// ok is false for other names (a hand-made layout's).
func LSINumber(name string) (n int, ok bool) {
	digits, found := strings.CutPrefix(name, lsiPrefix)
	if !found || digits == "" || strings.Trim(digits, "0123456789") != "" {
		return 0, false
	}
	n, err := strconv.Atoi(digits)
	return n, err == nil
}

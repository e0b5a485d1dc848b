package model

import "testing"

// The planner's GSI names read back to their numbers, and exactly the
// attribute names of planned keys are reserved (as the loader's former
// pattern ^(PK|SK|GSI[0-9]+(PK|SK))$ had it).
func TestGSINames(t *testing.T) {
	for i := range 2 * MaxGSIs {
		name := GSIName(i)
		if n, ok := GSINumber(name); !ok || n != i+1 {
			t.Errorf("gsiNumber(gsiName(%d) = %q) = %d, %v; want %d", i, name, n, ok, i+1)
		}
	}
	for _, name := range []string{"", "GSI", "ByEmail", "GSI-1", "GSI+1", "GSI1a", "gsi1", "XGSI1"} {
		if n, ok := GSINumber(name); ok {
			t.Errorf("gsiNumber(%q) = %d, true; want not a planned name", name, n)
		}
	}
	reserved := map[string]bool{
		"PK": true, "SK": true, "GSI1PK": true, "GSI20SK": true, "GSI0PK": true, "GSI007SK": true,
		"pk": false, "GSIPK": false, "GSI1pk": false, "GSI+1PK": false, "XGSI1PK": false, "GSI1PKX": false, "PKSK": false, "GSI1": false,
	}
	for name, want := range reserved {
		if got := reservedAttr(name); got != want {
			t.Errorf("reservedAttr(%q) = %v, want %v", name, got, want)
		}
	}
}

package patterns

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

// Each kind of drift is sorted as docs/adopt.md says: what makes the
// backfill's writes wrong stops it (the base key, a GSI of the phase
// missing, re-keyed or being deleted, a GSI added on a key it writes),
// the rest is reported (settings, projections, a GSI being built, a GSI
// on attributes it never writes).
func TestBackfillDrift(t *testing.T) {
	d := mustPlan(t, sparseModel)
	lock := NewLock(d)
	lock.Adopted = &Adopted{Billing: BillingOnDemand, TableClass: TableClassStandard}
	if ld := CompareLive(lock, liveOf(lock)); ld.BackfillErr(lock) != nil {
		t.Fatalf("the lock's own table stops the backfill: %v", ld.BackfillErr(lock))
	}
	for _, tc := range []struct {
		name  string
		edit  func(*LiveTable)
		stops bool
	}{
		{"another base key", func(t *LiveTable) { t.SK = "sk" }, true},
		{"a GSI deleted by hand", func(t *LiveTable) { t.Indexes = nil }, true},
		{"a GSI keyed otherwise", func(t *LiveTable) { t.Indexes[0].SortKeys = []string{"createdAt"} }, true},
		{"a GSI key of another type", func(t *LiveTable) { t.Types["GSI2SK"] = "N" }, true},
		{"a GSI being deleted", func(t *LiveTable) { t.Indexes[0].Status = "DELETING" }, true},
		{"a GSI added by hand on a key the backfill writes", func(t *LiveTable) {
			t.Indexes = append(t.Indexes, &LiveIndex{Name: "ByHand", PartitionKeys: []string{"GSI2SK"}, Projection: ProjectKeysOnly, Status: StatusActive})
		}, true},
		{"a GSI added by hand on an attribute it never writes", func(t *LiveTable) {
			t.Indexes = append(t.Indexes, &LiveIndex{Name: "ByEmail", PartitionKeys: []string{"email"}, Projection: ProjectKeysOnly, Status: StatusActive})
		}, false},
		{"a GSI being built", func(t *LiveTable) { t.Indexes[0].Status, t.Indexes[0].Backfilling = "CREATING", true }, false},
		{"a GSI projected otherwise", func(t *LiveTable) {
			t.Indexes[0].Projection, t.Indexes[0].NonKeyAttributes = ProjectInclude, []string{"zzz"}
		}, false},
		{"the table updating", func(t *LiveTable) { t.Status = "UPDATING" }, false},
		{"a TTL enabled by hand", func(t *LiveTable) { t.TTL = "expiresAt" }, false},
		{"a stream, billing, protection, class and replicas", func(t *LiveTable) {
			t.Stream, t.Billing, t.DeletionProtection, t.TableClass, t.Replicas = StreamNewAndOld, BillingProvisioned, true, "STANDARD_INFREQUENT_ACCESS", []string{"eu-west-1"}
		}, false},
	} {
		lt := liveOf(lock)
		tc.edit(lt)
		ld := CompareLive(lock, lt)
		if ld.Clean() {
			t.Fatalf("%s: no drift", tc.name)
		}
		stops, reported := ld.BackfillDrift(lock)
		err := ld.BackfillErr(lock)
		switch {
		case tc.stops && (len(stops) == 0 || !errors.Is(err, ErrBackfillDrift) || !strings.Contains(err.Error(), string(stops[0].Kind))):
			t.Errorf("%s: %v does not stop the backfill (%v)", tc.name, ld.Drifts, err)
		case !tc.stops && (len(stops) > 0 || err != nil || len(reported) != len(ld.Drifts)):
			t.Errorf("%s: %v stops the backfill: %v", tc.name, stops, err)
		}
	}
	if w := lock.writtenKeys(); !slices.Contains(w, "GSI2PK") || !slices.Contains(w, "GSI2SK") || slices.Contains(w, "email") {
		t.Errorf("written keys %v", w)
	}
}

package patterns

import (
	"slices"
	"strings"
	"testing"
)

// liveOf is the table a lock deploys at its current phase, as DynamoDB
// would describe it (every index ACTIVE, on-demand, no stream).
func liveOf(l *Lock) *LiveTable {
	t := &LiveTable{Name: l.Table, Status: StatusActive, PK: l.Accepted.PK, SK: l.Accepted.SK, Billing: BillingOnDemand,
		Types: map[string]string{l.Accepted.PK: "S", l.Accepted.SK: "S"}}
	indexes, ttl := l.Deployed()
	t.TTL = ttl
	for _, ix := range indexes {
		part, sort := ix.keyLists()
		t.Indexes = append(t.Indexes, &LiveIndex{Name: ix.Name, PartitionKeys: part, SortKeys: sort, Projection: ix.Projection,
			NonKeyAttributes: ix.NonKeyAttributes, Status: StatusActive})
		for _, a := range ix.KeyAttributes() {
			t.Types[a] = "S"
			if ix.KeyTypes[a] != "" {
				t.Types[a] = ix.KeyTypes[a]
			}
		}
	}
	return t
}

func kinds(ld *LiveDiff) []DriftKind {
	var out []DriftKind
	for _, d := range ld.Drifts {
		out = append(out, d.Kind)
	}
	return out
}

// Every difference between a lock and its table is one drift of its
// kind, naming what the lock and the table say; a table as the lock
// deploys it has none.
func TestCompareLive(t *testing.T) {
	d := mustPlan(t, sparseModel)
	lock := NewLock(d)
	if ld := CompareLive(lock, liveOf(lock)); !ld.Clean() {
		t.Fatalf("the lock's own table drifts: %v", ld.Drifts)
	}
	adopted := func(l *Lock) { l.Adopted = &Adopted{Billing: BillingOnDemand, TableClass: TableClassStandard} }
	tests := []struct {
		name  string
		lock  func(*Lock)
		edit  func(*LiveTable)
		want  []DriftKind
		words string
	}{
		{"a GSI added by hand", nil, func(t *LiveTable) {
			t.Indexes = append(t.Indexes, &LiveIndex{Name: "ByEmail", PartitionKeys: []string{"email"}, Projection: ProjectKeysOnly, Status: StatusActive})
		}, []DriftKind{DriftGSIExtra}, "GSI ByEmail (email), which the lock does not"},
		{"a GSI deleted by hand", nil, func(t *LiveTable) { t.Indexes = nil }, []DriftKind{DriftGSIMissing}, "GSI2 (GSI2PK/GSI2SK)"},
		{"a GSI keyed otherwise", nil, func(t *LiveTable) { t.Indexes[0].SortKeys = []string{"createdAt"} }, []DriftKind{DriftGSIKeys}, "keyed GSI2PK/createdAt on the table, GSI2PK/GSI2SK in the lock"},
		{"a GSI key of another type", nil, func(t *LiveTable) { t.Types["GSI2SK"] = "N" }, []DriftKind{DriftGSIKeys}, "GSI2"},
		{"a projection", nil, func(t *LiveTable) {
			t.Indexes[0].Projection, t.Indexes[0].NonKeyAttributes = ProjectInclude, []string{"status", "createdAt"}
		}, []DriftKind{DriftProjection}, "projects INCLUDE (createdAt, status) on the table, ALL in the lock"},
		{"a GSI still building", nil, func(t *LiveTable) { t.Indexes[0].Status, t.Indexes[0].Backfilling = "CREATING", true }, []DriftKind{DriftGSIStatus}, "CREATING (backfilling)"},
		{"the table updating", nil, func(t *LiveTable) { t.Status = "UPDATING" }, []DriftKind{DriftTable}, "UPDATING"},
		{"another base key", nil, func(t *LiveTable) { t.PK, t.SK = "pk", "" }, []DriftKind{DriftBaseKey}, "keyed pk (no sort key)"},
		{"an LSI", nil, func(t *LiveTable) {
			t.Local = []*LiveIndex{{Name: "ByDate", PartitionKeys: []string{"PK"}, SortKeys: []string{"date"}, Projection: ProjectAll}}
		}, []DriftKind{DriftLSI}, "ByDate (PK/date)"},
		{"TTL enabled by hand", nil, func(t *LiveTable) { t.TTL, t.TTLStatus = "expiresAt", "ENABLED" }, []DriftKind{DriftTTL}, "expiresAt on the table, (none) in the lock"},
		{"the settings as adopted", adopted, func(*LiveTable) {}, nil, ""},
		{"a stream turned on", adopted, func(t *LiveTable) { t.Stream = "KEYS_ONLY" }, []DriftKind{DriftStream}, "KEYS_ONLY, (none) when it was adopted"},
		{"billing", adopted, func(t *LiveTable) { t.Billing = BillingProvisioned }, []DriftKind{DriftBilling}, "PROVISIONED, PAY_PER_REQUEST"},
		{"point-in-time recovery", adopted, func(t *LiveTable) { on := true; t.PointInTimeRecovery = &on }, []DriftKind{DriftPITR}, "on, off"},
		{"deletion protection", adopted, func(t *LiveTable) { t.DeletionProtection = true }, []DriftKind{DriftProtection}, "on, off"},
		{"table class", adopted, func(t *LiveTable) { t.TableClass = "STANDARD_INFREQUENT_ACCESS" }, []DriftKind{DriftTableClass}, "STANDARD_INFREQUENT_ACCESS"},
		{"a replica", adopted, func(t *LiveTable) { t.Replicas = []string{"eu-west-1"} }, []DriftKind{DriftReplicas}, "eu-west-1, (none)"},
		{"several at once, in order", adopted, func(t *LiveTable) { t.Billing, t.TTL, t.Indexes = BillingProvisioned, "x", nil },
			[]DriftKind{DriftGSIMissing, DriftTTL, DriftBilling}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := NewLock(d)
			if tt.lock != nil {
				tt.lock(l)
			}
			live := liveOf(l)
			tt.edit(live)
			ld := CompareLive(l, live)
			if !slices.Equal(kinds(ld), tt.want) {
				t.Fatalf("drifts %v, want %v: %v", kinds(ld), tt.want, ld.Drifts)
			}
			if tt.words != "" && !strings.Contains(ld.Drifts[0].Message, tt.words) {
				t.Errorf("message %q does not say %q", ld.Drifts[0].Message, tt.words)
			}
			if got := ld.Err() != nil; got != (len(tt.want) > 0) {
				t.Errorf("Err() = %v with %d drift(s)", ld.Err(), len(tt.want))
			}
			if (l.Adopted == nil) != (len(ld.Unrecorded) > 0) {
				t.Errorf("unrecorded %v with adopted %v", ld.Unrecorded, l.Adopted)
			}
		})
	}
}

// A lock without a record of the table's settings still says the design's
// stream handlers need a stream.
func TestCompareLiveStreamForHandlers(t *testing.T) {
	src := strings.Replace(sparseModel, "      createdAt: time\n", "      createdAt: time\n      merchantName: {type: string, maxLength: 40}\n", 1)
	src = strings.Replace(src, "    keys:\n      table: {pk: \"ORDER", "    copies:\n      merchantName: {from: Merchant.name, via: MerchantOrders}\n    keys:\n      table: {pk: \"ORDER", 1)
	src = strings.Replace(src, "patterns:\n", `  Merchant:
    id: [merchantId]
    attributes: {merchantId: {type: string, maxLength: 20}, name: {type: string, maxLength: 40}}
    keys:
      table: {pk: "MERCHANT#{merchantId}", sk: MERCHANT}
      GSI3: {pk: "MORDERS#{merchantId}", sk: MERCHANT}
patterns:
  MerchantOrders: {query: Order, where: [merchantId], filter: {status: PENDING}}
`, 1)
	d := mustPlan(t, src)
	if len(d.Handlers()) == 0 {
		t.Fatal("the model calls for no handler")
	}
	l := NewLock(d)
	ld := CompareLive(l, liveOf(l))
	if !slices.Equal(kinds(ld), []DriftKind{DriftStream}) || !strings.Contains(ld.Drifts[0].Message, "fanout") {
		t.Fatalf("drifts %v", ld.Drifts)
	}
	live := liveOf(l)
	live.Stream = StreamNewAndOld
	if ld := CompareLive(l, live); !ld.Clean() || slices.Contains(ld.Unrecorded, "stream") {
		t.Errorf("with its stream: %v, unrecorded %v", ld.Drifts, ld.Unrecorded)
	}
}

func mustPlan(t *testing.T, src string) *Design {
	t.Helper()
	d, err := Plan(mustParse(t, src))
	if err != nil {
		t.Fatal(err)
	}
	if errs := d.Errors(); len(errs) > 0 {
		t.Fatalf("%v", errs)
	}
	return d
}

// Phases are planned from the GSIs the table has: one it lost is
// created again (DynamoDB rebuilds it from the items' attributes), one
// added by hand is deleted, one keyed otherwise under the lock's name is
// deleted first and created again, each in a deploy of its own, then the
// change's own phases (a new GSI and its backfill).
func TestLivePhases(t *testing.T) {
	from := mustPlan(t, sparseModel)
	lock := NewLock(from)
	grown := strings.Replace(sparseModel, "      GSI2:", "      GSI3: {pk: \"ORDERS#{merchantId}\", sk: \"ORDER#{orderId}\"}\n      GSI2:", 1)
	grown = strings.Replace(grown, "patterns:\n", "patterns:\n  MerchantOrders: {query: Order, where: [merchantId]}\n", 1)
	to := mustPlan(t, grown)
	df := Compare(lock, to)
	if got := phaseTexts(df.Phases); !slices.Equal(got, []string{"create GSI3; backfill Order"}) {
		t.Fatalf("the lock's phases: %v", got)
	}
	tests := []struct {
		name string
		edit func(*LiveTable)
		want []string
	}{
		{"as the lock says", func(*LiveTable) {}, []string{"create GSI3; backfill Order"}},
		{"GSI2 lost", func(t *LiveTable) { t.Indexes = nil }, []string{"create GSI2", "create GSI3; backfill Order"}},
		{"one added by hand", func(t *LiveTable) {
			t.Indexes = append(t.Indexes, &LiveIndex{Name: "Manual", PartitionKeys: []string{"email"}, Projection: ProjectAll, Status: StatusActive})
			t.Types["email"] = "S"
		}, []string{"create GSI3; backfill Order", "delete Manual"}},
		{"GSI2 projected otherwise", func(t *LiveTable) { t.Indexes[0].Projection = ProjectKeysOnly }, []string{"delete GSI2", "create GSI2", "create GSI3; backfill Order"}},
		{"GSI3 made by hand already", func(t *LiveTable) {
			t.Indexes = append(t.Indexes, &LiveIndex{Name: "GSI3", PartitionKeys: []string{"GSI3PK"}, SortKeys: []string{"GSI3SK"}, Projection: ProjectAll, Status: StatusActive})
		}, []string{"backfill Order"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			live := liveOf(lock)
			tt.edit(live)
			ld := CompareLive(lock, live)
			ps := LivePhases(df, ld, live.TTL, to)
			if got := phaseTexts(ps); !slices.Equal(got, tt.want) {
				t.Errorf("phases %v, want %v", got, tt.want)
			}
			for i, p := range ps {
				if err := p.valid(); err != nil {
					t.Errorf("phase %d: %v", i, err)
				}
				if len(p.Create)+len(p.Delete) > 1 {
					t.Errorf("phase %d changes %d GSIs", i, len(p.Create)+len(p.Delete))
				}
			}
			if n := len(ps); n > 0 && !samePhaseIndexes(ps[n-1].Indexes, phaseIndexes(to)) {
				t.Errorf("the last phase ends with %v, not the design's GSIs", ps[n-1].Indexes)
			}
		})
	}
}

func phaseTexts(ps []*Phase) []string {
	var out []string
	for _, p := range ps {
		out = append(out, p.String())
	}
	return out
}

func samePhaseIndexes(a, b []*PhaseIndex) bool {
	if len(a) != len(b) {
		return false
	}
	for _, x := range a {
		i := slices.IndexFunc(b, func(y *PhaseIndex) bool { return y.Name == x.Name })
		if i < 0 || !samePhaseIndex(x, b[i]) {
			return false
		}
	}
	return true
}

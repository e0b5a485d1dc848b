package patterns

import (
	"bytes"
	"strings"
	"testing"

	kpmodel "github.com/keyplan/keyplan/patterns/model"
)

const settingsModel = `table: Ledger
headroom: 2
consistency: strong
principals:
  Auditor: {arn: "arn:aws:iam::111122223333:role/auditor", patterns: [GetAccount]}
entities:
  Account:
    id: [accountId]
    writes: 10
    attributes: {accountId: {type: string, maxLength: 36}, owner: {type: string, maxLength: 64}}
patterns:
  GetAccount: {get: Account, rate: 100, peak: 400}
  AccountsByOwner: {query: Account, where: [owner], rate: 5}
`

// Bad settings are refused at file:line:col, naming the field and what
// was expected.
func TestSettingsBadInput(t *testing.T) {
	tests := []struct{ name, old, new, want string }{
		{"headroom below 1", "headroom: 2", "headroom: 0.5",
			"model.yaml:2:11: headroom: expected a multiple of the declared load of at least 1 (2: twice what the patterns declare), found 0.5"},
		{"headroom not a number", "headroom: 2", "headroom: lots", `model.yaml:2:11: headroom: expected a number, found "lots"`},
		{"unknown consistency", "consistency: strong", "consistency: strongest",
			`model.yaml:3:14: consistency: "strongest": expected eventual (the default`},
		{"a principal's arn", `"arn:aws:iam::111122223333:role/auditor"`, `"arn:aws:s3:::bucket"`,
			`model.yaml:5:3: principals.Auditor.arn: "arn:aws:s3:::bucket": expected an IAM role or user ARN`},
		{"a principal's unknown pattern", "patterns: [GetAccount]", "patterns: [GetAcount]",
			`model.yaml:5:3: principals.Auditor.patterns: unknown pattern "GetAcount"`},
		{"a principal without patterns", "patterns: [GetAccount]", "patterns: []",
			"principals.Auditor.patterns: expected the read or write patterns the principal may use"},
		{"a principal's unknown field", "patterns: [GetAccount]}", "patterns: [GetAccount], role: x}",
			`principals.Auditor: unknown field "role"`},
		{"a peak below the rate", "rate: 100, peak: 400", "rate: 100, peak: 40",
			"model.yaml:12:47: patterns.GetAccount.peak: 40 is below the rate 100: the peak is the most per second, at least the rate"},
		{"a negative peak", "rate: 100, peak: 400", "rate: 100, peak: -4",
			"patterns.GetAccount.peak: expected the most requests per second, zero or more, found -4"},
		{"peak writes below writes", "    writes: 10\n", "    writes: 10\n    peakWrites: 5\n",
			"entities.Account.peakWrites: 5 is below the writes 10"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			model := strings.Replace(settingsModel, tt.old, tt.new, 1)
			if model == settingsModel {
				t.Fatalf("%q not in the model", tt.old)
			}
			_, err := kpmodel.Parse("model.yaml", []byte(model))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v\nwant %s", err, tt.want)
			}
		})
	}
	// and a write's peak
	_, err := kpmodel.Parse("model.yaml", []byte(settingsModel+"writes:\n  Open: {put: Account, rate: 10, peak: 1}\n"))
	if err == nil || !strings.Contains(err.Error(), "writes.Open.peak: 1 is below the rate 10") {
		t.Errorf("error %v", err)
	}
}

// The throughput each index gets: headroom × the larger of its load and
// its peak load, 0 where nothing declares a load; warm throughput only
// above DynamoDB's default; nothing at all without headroom or peaks.
func TestThroughputFromHeadroomAndPeaks(t *testing.T) {
	d := designOf(t, settingsModel)
	table, gsi := d.Cost.IndexThroughput(kpmodel.BaseIndex), d.Cost.IndexThroughput(d.Pattern("AccountsByOwner").Index)
	// GetAccount: 100/s (peak 400) × 0.5 RRU; Account writes 10/s × 1 WRU
	// on the table and again on the GSI (projected there).
	if table.PeakReadUnits != 200 || table.MaxReadUnits != 400 || table.MaxWriteUnits != 20 || table.WarmReadUnits != 0 {
		t.Errorf("table %+v", table)
	}
	// AccountsByOwner: 5/s × 25 items (no limit) × its item size, halved.
	if gsi.MaxReadUnits != 2*d.Cost.Indexes[1].ReadUnits || gsi.MaxReadUnits == 0 || gsi.MaxWriteUnits != 20 {
		t.Errorf("GSI %+v (load %+v)", gsi, d.Cost.Indexes[1])
	}
	// An index nothing declares a load on is not bounded.
	quiet := designOf(t, strings.Replace(settingsModel, "AccountsByOwner: {query: Account, where: [owner], rate: 5}", "AccountsByOwner: {query: Account, where: [owner]}", 1))
	if g := quiet.Cost.IndexThroughput(quiet.Pattern("AccountsByOwner").Index); g.MaxReadUnits != 0 || g.MaxWriteUnits != 20 {
		t.Errorf("an unread GSI: %+v", g)
	}
	if !hasFinding(quiet, "KP406", "AccountsByOwner") {
		t.Errorf("no KP406 for a pattern without a rate under headroom: %v", quiet.Diagnostics)
	}
	// Warm throughput: a peak load of 12,000 RRU/s is DynamoDB's default,
	// one above it is not.
	for peak, warm := range map[string]float64{"24000": 0, "24002": 12001} {
		w := designOf(t, strings.Replace(settingsModel, "peak: 400", "peak: "+peak, 1))
		if got := w.Cost.IndexThroughput(kpmodel.BaseIndex).WarmReadUnits; got != warm {
			t.Errorf("peak %s: warm %v, want %v", peak, got, warm)
		}
	}
	plain := designOf(t, strings.NewReplacer("headroom: 2\n", "", ", peak: 400", "").Replace(settingsModel))
	if plain.Cost.Throughput != nil {
		t.Errorf("no headroom, no peaks: %+v", plain.Cost.Throughput)
	}
}

func hasFinding(d *Design, id, subject string) bool {
	for _, f := range d.Diagnostics {
		if f.ID == id && f.Subject.Name == subject {
			return true
		}
	}
	return false
}

func designOf(t *testing.T, model string) *Design {
	t.Helper()
	m, err := kpmodel.Parse("model.yaml", []byte(model))
	if err != nil {
		t.Fatal(err)
	}
	d, err := Plan(m)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// The settings are part of the lock's model: a lock written with them
// reads back with them, accepts the design it was written from, and a
// lock without them (every earlier one) reads as before.
func TestSettingsInTheLock(t *testing.T) {
	d := designOf(t, settingsModel)
	b, err := NewLock(d).Bytes()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"headroom": 2`, `"consistency": "strong"`, `"arn": "arn:aws:iam::111122223333:role/auditor"`, `"peak": 400`} {
		if !bytes.Contains(b, []byte(want)) {
			t.Errorf("the lock lacks %s", want)
		}
	}
	l, err := ReadLock("model.lock.json", bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	m := l.Accepted.Model()
	if m.Headroom != 2 || !m.Strong() || len(m.Principals) != 1 || m.Pattern("GetAccount").Peak != 400 || !l.Accepts(d) {
		t.Errorf("read back: headroom %v, consistency %q, principals %v, accepts %v", m.Headroom, m.Consistency, m.Principals, l.Accepts(d))
	}
	if it := l.Accepted.Cost.IndexThroughput(kpmodel.BaseIndex); it == nil || it.MaxReadUnits != 400 {
		t.Errorf("the lock's design decides %+v", it)
	}
	// consistency: eventual says the default: the lock is the one without it
	e1 := designOf(t, strings.Replace(settingsModel, "consistency: strong\n", "", 1))
	e2 := designOf(t, strings.Replace(settingsModel, "consistency: strong", "consistency: eventual", 1))
	if !NewLock(e1).Accepts(e2) {
		t.Error("consistency: eventual changes the lock")
	}
	// and a change of consistency against a lock is refused
	if df := Compare(NewLock(e1), d); len(df.Errors()) == 0 || df.Errors()[0].ID != "KP622" {
		t.Errorf("eventual to strong: %+v", df.Changes)
	}
}

package patterns

import (
	"strings"
	"testing"
)

// What a layout demands of existing writes (issue 35, item 4). B's update
// of p passes nothing else. P0 reads p and q in one key, so every
// synthetic layout demands with: [q] of it; the collection P2 reads B by
// q alone, and B's key there read p too (B#{p}#{bId}, P1's shape, though
// P1 is served on GSI1): a second demand the layout of the same two GSIs
// without it avoids. The planner counts the demands after the GSIs, KP701
// says which layout would not demand them, and a native key (DynamoDB
// maintains it) demands nothing.
func TestLayoutDemandsOfWrites(t *testing.T) {
	model := func(indexKeys, bKeys string) string {
		return `table: Gen
indexKeys: ` + indexKeys + `
entities:
  B:
    id: [bId]
    attributes:
      bId: {type: string, maxLength: 20}
      p: {type: string, maxLength: 20}
      q: {type: string, maxLength: 20, immutable: true}
` + bKeys + `  C:
    id: [bId, cId]
    within: B
    attributes:
      bId: {type: string, maxLength: 20}
      cId: {type: string, maxLength: 20}
      q: {type: string, maxLength: 20}
patterns:
  GetB: {get: B}
  P0: {query: B, where: [p], sort: q}
  P1: {query: B, where: [q, p], sort: bId}
  P2: {query: [C, B], where: [q]}
writes:
  SetB: {update: B, set: [p]}
`
	}
	kp701 := func(d *Design) []string {
		var out []string
		for _, x := range d.Diagnostics {
			if x.ID == "KP701" {
				out = append(out, x.Message+" (fix: "+x.Fix+")")
			}
		}
		return out
	}
	t.Run("synthetic", func(t *testing.T) {
		d := planText(t, model("synthetic", ""))
		if len(d.Indexes) != 2 {
			t.Fatalf("%d GSIs, want 2", len(d.Indexes))
		}
		if k := d.Entity("B").Key("GSI2"); k == nil || k.SK.String() != "B#{bId}" {
			t.Errorf("B's key on GSI2 %v, want sort key B#{bId} (reading p, it demands q of SetB)", k)
		}
		got := kp701(d)
		if len(got) != 1 || !strings.Contains(got[0], "GSI1") || !strings.Contains(got[0], "no synthetic layout avoids it: pattern P0 reads q and p in one key; a native key (DynamoDB maintains it) would need none: drop indexKeys: synthetic") {
			t.Errorf("KP701: %q, want one, on GSI1, saying P0 needs it and a native key would not", got)
		}
	})
	t.Run("native", func(t *testing.T) {
		d := planText(t, model("auto", ""))
		if got := kp701(d); len(got) > 0 {
			t.Errorf("KP701 on native keys: %q", got)
		}
	})
	// The case, by hand: a sparse GSI on category whose sort key
	// reads the lease date, which no pattern on it needs.
	t.Run("a hand-made key reading more than its patterns", func(t *testing.T) {
		d := planText(t, `table: Leases
entities:
  Source:
    id: [sourceId]
    attributes: {sourceId: {type: string, maxLength: 40}, category: {type: string, maxLength: 40, optional: true}, leaseDate: time}
    keys:
      table: {pk: "SOURCE#{sourceId}", sk: SOURCE}
      GSI1: {pk: "CAT#{category}", sk: "{leaseDate}#{sourceId}"}
patterns:
  GetSource: {get: Source}
  ByCategory: {query: Source, where: [category]}
writes:
  RenewLease: {update: Source, set: [leaseDate]}
`)
		got := kp701(d)
		if len(got) != 1 || !strings.Contains(got[0], "add with: [category]") || !strings.Contains(got[0], "no pattern served there reads category with leaseDate (ByCategory read category): a key of Source on GSI1 that does not read them together would not") {
			t.Errorf("KP701: %q, want with: [category] and the key that would not demand it", got)
		}
	})
}

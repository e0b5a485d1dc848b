package prove

import (
	"context"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/keyplan/keyplan/internal/testkit/testmodel"
	"github.com/keyplan/keyplan/patterns"
	"github.com/keyplan/keyplan/patterns/dynamo"
	kpmodel "github.com/keyplan/keyplan/patterns/model"
	"github.com/keyplan/keyplan/patterns/oracle"
)

// The LSIs at scale (make test-scale: KEYPLAN_LSI_SCALE=20000): one
// player's partition filled to the model's declared bound (matchId's
// cardinality) with items of about 2 KB, each with two LSI entries, and a
// few matches of p10 beside it (p1 a prefix of p10); then every strong read
// (the get, both LSIs to their last page, a limited one) is compared with
// the reference evaluator. KP308 stays silent at that bound (the estimate
// is under 10 GB) and fires once the bound is raised past it.
func TestLocalIndexesAtScale(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("KEYPLAN_LSI_SCALE"))
	if n <= 0 {
		t.Skip("KEYPLAN_LSI_SCALE=N fills one partition with N matches (make test-scale: 20000)")
	}
	model := testmodel.ArenaMatchesTimed
	plan := func(card int) *patterns.Design {
		m, err := kpmodel.Parse("arena.yaml", []byte(model(card)))
		if err != nil {
			t.Fatal(err)
		}
		d, err := patterns.Plan(m)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	kp308 := func(d *patterns.Design) string {
		for _, x := range d.Diagnostics {
			if x.ID == "KP308" {
				return x.Message
			}
		}
		return ""
	}
	d := plan(n + 3)
	if len(d.LocalIndexes) != 2 || len(d.Indexes) != 0 {
		t.Fatalf("%d LSIs, %d GSIs; want 2 and 0", len(d.LocalIndexes), len(d.Indexes))
	}
	if msg := kp308(d); msg != "" {
		t.Fatalf("KP308 at %d matches: %s", n, msg)
	}
	if kp308(plan(100_000_000)) == "" {
		t.Error("no KP308 at 100,000,000 matches of about 2 KB")
	}
	ctx := context.Background()
	tbl := withProofClock(fresh(t, d))
	m := d.Model()
	g := oracle.NewGenerator(m, 40)
	g.Size, g.Now = 20, ProofNow
	run := &proofRun{t: tbl, ref: newRef(d), proof: &Proof{}}
	note := strings.Repeat("#%{}", 500)
	put := func(player, match string) {
		it := g.Item("Match")
		it.Values["playerId"], it.Values["matchId"], it.Values["note"] = player, match, note
		mm, err := run.op(ctx, &oracle.Op{Kind: oracle.OpCreate, Entity: "Match", Params: map[string]any(it.Values)})
		if err != nil || mm != nil {
			t.Fatalf("put %s/%s: %v %v", player, match, err, mm)
		}
	}
	for i := range n {
		put("p1", "m"+strconv.Itoa(i)) // m1, m10, m100: prefixes of each other
	}
	for i := range 3 {
		put("p10", "m"+strconv.Itoa(i))
	}
	// The get, the limited read and p10's small partition: the proof's
	// read (first page and every page, the planned requests).
	for _, rd := range []*oracle.Read{
		{Pattern: "GetMatch", Params: map[string]any{"playerId": "p1", "matchId": "m" + strconv.Itoa(n-1)}},
		{Pattern: "TopScores", Params: map[string]any{"playerId": "p1"}},
		{Pattern: "MatchesByScore", Params: map[string]any{"playerId": "p10"}},
	} {
		mm, err := run.read(ctx, rd)
		if err != nil || mm != nil {
			t.Fatalf("%s: %v %v", rd, err, mm)
		}
	}
	if run.proof.Reads != 3 || run.proof.Answered != 3 {
		t.Errorf("%d reads compared, %d answered; want 3 and 3", run.proof.Reads, run.proof.Answered)
	}
	// p1's whole partition by each LSI, page after page (each 1 MB page
	// holds a few hundred of these items), in the reference's order.
	for _, name := range []string{"MatchesByTime", "MatchesByScore"} {
		params := map[string]any{"playerId": "p1"}
		ans, err := run.ref.Read(m.Pattern(name), params, nil)
		if err != nil || len(ans.Items) != n {
			t.Fatalf("%s: the reference answers %d item(s), %v", name, len(ans.Items), err)
		}
		var all []dynamo.Item
		for it, err := range tbl.All(ctx, name, dynamo.Request{Params: dynamo.Params(params)}) {
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			all = append(all, it)
		}
		if err := ans.Check(m, fromRuntime(m, all), false); err != nil {
			t.Fatalf("%s, every page: %v", name, err)
		}
	}
	t.Logf("%d matches in one partition, each on two LSIs: every strong read as the reference answers it", n)
}

package patterns_test

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/keyplan/keyplan/internal/testkit/enginepass"
	"github.com/keyplan/keyplan/internal/testkit/testmodel"
	"github.com/keyplan/keyplan/patterns"
	kpmodel "github.com/keyplan/keyplan/patterns/model"
)

func loadArena(t *testing.T) (string, *patterns.Design) {
	t.Helper()
	src, err := os.ReadFile("testdata/models/arena.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return string(src), planKeyed(t, string(src), nil, "")
}

// A model whose strong reads need two other sort orders than the base
// table's plans two LSIs and no GSI for them; the eventually consistent
// read in one of those orders rides its LSI; the one in a third order goes
// to a GSI, and the plan says why for each.
func TestStrongReadsGetLocalIndexes(t *testing.T) {
	enginepass.Independent(t)
	_, d := loadArena(t)
	if len(d.LocalIndexes) != 2 || len(d.Indexes) != 1 {
		t.Fatalf("%d LSIs and %d GSIs; want 2 and 1", len(d.LocalIndexes), len(d.Indexes))
	}
	for _, ix := range d.LocalIndexes {
		if !ix.Local() || ix.PK != kpmodel.TablePK || ix.SK != ix.Name+"SK" {
			t.Errorf("LSI %s keyed %s/%s (kind %q)", ix.Name, ix.PK, ix.SK, ix.Kind)
		}
	}
	want := map[string]string{"GetMatch": "table", "MatchesByTime": "LSI1", "MatchesByScore": "LSI2", "RecentMatches": "LSI1", "MatchesByKills": "GSI1"}
	for name, index := range want {
		pp := d.Pattern(name)
		if pp.Index != index || !pp.Served() {
			t.Errorf("%s on %s (%s); want %s", name, pp.Index, pp.Operation, index)
		}
	}
	if len(d.Diagnostics) != 0 {
		t.Errorf("findings: %v", d.Diagnostics)
	}
	for name, why := range map[string]string{
		"MatchesByTime":  "a strongly consistent read in another order",
		"RecentMatches":  "an LSI the table has anyway: cheaper than a GSI",
		"MatchesByKills": "on GSI1, not an LSI",
	} {
		if c := d.LocalChoice(name); c == nil || !strings.Contains(c.Why, why) {
			t.Errorf("%s: choice %+v; want %q", name, c, why)
		}
	}
	if d.LocalChoice("GetMatch") != nil {
		t.Error("a base-table read has an LSI choice")
	}
	// The bound counts secondary indexes: an LSI serves what a GSI would.
	if d.LowerBound != 3 {
		t.Errorf("lower bound %d; want 3 (two LSIs and a GSI)", d.LowerBound)
	}
}

// The plan's JSON lists LSIs after the GSIs in indexes, kind local; a
// design read back (and a lock) carries them, and a hand-edited LSI is
// refused.
func TestLocalIndexesRoundTrip(t *testing.T) {
	enginepass.Independent(t)
	_, d := loadArena(t)
	b, err := json.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	var out struct {
		Indexes []struct {
			Name, Kind, PartitionKey, SortKey string
		}
	}
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, ix := range out.Indexes {
		got = append(got, ix.Name+":"+ix.Kind+":"+ix.PartitionKey+"/"+ix.SortKey)
	}
	if strings.Join(got, " ") != "GSI1::/ LSI1:local:PK/LSI1SK LSI2:local:PK/LSI2SK" {
		t.Errorf("indexes in the JSON: %v", got)
	}
	back, err := patterns.ReadDesign("arena.json", bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	if len(back.LocalIndexes) != 2 || len(back.Indexes) != 1 || back.Pattern("MatchesByScore").Index != "LSI2" {
		t.Errorf("read back: %d LSIs, %d GSIs, MatchesByScore on %s", len(back.LocalIndexes), len(back.Indexes), back.Pattern("MatchesByScore").Index)
	}
	for _, c := range []struct{ name, from, to, want string }{
		{"an LSI keyed otherwise", `"partitionKey":"PK","sortKey":"LSI2SK"`, `"partitionKey":"GSI9PK","sortKey":"LSI2SK"`, "local index LSI2 is keyed GSI9PK/LSI2SK"},
		{"an unknown kind", `"kind":"local","partitionKey":"PK","sortKey":"LSI2SK"`, `"kind":"regional","partitionKey":"PK","sortKey":"LSI2SK"`, `kind "regional"`},
		{"an LSI key outside the base partition", `"index":"LSI1","pk":"PLAYER#{playerId}"`, `"index":"LSI1","pk":"MATCH#{playerId}"`, "not its base key's"},
	} {
		edited := strings.Replace(string(b), c.from, c.to, 1)
		if edited == string(b) {
			t.Fatalf("%s: %s not in the JSON", c.name, c.from)
		}
		if _, err := patterns.ReadDesign("arena.json", strings.NewReader(edited)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v; want %q", c.name, err, c.want)
		}
	}
}

// With a lock, the table keeps its LSIs and gets no new one: a third
// strong order is refused by diff as a table replacement, naming the
// alternatives, and KP102's fix names the LSI that would serve it.
func TestLockedTableGetsNoNewLocalIndex(t *testing.T) {
	enginepass.Independent(t)
	src, d := loadArena(t)
	lock := patterns.NewLock(d)
	third := strings.Replace(src, "  RecentMatches:", "  TopScoresByMode: {query: Match, where: [playerId, mode], sort: score desc, consistent: true}\n  RecentMatches:", 1)
	next := planKeyed(t, third, lock, "")
	if len(next.LocalIndexes) != 2 {
		t.Fatalf("the locked table plans %d LSIs", len(next.LocalIndexes))
	}
	df := patterns.Compare(lock, next)
	var refused *patterns.Change
	for i, c := range df.Changes {
		if c.ID == "KP623" {
			refused = &df.Changes[i]
		}
	}
	if refused == nil || df.Safe || len(df.Phases) != 0 {
		t.Fatalf("diff: %s", dump(df))
	}
	for _, want := range []string{"TopScoresByMode", "a new LSI replaces the table: refused", "drop consistent: true", "create a new table with the LSI", "MATCH#{mode}#{score}#{matchId}"} {
		if !strings.Contains(refused.Subject.String()+" "+refused.Message, want) {
			t.Errorf("KP623 says %q; want %q in it", refused.Message, want)
		}
	}
	kp102 := ""
	for _, x := range next.Diagnostics {
		if x.ID == "KP102" {
			kp102 = x.Fix
		}
	}
	if !strings.Contains(kp102, "an LSI keyed PLAYER#{playerId} / MATCH#{mode}#{score}#{matchId} would serve it, but the deployed table cannot get one") {
		t.Errorf("KP102's fix: %q", kp102)
	}
	// Eventually consistent, it is a new GSI and no replacement.
	eventual := strings.Replace(third, "sort: score desc, consistent: true}", "sort: score desc}", 1)
	df = patterns.Compare(lock, planKeyed(t, eventual, lock, ""))
	if ids := strings.Join(changeIDs(df), ","); strings.Contains(ids, "KP623") || strings.Contains(ids, "KP102") {
		t.Errorf("the eventually consistent edit: %s", dump(df))
	}
	// A locked LSI no pattern reads any more stays, keys and all.
	none := strings.NewReplacer("  MatchesByTime:   {query: Match, where: [playerId], sort: playedAt desc, consistent: true}\n", "",
		"  RecentMatches:   {query: Match, where: [playerId], sort: playedAt desc, limit: 5}\n", "").Replace(src)
	none, _, _ = strings.Cut(none, "examples:")
	kept := planKeyed(t, none, lock, "")
	if kept.Index("LSI1") == nil || kept.Entity("Match").Key("LSI1") == nil {
		t.Fatalf("the unread LSI1 was dropped: %v", kept.LocalIndexes)
	}
	if ids := changeIDs(patterns.Compare(lock, kept)); strings.Contains(strings.Join(ids, ","), "KP623") {
		t.Errorf("removing LSI1's patterns: %v", ids)
	}
}

// Two strong reads one sort key serves share one LSI.
func TestStrongReadsShareALocalIndex(t *testing.T) {
	enginepass.Independent(t)
	d := planKeyed(t, testmodel.ArenaByMode, nil, "")
	if len(d.LocalIndexes) != 1 || len(d.Indexes) != 0 || d.Pattern("ByMode").Index != "LSI1" || d.Pattern("TopInMode").Index != "LSI1" {
		t.Errorf("%d LSIs, %d GSIs; ByMode on %s, TopInMode on %s", len(d.LocalIndexes), len(d.Indexes), d.Pattern("ByMode").Index, d.Pattern("TopInMode").Index)
	}
}

// A strong read that does not give its entity's base partition key gets
// no LSI (an LSI's partition key is the table's): KP102, with the usual
// fix; and a model without strong reads off the base table plans no LSI.
func TestNoLocalIndexWithoutAPartition(t *testing.T) {
	enginepass.Independent(t)
	d := planKeyed(t, `table: Users
entities:
  User:
    id: [userId]
    attributes: {userId: {type: string, maxLength: 40}, email: {type: string, maxLength: 254}, team: {type: string, maxLength: 20}}
patterns:
  GetUser: {get: User, consistent: true}
  ByEmail: {get: User, where: [email], unique: true, consistent: true}
  ByTeam: {query: User, where: [team]}
`, nil, "")
	if len(d.LocalIndexes) != 0 {
		t.Fatalf("%d LSIs", len(d.LocalIndexes))
	}
	var fix string
	for _, x := range d.Diagnostics {
		if x.ID == "KP102" {
			fix = x.Fix
		}
	}
	if fix != "drop consistent: true, or read by the base table's key (get by id)" {
		t.Errorf("KP102's fix: %q", fix)
	}
	if c := d.LocalChoice("ByEmail"); c == nil || !strings.Contains(c.Why, "the pattern's where does not give userId") {
		t.Errorf("ByEmail's choice: %+v", c)
	}
}

// Six strong orders: five LSIs, DynamoDB's limit, and KP102 for the last,
// its fix naming the limit.
func TestAtMostFiveLocalIndexes(t *testing.T) {
	enginepass.Independent(t)
	var b strings.Builder
	b.WriteString("table: Arena\nentities:\n  Match:\n    id: [playerId, matchId]\n    attributes:\n      playerId: {type: string, maxLength: 40}\n      matchId: {type: string, maxLength: 26, cardinality: 100}\n")
	for _, a := range "abcdef" {
		b.WriteString("      " + string(a) + ": {type: string, maxLength: 8}\n")
	}
	b.WriteString("patterns:\n  GetMatch: {get: Match, consistent: true}\n")
	for _, a := range "abcdef" {
		b.WriteString("  By" + strings.ToUpper(string(a)) + ": {query: Match, where: [playerId], sort: " + string(a) + ", consistent: true}\n")
	}
	d := planKeyed(t, b.String(), nil, "")
	if len(d.LocalIndexes) != kpmodel.MaxLSIs {
		t.Fatalf("%d LSIs", len(d.LocalIndexes))
	}
	n := 0
	for _, x := range d.Diagnostics {
		if x.ID == "KP102" {
			n++
			if !strings.Contains(x.Fix, "a table has at most 5") {
				t.Errorf("KP102's fix: %q", x.Fix)
			}
		}
	}
	if n != 1 {
		t.Errorf("%d KP102 findings; want 1: %v", n, d.Diagnostics)
	}
}

// A hand-made layout names an LSI with local: true; its partition key is
// the table's. Strong reads served there pass; the model's mistakes are
// named.
func TestExplicitLocalIndexes(t *testing.T) {
	enginepass.Independent(t)
	const model = testmodel.ArenaExplicitLocalIndex
	d := planKeyed(t, model, nil, "")
	if !d.Explicit || len(d.LocalIndexes) != 1 || d.LocalIndexes[0].Name != "ByScore" || d.Pattern("TopScores").Index != "ByScore" || len(d.Errors()) > 0 {
		t.Fatalf("explicit LSI: %v, TopScores on %s, %v", d.LocalIndexes, d.Pattern("TopScores").Index, d.Diagnostics)
	}
	if pk, sk := d.KeyNames("ByScore"); pk != "PK" || sk != "ByScoreSK" {
		t.Errorf("ByScore keyed %s/%s", pk, sk)
	}
	// On a GSI instead, KP102's fix says which local entry to add.
	global := strings.Replace(model, `ByScore: {local: true, sk: "SCORE#{score}#{matchId}"}`, `ByScore: {pk: "PLAYER#{playerId}", sk: "SCORE#{score}#{matchId}"}`, 1)
	g := planKeyed(t, global, nil, "")
	var fix string
	for _, x := range g.Diagnostics {
		if x.ID == "KP102" {
			fix = x.Fix
		}
	}
	if !strings.Contains(fix, `add a local index to Match's keys: {local: true, sk: "MATCH#{score}#{matchId}"}`) {
		t.Errorf("KP102's fix for a hand-made layout: %q", fix)
	}
	for _, c := range []struct{ name, from, to, want string }{
		{"a partition key not the table's", `ByScore: {local: true, sk:`, `ByScore: {local: true, pk: "P#{playerId}", sk:`, `"P#{playerId}" is not the table's partition key "PLAYER#{playerId}"`},
		{"the table's own key local", `table: {pk: "PLAYER#{playerId}", sk: "MATCH#{matchId}"}`, `table: {local: true, pk: "PLAYER#{playerId}", sk: "MATCH#{matchId}"}`, "the table's own key is not a local index"},
		{"local: a string", `{local: true, sk:`, `{local: yes please, sk:`, "local"},
	} {
		edited := strings.Replace(model, c.from, c.to, 1)
		if _, err := kpmodel.Parse("arena.yaml", []byte(edited)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v; want %q", c.name, err, c.want)
		}
	}
	// One index local for one entity and global for another.
	mixed := strings.Replace(model, "patterns:", `  Player:
    id: [playerId]
    attributes:
      playerId: {type: string, maxLength: 40}
      handle: {type: string, maxLength: 20}
    keys:
      table: {pk: "PLAYER#{playerId}", sk: PLAYER}
      ByScore: {pk: "HANDLE#{handle}", sk: PLAYER}
patterns:`, 1)
	if _, err := kpmodel.Parse("arena.yaml", []byte(mixed)); err == nil || !strings.Contains(err.Error(), "Player keys ByScore as a global index, but Match keys it as a local one") {
		t.Errorf("a mixed index: %v", err)
	}
}

// A hand-made layout's LSI removed from a locked table, or added, is a
// table replacement: refused.
func TestLocalIndexChangesRefused(t *testing.T) {
	enginepass.Independent(t)
	const model = testmodel.ArenaExplicitLocalIndex
	lock := patterns.NewLock(planKeyed(t, model, nil, ""))
	removed := strings.NewReplacer(`      ByScore: {local: true, sk: "SCORE#{score}#{matchId}"}`+"\n", "",
		"  TopScores: {query: Match, where: [playerId], sort: score desc, consistent: true}\n", "").Replace(model)
	added := strings.Replace(model, `      ByScore:`, `      ByKills: {local: true, sk: "K#{matchId}"}
      ByScore:`, 1)
	for name, src := range map[string]string{"removed": removed, "added": added} {
		df := patterns.Compare(lock, planKeyed(t, src, lock, ""))
		var msg string
		for _, c := range df.Changes {
			if c.ID == "KP623" {
				msg = c.Message
			}
		}
		if df.Safe || !strings.Contains(msg, "replaces the table: refused") {
			t.Errorf("LSI %s: %s", name, dump(df))
		}
	}
}

// An earlier keyplan's lock has no LSIs and reads unchanged: its design's
// bytes are what it holds.
func TestLocksWithoutLocalIndexesReadUnchanged(t *testing.T) {
	enginepass.Independent(t)
	for _, f := range []string{"../examples/ecommerce.lock.json", "../examples/leaderboard.lock.json", "../examples/merchant-orders.lock.json"} {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		l, err := patterns.ReadLock(f, bytes.NewReader(data))
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if len(l.Accepted.LocalIndexes) != 0 || bytes.Contains(data, []byte(`"kind"`)) {
			t.Errorf("%s: an earlier lock with LSIs?", f)
		}
		again, err := l.Bytes()
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(again, data) {
			t.Errorf("%s: written again, the lock's bytes change", f)
		}
	}
}

// Fewer LSIs come before fewer GSIs: where the base key can serve either
// the strong read or an eventually consistent one, it serves the strong
// one, and the other gets a GSI rather than the strong one an LSI (an LSI
// limits every item collection to 10 GB and stays with the table).
func TestLocalIndexesBeforeGSIsInTheObjective(t *testing.T) {
	enginepass.Independent(t)
	d := planKeyed(t, `table: Log
entities:
  Entry:
    id: [deviceId, day, seq]
    attributes:
      deviceId: {type: string, maxLength: 40}
      day: {type: number, min: 0, max: 99999}
      seq: {type: number, min: 0, max: 99999}
patterns:
  ByDay: {query: Entry, where: [deviceId], sort: day, consistent: true}
  BySeq: {query: Entry, where: [deviceId], sort: seq}
`, nil, "")
	if len(d.LocalIndexes) != 0 || len(d.Indexes) != 1 || d.Pattern("ByDay").Index != kpmodel.BaseIndex {
		t.Errorf("%d LSIs, %d GSIs, ByDay on %s; want the base table to serve the strong read", len(d.LocalIndexes), len(d.Indexes), d.Pattern("ByDay").Index)
	}
}

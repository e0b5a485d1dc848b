package patterns

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/keyplan/keyplan/internal/testkit/testmodel"
	kpmodel "github.com/keyplan/keyplan/patterns/model"
)

func plan(t testing.TB, path string) *Design {
	t.Helper()
	m, err := kpmodel.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	d, err := Plan(m)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func planText(t testing.TB, model string) *Design {
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

// Every pattern of every example is one GetItem or one Query, the design
// reaches its lower bound, and no check fails.
func TestExamplesOneRequestEach(t *testing.T) {
	for _, f := range testmodel.Files(t) {
		t.Run(filepath.Base(f), func(t *testing.T) {
			d := plan(t, f)
			for _, p := range d.Patterns {
				if p.Operation != GetItem && p.Operation != Query || p.Requests != 1 {
					t.Errorf("pattern %s: %s with %d requests (%s)", p.Name, p.Operation, p.Requests, p.Reason)
				}
			}
			if len(d.Indexes)+len(d.LocalIndexes) != d.LowerBound {
				t.Errorf("%d GSIs, lower bound %d", len(d.Indexes), d.LowerBound)
			}
			for _, x := range d.Errors() {
				t.Errorf("finding: %s", x)
			}
		})
	}
}

func TestLeaderboard(t *testing.T) {
	// GIVEN seed 000's leaderboard WHEN planned
	d := plan(t, "../examples/leaderboard.yaml")
	// THEN season ranking and handle lookup, both of Player, take two GSIs:
	// one item holds one value per GSI attribute.
	if len(d.Indexes) != 2 || d.LowerBound != 2 {
		t.Fatalf("%d GSIs, lower bound %d; want 2 and 2", len(d.Indexes), d.LowerBound)
	}
	season, handle := d.Pattern("SeasonLeaderboard"), d.Pattern("PlayerByHandle")
	if season.Index == handle.Index || season.Index == kpmodel.BaseIndex || handle.Index == kpmodel.BaseIndex {
		t.Errorf("SeasonLeaderboard on %s, PlayerByHandle on %s", season.Index, handle.Index)
	}
	if !season.Desc || season.KeyCondition.SortAttr != "rating" || season.Limit != 100 {
		t.Errorf("SeasonLeaderboard plan %+v", season)
	}
	if ix := d.Index(season.Index); ix.Projection != ProjectInclude || strings.Join(ix.NonKeyAttributes, ",") != "handle" {
		t.Errorf("season index projection %s: rating and playerId come from the keys, handle must be included", ix.ProjectionText())
	}
	// The base table serves profile, matches and both together.
	for _, name := range []string{"GetPlayer", "RecentMatches", "PlayerWithMatches"} {
		if p := d.Pattern(name); p.Index != kpmodel.BaseIndex {
			t.Errorf("%s on %s, want the base table", name, p.Index)
		}
	}
	if p := d.Pattern("GetPlayer"); p.Operation != GetItem {
		t.Errorf("GetPlayer is %s", p.Operation)
	}
	if got := d.Pattern("RecentMatches").Text; got != `PK = "PLAYER#{playerId}" AND begins_with(SK, "MATCH#"), SK ordered by playedAt` {
		t.Errorf("RecentMatches: %s", got)
	}
	if d.TTL != "expiresAt" {
		t.Errorf("ttl %q", d.TTL)
	}
}

// Different entities share overloaded GSIs: the shop's four GSI patterns
// of three entities (an email lookup, a category listing, two order
// listings) fit on two GSIs, its lower bound.
func TestEcommerceSharesOverloadedGSI(t *testing.T) {
	d := plan(t, "../examples/ecommerce.yaml")
	if len(d.Indexes) != 2 || d.LowerBound != 2 {
		t.Fatalf("%d GSIs, bound %d; want 2 and 2", len(d.Indexes), d.LowerBound)
	}
	shared := false
	for _, ix := range d.Indexes {
		shared = shared || len(ix.Entities) > 1
	}
	if !shared {
		t.Errorf("no GSI is shared by two entities: %+v", d.Indexes)
	}
	for _, p := range []string{"OrdersByStatus", "ProductsByCategory", "CustomerByEmail", "CustomerOrders"} {
		if pp := d.Pattern(p); pp.Index == kpmodel.BaseIndex || !pp.Served() {
			t.Errorf("%s on %s", p, pp.Index)
		}
	}
}

func TestMerchantPendingIsSparse(t *testing.T) {
	d := plan(t, "../examples/merchant-orders.yaml")
	p := d.Pattern("PendingOrdersForMerchant")
	k := d.Entity("Order").Key(p.Index)
	if len(k.When) != 1 || k.When[0] != (kpmodel.Const{Attr: "status", Value: "PENDING"}) {
		t.Fatalf("pending index key %+v: want sparse on status=PENDING", k)
	}
	if k.PK.String() != "ORDER#MERCHANTID#{merchantId}#STATUS#PENDING" {
		t.Errorf("pending PK %s", k.PK)
	}
	if len(d.Indexes) != 2 {
		t.Errorf("%d GSIs, want 2", len(d.Indexes))
	}
}

// DESIGN.md: Room, Member and Message share a partition; a room with its
// members is one Query that skips the messages.
func TestCollectionRangeExcludesOthers(t *testing.T) {
	d := plan(t, "testdata/models/chat.yaml")
	if len(d.Indexes) != 0 {
		t.Fatalf("%d GSIs; the base table serves everything", len(d.Indexes))
	}
	p := d.Pattern("RoomWithMembers")
	if p.Index != kpmodel.BaseIndex || p.KeyCondition.SKOp != "begins_with" || p.KeyCondition.SK.String() != "ROOM" {
		t.Fatalf("RoomWithMembers: %s", p.Text)
	}
	msg := d.Entity("Message").Key(kpmodel.BaseIndex).SK.String()
	if strings.HasPrefix(msg, "ROOM") {
		t.Errorf("message sort key %s falls in the room's range", msg)
	}
	for _, e := range []string{"Room", "Member"} {
		if sk := d.Entity(e).Key(kpmodel.BaseIndex).SK.String(); !strings.HasPrefix(sk, "ROOM") {
			t.Errorf("%s sort key %s is outside the range", e, sk)
		}
	}
}

// A collection that no prefix can isolate is read by BETWEEN.
func TestCollectionBetween(t *testing.T) {
	d := planText(t, `table: Things
entities:
  A: {id: [k], attributes: {k: string}, keys: {table: {pk: "P#{k}", sk: "A"}}}
  B: {id: [k, b], attributes: {k: string, b: string}, keys: {table: {pk: "P#{k}", sk: "B#{b}"}}}
  C: {id: [k, c], attributes: {k: string, c: string}, keys: {table: {pk: "P#{k}", sk: "C#{c}"}}}
  D: {id: [k, x], attributes: {k: string, x: string}, keys: {table: {pk: "P#{k}", sk: "AB#{x}"}}}
patterns:
  AB: {query: [A, B], where: [k]}
  BC: {query: [B, C], where: [k]}
  AC: {query: [A, C], where: [k]}
`)
	if p := d.Pattern("BC"); p.KeyCondition.SKOp != "between" || p.Text != `PK = "P#{k}" AND SK BETWEEN "B#" AND "C$"` {
		t.Errorf("BC: %s", p.Text)
	}
	if p := d.Pattern("AB"); p.Served() {
		t.Errorf("AB is served by %s, but D's items (AB#…) sort between A and B", p.Text)
	}
	if p := d.Pattern("AC"); p.Served() || !strings.Contains(p.Reason, "B") {
		t.Errorf("AC: served=%v reason %q; B sorts between A and C", p.Served(), p.Reason)
	}
	ids := map[string]bool{}
	for _, x := range d.Diagnostics {
		ids[x.ID] = true
	}
	if !ids["KP103"] {
		t.Errorf("diagnostics %v: want KP103 for the hand-made layout", d.Diagnostics)
	}
}

const handmade = `table: Leaderboard
entities:
  Player:
    id: [playerId]
    attributes:
      playerId: string
      handle: string
      season: {type: string, cardinality: 8}
      rating: {type: number, min: 0, max: 99999}
    keys:
      table: {pk: "PLAYER#{playerId}", sk: PROFILE}
      GSI1: {pk: "SEASON#{season}", sk: "RATING#{rating}"}
      GSI2: {pk: "HANDLE#{handle}", sk: "PLAYER#{playerId}"}
  Match:
    id: [playerId, playedAt]
    within: Player
    attributes: {playerId: string, playedAt: time}
    keys:
      table: {pk: "PLAYER#{playerId}", sk: "MATCH#{playedAt}"}
patterns:
  GetPlayer:         {get: Player}
  RecentMatches:     {query: Match, where: [playerId], sort: playedAt desc}
  PlayerWithMatches: {query: [Player, Match], where: [playerId]}
  SeasonLeaderboard: {query: Player, where: [season], sort: rating desc, limit: 100}
  PlayerByHandle:    {get: Player, where: [handle], unique: true}
`

func TestExplicitLayoutChecked(t *testing.T) {
	d := planText(t, handmade)
	if !d.Explicit || len(d.Indexes) != 2 || d.LowerBound != 2 {
		t.Fatalf("explicit=%v, %d GSIs, bound %d", d.Explicit, len(d.Indexes), d.LowerBound)
	}
	want := map[string]string{
		"GetPlayer":         `PK = "PLAYER#{playerId}" AND SK = "PROFILE"`,
		"RecentMatches":     `PK = "PLAYER#{playerId}" AND begins_with(SK, "MATCH#"), SK ordered by playedAt`,
		"PlayerWithMatches": `PK = "PLAYER#{playerId}"`,
		// Nothing else lives in these partitions: no sort-key condition needed.
		"SeasonLeaderboard": `GSI1PK = "SEASON#{season}", GSI1SK ordered by rating`,
		"PlayerByHandle":    `GSI2PK = "HANDLE#{handle}"`,
	}
	for name, text := range want {
		if got := d.Pattern(name).Text; got != text {
			t.Errorf("%s: %s\nwant %s", name, got, text)
		}
	}
	if len(d.Errors()) != 0 {
		t.Errorf("findings: %v", d.Errors())
	}
}

func TestExplicitLayoutUnservable(t *testing.T) {
	tests := []struct {
		name, from, to, pattern, reason, id string
	}{
		{"missing index", `      GSI2: {pk: "HANDLE#{handle}", sk: "PLAYER#{playerId}"}` + "\n", "", "PlayerByHandle", "its partition key SEASON#{season} needs season in where", "KP101"},
		{"sort not in key", `sk: "RATING#{rating}"`, `sk: "HANDLE#{handle}"`, "SeasonLeaderboard", "does not order by rating", "KP103"},
		{"untyped prefix reads other items", `sk: "MATCH#{playedAt}"`, `sk: "{playedAt}"`, "RecentMatches", "would also read Player items", "KP103"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := planText(t, strings.Replace(handmade, tt.from, tt.to, 1))
			p := d.Pattern(tt.pattern)
			if p.Served() || !strings.Contains(p.Reason, tt.reason) {
				t.Fatalf("%s: served=%v (%s), reason %q; want %q", tt.pattern, p.Served(), p.Text, p.Reason, tt.reason)
			}
			found := false
			for _, x := range d.Errors() {
				found = found || x.ID == tt.id && x.Subject == (Subject{SubjectPattern, tt.pattern}) && x.Pos.Line > 0
			}
			if !found {
				t.Errorf("no positioned %s for %s in %v", tt.id, tt.pattern, d.Diagnostics)
			}
		})
	}
}

// Three entities pairwise read together on different attributes: each
// needs two shapes, but the three shapes pairwise conflict, so three GSIs;
// the plan says so beside the bound.
func TestBoundReportedBesideCount(t *testing.T) {
	d := planText(t, `table: Things
entities:
  A: {id: [a], attributes: {a: string, x: string, z: string}}
  B: {id: [b], attributes: {b: string, x: string, y: string}}
  C: {id: [c], attributes: {c: string, y: string, z: string}}
patterns:
  AB: {query: [A, B], where: [x]}
  BC: {query: [B, C], where: [y]}
  CA: {query: [C, A], where: [z]}
`)
	if d.LowerBound != 2 || len(d.Indexes) != 3 {
		t.Errorf("bound %d, %d GSIs; want 2 and 3", d.LowerBound, len(d.Indexes))
	}
	for _, p := range d.Patterns {
		if !p.Served() {
			t.Errorf("%s not served: %s", p.Name, p.Reason)
		}
	}
}

// Two sparse shapes of one entity whose constants exclude each other share
// a GSI: no item holds both.
func TestExclusiveSparseShapesShareGSI(t *testing.T) {
	d := planText(t, `table: Things
entities:
  Order:
    id: [orderId]
    attributes: {orderId: string, merchantId: string, status: {values: [PENDING, SHIPPED]}, createdAt: time}
patterns:
  Pending: {query: Order, where: [merchantId], filter: {status: PENDING}, sort: createdAt}
  Shipped: {query: Order, where: [merchantId], filter: {status: SHIPPED}}
`)
	if len(d.Indexes) != 1 || d.LowerBound != 1 {
		t.Fatalf("%d GSIs, bound %d; want 1", len(d.Indexes), d.LowerBound)
	}
	if len(d.Entity("Order").Keys) != 3 {
		t.Errorf("Order keys %d, want base + 2 sparse on GSI1", len(d.Entity("Order").Keys))
	}
}

// A coarser partition whose sort key leads with the finer pattern's extra
// equality serves both patterns with one shape.
func TestShapesMerge(t *testing.T) {
	d := planText(t, `table: Things
entities:
  Player:
    id: [playerId]
    attributes: {playerId: string, season: string, region: string, rating: {type: number, min: 0, max: 9999}}
patterns:
  ByRegion: {query: Player, where: [season], sort: region}
  Ranked:   {query: Player, where: [season, region], sort: rating desc}
`)
	if len(d.Indexes) != 1 {
		t.Fatalf("%d GSIs, want 1", len(d.Indexes))
	}
	if got := d.Pattern("Ranked").Text; got != `season = {season} AND region = {region}, ordered by rating` {
		t.Errorf("Ranked: %s", got)
	}
	if ix := d.Indexes[0]; ix.KeyText() != "season / region, rating, playerId" {
		t.Errorf("GSI1 keyed %s", ix.KeyText())
	}
	d = planText(t, `table: Things
indexKeys: synthetic
entities:
  Player:
    id: [playerId]
    attributes: {playerId: string, season: string, region: string, rating: {type: number, min: 0, max: 9999}}
patterns:
  ByRegion: {query: Player, where: [season], sort: region}
  Ranked:   {query: Player, where: [season, region], sort: rating desc}
`)
	if got := d.Pattern("Ranked").Text; got != `GSI1PK = "PLAYER#SEASON#{season}" AND begins_with(GSI1SK, "PLAYER#{region}#"), GSI1SK ordered by rating` {
		t.Errorf("Ranked, synthetic: %s", got)
	}
}

func TestShardedPattern(t *testing.T) {
	d := planText(t, `table: Things
entities:
  Order:
    id: [orderId]
    attributes: {orderId: string, status: {values: [PENDING, SHIPPED]}, createdAt: time}
patterns:
  ByStatus: {query: Order, where: [status], sort: createdAt, shards: 8}
`)
	p := d.Pattern("ByStatus")
	if p.Requests != 8 || p.KeyCondition.PK.Shards() != 8 {
		t.Errorf("ByStatus: %d requests, PK %s", p.Requests, p.KeyCondition.PK)
	}
}

func TestStrongReadOnGSI(t *testing.T) {
	d := planText(t, `table: Things
entities:
  User:
    id: [userId]
    attributes: {userId: string, email: string}
patterns:
  ByEmail: {get: User, where: [email], consistent: true}
`)
	errs := d.Errors()
	if len(errs) != 1 || errs[0].ID != "KP102" || errs[0].Pos.Line != 7 {
		t.Errorf("findings %v: want one KP102 at line 7", errs)
	}
}

// A get whose where does not fill the whole base key reads the one
// partition its item is in: a Query, one request (GetItem needs the
// whole key). Found by FuzzBound: a unique get on the attribute the base
// key is partitioned by was left unserved.
func TestGetOnPartOfTheBaseKeyIsAQuery(t *testing.T) {
	d := planText(t, strings.Replace(handmade, `sk: PROFILE}`, `sk: "PROFILE#{handle}"}`, 1))
	if p := d.Pattern("GetPlayer"); !p.Served() || p.Operation != Query || p.Index != kpmodel.BaseIndex || p.Requests != 1 {
		t.Errorf("GetPlayer: %s %s %q (%s)", p.Operation, p.Index, p.Text, p.Reason)
	}
	d = planText(t, testmodel.GenUniqueGet)
	for _, x := range d.Errors() {
		t.Errorf("designed: %s", x)
	}
	if p := d.Pattern("P2"); p.Operation != Query || p.Requests != 1 {
		t.Errorf("P2: %s %q", p.Operation, p.Text)
	}
}

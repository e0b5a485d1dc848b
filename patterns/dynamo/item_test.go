package dynamo

import (
	"context"
	"errors"
	"os"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/keyplan/keyplan/internal/testkit/keyplantest"
	"github.com/keyplan/keyplan/patterns"
	"github.com/keyplan/keyplan/patterns/model"
)

// load plans a model with synthetic GSI keys: these tests are of the
// synthetic keys' machinery (items carrying GSIxPK/GSIxSK, padded
// numbers, prefixes); native_test.go tests native keys, and
// TestExamplesOnEngine proves every example both ways.
func load(t testing.TB, path string) *Table {
	t.Helper()
	return New(keyplantest.Keyed(t, path, model.IndexKeysSynthetic), nil, "Tbl")
}

func names(item map[string]types.AttributeValue) string {
	var n []string
	for k := range item {
		n = append(n, k)
	}
	sort.Strings(n)
	return strings.Join(n, ",")
}

func s(item map[string]types.AttributeValue, k string) string {
	if v, ok := item[k].(*types.AttributeValueMemberS); ok {
		return v.Value
	}
	return "<absent>"
}

var player = Values{"playerId": "p1", "handle": "night hawk", "region": "eu", "season": "2026-Q2", "rating": 9, "createdAt": "2025-01-02T10:00:00+01:00"}

func TestItemCarriesExactlyItsKeys(t *testing.T) {
	tbl := load(t, "../../examples/leaderboard.yaml")
	item, err := tbl.Item("Player", player)
	if err != nil {
		t.Fatal(err)
	}
	if got := names(item); got != "GSI1PK,GSI1SK,GSI2PK,GSI2SK,PK,SK,createdAt,handle,playerId,rating,region,season" {
		t.Errorf("attributes %s", got)
	}
	want := map[string]string{
		"PK": "PLAYER#p1", "SK": "PLAYER",
		"GSI2PK": "PLAYER#SEASON#2026-Q2", "GSI2SK": "PLAYER#00009#p1", // padded: 9 sorts before 1000
		"GSI1PK": "PLAYER#HANDLE#night%20hawk", "GSI1SK": "PLAYER#p1",
		"createdAt": "2025-01-02T09:00:00.000Z", // fixed-width UTC
	}
	for k, v := range want {
		if s(item, k) != v {
			t.Errorf("%s = %q, want %q", k, s(item, k), v)
		}
	}
	if n, ok := item["rating"].(*types.AttributeValueMemberN); !ok || n.Value != "9" {
		t.Errorf("rating %#v", item["rating"])
	}
}

// An item is on a sparse index only while it holds the constant.
func TestItemSparse(t *testing.T) {
	tbl := load(t, "../../examples/merchant-orders.yaml")
	order := Values{"orderId": "o1", "userId": "u1", "merchantId": "m1", "status": "PENDING", "createdAt": "2026-04-21T10:15:00Z", "total": 100}
	pending, _ := tbl.Item("Order", order)
	order["status"] = "SHIPPED"
	shipped, _ := tbl.Item("Order", order)
	if s(pending, "GSI1PK") != "ORDER#MERCHANTID#m1#STATUS#PENDING" {
		t.Errorf("pending GSI1PK %q", s(pending, "GSI1PK"))
	}
	if _, ok := shipped["GSI1PK"]; ok {
		t.Errorf("a shipped order is on the pending index: %v", shipped["GSI1PK"])
	}
	if s(shipped, "GSI2PK") != "ORDER#USERID#u1" {
		t.Errorf("shipped order left the user index: %q", s(shipped, "GSI2PK"))
	}
}

func TestItemErrors(t *testing.T) {
	tbl := load(t, "../../examples/leaderboard.yaml")
	tests := []struct {
		name   string
		entity string
		v      Values
		is     error
		want   string
	}{
		{"unknown entity", "Playr", player, ErrUnknownEntity, `unknown entity "Playr" (the design has Player, Match)`},
		{"missing", "Player", Values{"playerId": "p1"}, ErrMissing, "Player.handle is required"},
		{"unknown attribute", "Player", with(player, "hadle", "x"), ErrUnknownAttr, `unknown attribute "hadle" of Player`},
		{"out of range", "Player", with(player, "rating", 100000), model.ErrValue, "out of the declared range 0..99999"},
		{"enum", "Player", with(player, "region", "mars"), model.ErrValue, "expected one of na, eu, apac"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := tbl.Item(tt.entity, tt.v)
			var e *Error
			if !errors.Is(err, tt.is) || !errors.As(err, &e) || e.Op != "Item" || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v; want %v containing %q", err, tt.is, tt.want)
			}
		})
	}
}

func with(v Values, k string, x any) Values {
	c := Values{}
	for a, b := range v {
		c[a] = b
	}
	c[k] = x
	return c
}

func TestDecodeRoundTrip(t *testing.T) {
	tbl := load(t, "../../examples/leaderboard.yaml")
	match := Values{"playerId": "p1", "playedAt": "2026-06-23T14:00:00Z", "result": "win", "ratingDelta": -15, "mapId": "dust", "expiresAt": 1900000000}
	for entity, v := range map[string]Values{"Player": player, "Match": match} {
		item, err := tbl.Item(entity, v)
		if err != nil {
			t.Fatal(err)
		}
		// A KEYS_ONLY-like item: only the keys; the id still decodes.
		keys := map[string]types.AttributeValue{"PK": item["PK"], "SK": item["SK"]}
		name, got, err := tbl.Decode(keys)
		if err != nil || name != entity || got["playerId"] != "p1" {
			t.Errorf("Decode(keys of %s) = %s %v %v", entity, name, got, err)
		}
		name, got, err = tbl.Decode(item)
		if err != nil || name != entity {
			t.Fatalf("Decode(%s) = %s, %v", entity, name, err)
		}
		for k, want := range v {
			a := tbl.m.Entity(entity).Attr(k)
			w, _ := a.EncodeKey(want)
			g, err := a.EncodeKey(got[k])
			if err != nil || g != w {
				t.Errorf("%s.%s: decoded %v (%T), want %v", entity, k, got[k], got[k], want)
			}
		}
	}
	if _, _, err := tbl.Decode(map[string]types.AttributeValue{"PK": &types.AttributeValueMemberS{Value: patterns.GuardTag + "#PLAYER#HANDLE#x"}, "SK": &types.AttributeValueMemberS{Value: patterns.GuardTag}}); !errors.Is(err, ErrNotKeyplan) {
		t.Errorf("a guard item decoded: %v", err)
	}
}

// The QueryInput equals the one a careful hand would build with the
// expression builder (guregu/dynamo style: no network).
func TestQueryInputEqualsHandBuilt(t *testing.T) {
	tbl := load(t, "../../examples/leaderboard.yaml")
	got, err := tbl.QueryInput("SeasonLeaderboard", Request{Params: Params{"season": "2026-Q2"}})
	if err != nil {
		t.Fatal(err)
	}
	expr, _ := expression.NewBuilder().
		WithKeyCondition(expression.Key("GSI2PK").Equal(expression.Value("PLAYER#SEASON#2026-Q2"))).
		// GSI2 is INCLUDE (handle): rating is read from GSI2SK, never
		// asked of the index (DynamoDB refuses it: "does not project").
		WithProjection(expression.NamesList(expression.Name("PK"), expression.Name("SK"), expression.Name("GSI2PK"), expression.Name("GSI2SK"), expression.Name("handle"))).
		Build()
	want := &dynamodb.QueryInput{
		TableName: aws.String("Tbl"), IndexName: aws.String("GSI2"),
		KeyConditionExpression: expr.KeyCondition(), ExpressionAttributeNames: expr.Names(), ExpressionAttributeValues: expr.Values(),
		ProjectionExpression: expr.Projection(), ScanIndexForward: aws.Bool(false), Limit: aws.Int32(100),
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got  %+v\nwant %+v", got, want)
	}
}

// Reserved words (status, name, result, ttl…) never appear bare in an
// expression: the builder names every attribute by placeholder.
func TestReservedWordsArePlaceholders(t *testing.T) {
	tbl := load(t, "../../examples/ecommerce.yaml")
	in, err := tbl.QueryInput("OrdersByStatus", Request{Params: Params{"status": "PENDING"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, expr := range []string{aws.ToString(in.KeyConditionExpression), aws.ToString(in.ProjectionExpression)} {
		for _, word := range []string{"status", "name", "total", "GSI2PK"} {
			if strings.Contains(expr, word) {
				t.Errorf("expression %q names %s bare", expr, word)
			}
		}
	}
	var named []string
	for _, n := range in.ExpressionAttributeNames {
		named = append(named, n)
	}
	sort.Strings(named)
	if strings.Join(named, ",") != "GSI2PK,GSI2SK,PK,SK,customerName,total" {
		t.Errorf("names %v", named)
	}
}

func TestSortRanges(t *testing.T) {
	tbl := load(t, "../../examples/leaderboard.yaml")
	tests := []struct {
		name    string
		pattern string
		r       *Range
		want    string // the condition on the sort key, values substituted
	}{
		{"none, shared partition", "RecentMatches", nil, `begins_with(SK, "MATCH#")`},
		{"none, own partition", "SeasonLeaderboard", nil, ``},
		{">=", "SeasonLeaderboard", &Range{Op: ">=", Value: 1000}, `GSI2SK BETWEEN "PLAYER#01000" AND "PLAYER$"`},
		{">", "SeasonLeaderboard", &Range{Op: ">", Value: 1000}, `GSI2SK BETWEEN "PLAYER#01000$" AND "PLAYER$"`},
		{"<=", "SeasonLeaderboard", &Range{Op: "<=", Value: 990}, `GSI2SK BETWEEN "PLAYER#" AND "PLAYER#00990$"`},
		{"< before an id", "SeasonLeaderboard", &Range{Op: "<", Value: 990}, `GSI2SK BETWEEN "PLAYER#" AND "PLAYER#00990"`},
		{"= before an id", "SeasonLeaderboard", &Range{Op: "=", Value: 990}, `begins_with(GSI2SK, "PLAYER#00990#")`},
		{"between", "SeasonLeaderboard", &Range{Op: "between", Value: 9, Upper: 1000}, `GSI2SK BETWEEN "PLAYER#00009" AND "PLAYER#01000$"`},
		{"< ending the key", "RecentMatches", &Range{Op: "<", Value: "2026-06-23T14:00:00Z"}, `SK BETWEEN "MATCH#" AND "MATCH#2026-06-23T13:59:59.999Z$"`},
		{"= ending the key", "RecentMatches", &Range{Op: "=", Value: "2026-06-23T14:00:00Z"}, `SK = "MATCH#2026-06-23T14:00:00.000Z"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			params := Params{"playerId": "p1"}
			if tt.pattern == "SeasonLeaderboard" {
				params = Params{"season": "S"}
			}
			in, err := tbl.QueryInput(tt.pattern, Request{Params: params, Range: tt.r})
			if err != nil {
				t.Fatal(err)
			}
			if got := condition(in); got != tt.want {
				t.Errorf("sort-key condition %s\nwant %s", got, tt.want)
			}
		})
	}
	for _, bad := range []*Range{{Op: "~", Value: 1}, {Op: ">=", Value: "high"}, {Op: "between", Value: 10, Upper: 1}, {Op: "begins_with", Value: 1}} {
		if _, err := tbl.QueryInput("SeasonLeaderboard", Request{Params: Params{"season": "S"}, Range: bad}); !errors.Is(err, ErrBadRange) {
			t.Errorf("range %+v: error %v, want ErrBadRange", bad, err)
		}
	}
}

var placeholder = regexp.MustCompile(`[#:][0-9]+`)

// condition substitutes names and values back into a key condition and
// returns its sort-key part ("" when there is none). The builder writes
// "(#0 = :0) AND (begins_with (#1, :1))".
func condition(in *dynamodb.QueryInput) string {
	out := placeholder.ReplaceAllStringFunc(aws.ToString(in.KeyConditionExpression), func(k string) string {
		if n, ok := in.ExpressionAttributeNames[k]; ok {
			return n
		}
		return `"` + in.ExpressionAttributeValues[k].(*types.AttributeValueMemberS).Value + `"`
	})
	_, sk, ok := strings.Cut(out, ") AND (")
	if !ok {
		return ""
	}
	return strings.ReplaceAll(strings.TrimSuffix(sk, ")"), "begins_with (", "begins_with(")
}

func TestRequestErrors(t *testing.T) {
	tbl := load(t, "../../examples/leaderboard.yaml")
	tests := []struct {
		pattern string
		r       Request
		is      error
		want    string
	}{
		{"Nope", Request{}, ErrUnknownPattern, `unknown pattern "Nope"`},
		{"SeasonLeaderboard", Request{}, ErrMissing, "parameter season"},
		{"SeasonLeaderboard", Request{Params: Params{"season": "S", "region": "eu"}}, ErrUnknownAttr, `"region": the pattern's parameters are season`},
		{"PlayerWithMatches", Request{Params: Params{"playerId": "p"}, Range: &Range{Op: ">", Value: 1}}, ErrBadRange, "no sort attribute"},
	}
	for _, tt := range tests {
		_, err := tbl.QueryInput(tt.pattern, tt.r)
		if !errors.Is(err, tt.is) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %v; want %v with %q", tt.pattern, err, tt.is, tt.want)
		}
	}
	if _, err := tbl.QueryInput("GetPlayer", Request{Params: Params{"playerId": "p"}}); err == nil || !strings.Contains(err.Error(), "use GetItemInput") {
		t.Errorf("QueryInput of a GetItem pattern: %v", err)
	}
	in, err := tbl.GetItemInput("GetPlayer", Params{"playerId": "p1"})
	if err != nil || s(in.Key, "PK") != "PLAYER#p1" || s(in.Key, "SK") != "PLAYER" {
		t.Errorf("GetItemInput %+v %v", in, err)
	}
}

// Replace refuses to change an attribute declared immutable (it may be in
// the base key), before any request.
func TestReplaceRefusesImmutableChange(t *testing.T) {
	m, err := model.Parse("log.yaml", []byte(`table: Devices
entities:
  Log:
    id: [deviceId, at]
    attributes: {deviceId: string, at: time, state: {values: [ok, fail], immutable: true}, note: {type: string, optional: true}}
patterns:
  ByDeviceState: {query: Log, where: [deviceId, state], sort: at desc}
`))
	if err != nil {
		t.Fatal(err)
	}
	d, _ := patterns.Plan(m)
	tbl := New(d, nil, "Tbl")
	old := Values{"deviceId": "d1", "at": "2026-01-01T00:00:00Z", "state": "ok"}
	changed := Values{"deviceId": "d1", "at": "2026-01-01T00:00:00Z", "state": "fail"}
	err = tbl.Replace(context.Background(), "Log", old, changed)
	if !errors.Is(err, ErrImmutable) || !strings.Contains(err.Error(), "Log.state from ok to fail") {
		t.Errorf("Replace = %v, want ErrImmutable naming Log.state", err)
	}
}

// An entity renamed with renamedFrom keeps its tag, in its keys and in
// its guard items: a unique value taken before the rename stays taken.
func TestRenamedEntityKeepsItsGuards(t *testing.T) {
	src, err := os.ReadFile("../../examples/ecommerce.yaml")
	if err != nil {
		t.Fatal(err)
	}
	plan := func(text string, l *patterns.Lock) *patterns.Design {
		m, err := model.Parse("shop.yaml", []byte(text))
		if err != nil {
			t.Fatal(err)
		}
		d, err := patterns.PlanLocked(m, l)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	d1 := plan(string(src), nil)
	renamed := strings.NewReplacer("  Customer:\n", "  Client:\n    renamedFrom: Customer\n", "{get: Customer", "{get: Client",
		"{Customer: {", "{Client: {", "from: Customer.name", "from: Client.name").Replace(string(src))
	d2 := plan(renamed, patterns.NewLock(d1))
	v := Values{"customerId": "c9", "name": "Ada", "email": "ada@example.com", "createdAt": "2025-01-01T00:00:00Z"}
	before, err := New(d1, nil, "t").Items("Customer", v)
	if err != nil {
		t.Fatal(err)
	}
	after, err := New(d2, nil, "t").Items("Client", v)
	if err != nil {
		t.Fatal(err)
	}
	if len(before) != 2 || len(after) != 2 {
		t.Fatalf("%d and %d items (item and guard each)", len(before), len(after))
	}
	for i := range before {
		if !SameValue(before[i]["PK"], after[i]["PK"]) || !SameValue(before[i]["SK"], after[i]["SK"]) {
			t.Errorf("item %d: keys %v %v before the rename, %v %v after", i, before[i]["PK"], before[i]["SK"], after[i]["PK"], after[i]["SK"])
		}
	}
}

// Keys keep times to the millisecond: an id time finer than that is
// refused (two items at the same millisecond would share one key); a
// whole-millisecond one is fine, as are finer times outside ids.
func TestIDTimesFinerThanAMillisecond(t *testing.T) {
	m, err := model.Parse("r.yaml", []byte(`table: R
entities:
  Reading:
    id: [deviceId, at]
    attributes: {deviceId: {type: string, maxLength: 20}, at: time, seenAt: {type: time, optional: true}}
patterns:
  DeviceReadings: {query: Reading, where: [deviceId], sort: at}
`))
	if err != nil {
		t.Fatal(err)
	}
	d, _ := patterns.Plan(m)
	tbl := New(d, nil, "t")
	fine := time.Date(2026, 1, 2, 3, 4, 5, 123456789, time.UTC)
	if _, err := tbl.Item("Reading", Values{"deviceId": "d", "at": fine}); err == nil || !strings.Contains(err.Error(), "finer than a millisecond") {
		t.Errorf("Item with an id time of %v: %v", fine, err)
	}
	if _, err := tbl.Key("Reading", Values{"deviceId": "d", "at": "2026-01-02T03:04:05.1234Z"}); err == nil {
		t.Error("Key with a sub-millisecond id time (text) accepted")
	}
	if _, err := tbl.Item("Reading", Values{"deviceId": "d", "at": fine.Truncate(time.Millisecond), "seenAt": fine}); err != nil {
		t.Errorf("a millisecond id time: %v", err)
	}
}

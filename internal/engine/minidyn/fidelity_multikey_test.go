package minidyn

import (
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"
)

// Group 22: multi-attribute GSI keys (November 2025), written from AWS's
// "Multi-attribute keys pattern" (GSI.DesignPattern.MultiAttributeKeys):
// its tournament example, a GSI on tournamentId + region (HASH) and
// round + bracket + matchId (RANGE), and one on player1Id (HASH) and
// matchDate + round (RANGE); and its query rules: every partition
// attribute by equality, sort attributes left to right with no gap, a
// range only on the last one used, an item missing any key attribute not
// indexed. DynamoDB Local 1.25.1 refuses such a key schema (they came in
// 3.3.0): on a reference that refuses it, these tests skip and say so.

// tournamentTable creates the documentation's table: matches keyed by
// matchId, with its two multi-attribute GSIs. On a reference engine that
// refuses them, the test skips.
func tournamentTable(t *testing.T, e engineUnderTest) string {
	t.Helper()

	el := func(name string, typ types.KeyType) types.KeySchemaElement {
		return types.KeySchemaElement{AttributeName: aws.String(name), KeyType: typ}
	}
	all := &types.Projection{ProjectionType: types.ProjectionTypeAll}
	name := uniqueName(t)

	_, err := e.db.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName: aws.String(name), BillingMode: types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{attr("matchId", "S"), attr("tournamentId", "S"), attr("region", "S"),
			attr("round", "S"), attr("bracket", "S"), attr("player1Id", "S"), attr("matchDate", "S")},
		KeySchema: []types.KeySchemaElement{el("matchId", types.KeyTypeHash)},
		GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{
			{IndexName: aws.String("TournamentRegionIndex"), Projection: all, KeySchema: []types.KeySchemaElement{
				el("tournamentId", types.KeyTypeHash), el("region", types.KeyTypeHash),
				el("round", types.KeyTypeRange), el("bracket", types.KeyTypeRange), el("matchId", types.KeyTypeRange)}},
			{IndexName: aws.String("PlayerMatchHistoryIndex"), Projection: all, KeySchema: []types.KeySchemaElement{
				el("player1Id", types.KeyTypeHash), el("matchDate", types.KeyTypeRange), el("round", types.KeyTypeRange)}},
		},
	})
	if err != nil {
		skipWithoutMultiKeys(t, e, err)
		t.Fatalf("CreateTable: %v", err)
	}

	t.Cleanup(func() {
		_, _ = e.db.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String(name)})
	})

	return name
}

// skipWithoutMultiKeys skips on a reference engine that refused a
// multi-attribute key schema.
func skipWithoutMultiKeys(t *testing.T, e engineUnderTest, err error) {
	t.Helper()

	var api smithy.APIError
	if e.ref && errors.As(err, &api) && api.ErrorCode() == "ValidationException" {
		t.Skipf("the reference refuses multi-attribute GSI keys (DynamoDB Local 1.25.1 lacks them; 3.3.0 has them): %s", api.ErrorMessage())
	}
}

type match struct{ id, tournament, region, round, bracket, player, date string }

var matches = []match{
	{"match-001", "WINTER2024", "NA-EAST", "SEMIFINALS", "UPPER", "101", "2024-01-18"},
	{"match-002", "WINTER2024", "NA-EAST", "SEMIFINALS", "UPPER", "103", "2024-01-18"},
	{"match-003", "WINTER2024", "NA-EAST", "SEMIFINALS", "LOWER", "101", "2024-01-19"},
	{"match-004", "WINTER2024", "NA-EAST", "FINALS", "CHAMPIONSHIP", "101", "2024-01-20"},
	{"match-005", "WINTER2024", "NA-WEST", "SEMIFINALS", "UPPER", "102", "2024-01-18"},
	{"match-006", "SPRING2024", "NA-EAST", "SEMIFINALS", "UPPER", "101", "2024-03-15"},
	// Prefixes of other values: never a match for theirs.
	{"match-007", "WINTER2024", "NA-EAST", "SEMI", "UPPER", "1010", "2024-02-01"},
}

func putMatches(t *testing.T, e engineUnderTest, table string) {
	t.Helper()

	for _, m := range matches {
		_, err := e.db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: values(
			"matchId", str(m.id), "tournamentId", str(m.tournament), "region", str(m.region), "round", str(m.round),
			"bracket", str(m.bracket), "player1Id", str(m.player), "matchDate", str(m.date))})
		mustOK(t, err)
	}
}

// queryIDs runs a Query and returns the matchIds it read, in order, across
// pages of two.
func queryIDs(t *testing.T, e engineUnderTest, in *dynamodb.QueryInput) []string {
	t.Helper()

	in.Limit = aws.Int32(2)

	var ids []string

	for {
		out, err := e.db.Query(ctx, in)
		mustOK(t, err)

		for _, it := range out.Items {
			ids = append(ids, sOf(t, it["matchId"]))
		}

		if out.LastEvaluatedKey == nil {
			return ids
		}

		in.ExclusiveStartKey = out.LastEvaluatedKey
	}
}

func TestMultiAttributeKeysAreDescribed(t *testing.T) {
	each(t, func(t *testing.T, e engineUnderTest) {
		table := tournamentTable(t, e)

		out, err := e.db.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(table)})
		mustOK(t, err)

		got := map[string][]string{}
		for _, g := range out.Table.GlobalSecondaryIndexes {
			for _, k := range g.KeySchema {
				got[aws.ToString(g.IndexName)] = append(got[aws.ToString(g.IndexName)], aws.ToString(k.AttributeName)+":"+string(k.KeyType))
			}
		}

		want := map[string][]string{
			"TournamentRegionIndex":   {"tournamentId:HASH", "region:HASH", "round:RANGE", "bracket:RANGE", "matchId:RANGE"},
			"PlayerMatchHistoryIndex": {"player1Id:HASH", "matchDate:RANGE", "round:RANGE"},
		}
		for name, ks := range want {
			if !slices.Equal(got[name], ks) {
				t.Errorf("%s: KeySchema %v, want %v", name, got[name], ks)
			}
		}

		if len(out.Table.AttributeDefinitions) != 7 {
			t.Errorf("AttributeDefinitions: %v", out.Table.AttributeDefinitions)
		}
	})
}

func TestMultiAttributeKeyQueries(t *testing.T) {
	each(t, func(t *testing.T, e engineUnderTest) {
		table := tournamentTable(t, e)
		putMatches(t, e, table)

		v := func(kv ...string) map[string]types.AttributeValue {
			out := map[string]types.AttributeValue{}
			for i := 0; i < len(kv); i += 2 {
				out[kv[i]] = str(kv[i+1])
			}

			return out
		}

		cases := []struct {
			name, index, cond string
			vals              map[string]types.AttributeValue
			backward          bool
			want              []string
		}{
			{"all WINTER2024 matches in NA-EAST, by round, bracket, matchId", "TournamentRegionIndex",
				"tournamentId = :t AND #region = :r", v(":t", "WINTER2024", ":r", "NA-EAST"), false,
				[]string{"match-004", "match-007", "match-003", "match-001", "match-002"}},
			{"the SEMIFINALS of the UPPER bracket", "TournamentRegionIndex",
				"tournamentId = :t AND #region = :r AND round = :round AND bracket = :b",
				v(":t", "WINTER2024", ":r", "NA-EAST", ":round", "SEMIFINALS", ":b", "UPPER"), false,
				[]string{"match-001", "match-002"}},
			{"conditions in any order in the text", "TournamentRegionIndex",
				"bracket = :b AND round = :round AND #region = :r AND tournamentId = :t",
				v(":t", "WINTER2024", ":r", "NA-EAST", ":round", "SEMIFINALS", ":b", "UPPER"), true,
				[]string{"match-002", "match-001"}},
			{"a range on the last sort attribute used", "TournamentRegionIndex",
				"tournamentId = :t AND #region = :r AND round = :round AND bracket > :b",
				v(":t", "WINTER2024", ":r", "NA-EAST", ":round", "SEMIFINALS", ":b", "LOWER"), false,
				[]string{"match-001", "match-002"}},
			{"begins_with on the first sort attribute", "TournamentRegionIndex",
				"tournamentId = :t AND #region = :r AND begins_with(round, :p)",
				v(":t", "WINTER2024", ":r", "NA-EAST", ":p", "SEMI"), false,
				[]string{"match-007", "match-003", "match-001", "match-002"}},
			{"player 101's matches", "PlayerMatchHistoryIndex",
				"player1Id = :p", v(":p", "101"), false,
				[]string{"match-001", "match-003", "match-004", "match-006"}},
			{"player 101's matches in January 2024", "PlayerMatchHistoryIndex",
				"player1Id = :p AND matchDate BETWEEN :from AND :to", v(":p", "101", ":from", "2024-01-01", ":to", "2024-01-31"), true,
				[]string{"match-004", "match-003", "match-001"}},
		}

		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				in := &dynamodb.QueryInput{TableName: aws.String(table), IndexName: aws.String(c.index),
					KeyConditionExpression: aws.String(c.cond), ExpressionAttributeValues: c.vals,
					ScanIndexForward: aws.Bool(!c.backward)}
				if c.index == "TournamentRegionIndex" {
					in.ExpressionAttributeNames = map[string]string{"#region": "region"}
				}

				if got := queryIDs(t, e, in); !slices.Equal(got, c.want) {
					t.Fatalf("got %v, want %v", got, c.want)
				}
			})
		}
	})
}

func TestMultiAttributeKeyConditionsRefused(t *testing.T) {
	each(t, func(t *testing.T, e engineUnderTest) {
		table := tournamentTable(t, e)

		cases := []struct {
			name, cond, filter string
			vals               map[string]types.AttributeValue
			want               []string
		}{
			{"a partition attribute missing", "tournamentId = :t", "", values(":t", str("W")),
				[]string{"region", "HASH", "equality"}},
			{"a range on a partition attribute", "tournamentId = :t AND #region > :r", "", values(":t", str("W"), ":r", str("N")),
				[]string{"HASH key attribute region", "equality"}},
			{"begins_with on a partition attribute", "tournamentId = :t AND begins_with(#region, :r)", "", values(":t", str("W"), ":r", str("N")),
				[]string{"HASH", "equality"}},
			{"a sort attribute skipped", "tournamentId = :t AND #region = :r AND bracket = :b", "",
				values(":t", str("W"), ":r", str("N"), ":b", str("U")),
				[]string{"RANGE key attributes round must have equality conditions", "bracket"}},
			{"a gap between sort attributes", "tournamentId = :t AND #region = :r AND round = :x AND matchId = :m", "",
				values(":t", str("W"), ":r", str("N"), ":x", str("S"), ":m", str("m")),
				[]string{"RANGE key attributes bracket", "equality", "matchId"}},
			{"a range before an equality", "tournamentId = :t AND #region = :r AND round > :x AND bracket = :b", "",
				values(":t", str("W"), ":r", str("N"), ":x", str("S"), ":b", str("U")),
				[]string{"RANGE key attributes round", "equality", "bracket"}},
			{"two ranges", "tournamentId = :t AND #region = :r AND round > :x AND bracket < :b", "",
				values(":t", str("W"), ":r", str("N"), ":x", str("S"), ":b", str("U")),
				[]string{"RANGE", "equality"}},
			{"a value of another type", "tournamentId = :t AND #region = :r", "",
				values(":t", str("W"), ":r", num("1")), []string{"Condition parameter type does not match schema type"}},
			{"a filter on a key attribute", "tournamentId = :t AND #region = :r", "bracket = :b",
				values(":t", str("W"), ":r", str("N"), ":b", str("U")),
				[]string{"Filter Expression can only contain non-primary key attributes", "bracket"}},
		}

		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				in := &dynamodb.QueryInput{TableName: aws.String(table), IndexName: aws.String("TournamentRegionIndex"),
					KeyConditionExpression: aws.String(c.cond), ExpressionAttributeValues: c.vals}
				if c.filter != "" {
					in.FilterExpression = aws.String(c.filter)
				}

				if strings.Contains(c.cond, "#region") {
					in.ExpressionAttributeNames = map[string]string{"#region": "region"}
				}

				_, err := e.db.Query(ctx, in)
				wantAPIError(t, err, "ValidationException", c.want...)
			})
		}
	})
}

func TestItemsMissingAKeyAttributeAreNotIndexed(t *testing.T) {
	each(t, func(t *testing.T, e engineUnderTest) {
		table := tournamentTable(t, e)
		putMatches(t, e, table)

		byPlayer := func() []string {
			return queryIDs(t, e, &dynamodb.QueryInput{TableName: aws.String(table), IndexName: aws.String("PlayerMatchHistoryIndex"),
				KeyConditionExpression: aws.String("player1Id = :p"), ExpressionAttributeValues: values(":p", str("101"))})
		}

		// Removing one sort attribute (round) takes match-003 out of both
		// indexes; setting it back puts it back.
		_, err := e.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(table),
			Key: values("matchId", str("match-003")), UpdateExpression: aws.String("REMOVE round")})
		mustOK(t, err)

		if got := byPlayer(); !slices.Equal(got, []string{"match-001", "match-004", "match-006"}) {
			t.Fatalf("after REMOVE round: %v", got)
		}

		scan, err := e.db.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String(table), IndexName: aws.String("TournamentRegionIndex")})
		mustOK(t, err)

		if scan.Count != int32(len(matches)-1) {
			t.Fatalf("TournamentRegionIndex holds %d items, want %d", scan.Count, len(matches)-1)
		}

		_, err = e.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(table),
			Key: values("matchId", str("match-003")), UpdateExpression: aws.String("SET round = :r"),
			ExpressionAttributeValues: values(":r", str("SEMIFINALS"))})
		mustOK(t, err)

		if got := byPlayer(); !slices.Equal(got, []string{"match-001", "match-003", "match-004", "match-006"}) {
			t.Fatalf("after SET round: %v", got)
		}

		// A key attribute of another type, or empty, is refused.
		_, err = e.db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table),
			Item: values("matchId", str("x"), "tournamentId", str("W"), "region", num("1"))})
		wantAPIError(t, err, "ValidationException", "Type mismatch")

		_, err = e.db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table),
			Item: values("matchId", str("x"), "tournamentId", str("W"), "region", str(""))})
		wantAPIError(t, err, "ValidationException", "empty")
	})
}

func TestMultiAttributeKeyPages(t *testing.T) {
	each(t, func(t *testing.T, e engineUnderTest) {
		table := tournamentTable(t, e)
		putMatches(t, e, table)

		in := &dynamodb.QueryInput{TableName: aws.String(table), IndexName: aws.String("PlayerMatchHistoryIndex"),
			KeyConditionExpression: aws.String("player1Id = :p"), ExpressionAttributeValues: values(":p", str("101")), Limit: aws.Int32(1)}

		out, err := e.db.Query(ctx, in)
		mustOK(t, err)

		var names []string
		for k := range out.LastEvaluatedKey {
			names = append(names, k)
		}

		slices.Sort(names)

		if !slices.Equal(names, []string{"matchDate", "matchId", "player1Id", "round"}) {
			t.Fatalf("LastEvaluatedKey holds %v", names)
		}

		// A start key without one of the index's key attributes is refused.
		start := out.LastEvaluatedKey
		delete(start, "round")
		in.ExclusiveStartKey = start

		_, err = e.db.Query(ctx, in)
		wantAPIError(t, err, "ValidationException", "key")
	})
}

func TestMultiAttributeIndexCreatedByUpdateTableIsBackfilled(t *testing.T) {
	each(t, func(t *testing.T, e engineUnderTest) {
		table := makeTable(t, e.db, schema{})

		for _, it := range []map[string]types.AttributeValue{
			values("p", str("a"), "tenant", str("t1"), "status", str("open"), "due", num("20")),
			values("p", str("b"), "tenant", str("t1"), "status", str("open"), "due", num("3")),
			values("p", str("c"), "tenant", str("t1"), "status", str("done"), "due", num("1")),
			values("p", str("d"), "tenant", str("t1"), "status", str("open")),
		} {
			_, err := e.db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: it})
			mustOK(t, err)
		}

		_, err := e.db.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String(table),
			AttributeDefinitions: []types.AttributeDefinition{attr("tenant", "S"), attr("status", "S"), attr("due", "N")},
			GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{{Create: &types.CreateGlobalSecondaryIndexAction{
				IndexName: aws.String("byStatus"), Projection: &types.Projection{ProjectionType: types.ProjectionTypeKeysOnly},
				KeySchema: []types.KeySchemaElement{
					{AttributeName: aws.String("tenant"), KeyType: types.KeyTypeHash}, {AttributeName: aws.String("status"), KeyType: types.KeyTypeHash},
					{AttributeName: aws.String("due"), KeyType: types.KeyTypeRange}}}}}})
		if err != nil {
			skipWithoutMultiKeys(t, e, err)
			t.Fatal(err)
		}

		out, err := e.db.Query(ctx, &dynamodb.QueryInput{TableName: aws.String(table), IndexName: aws.String("byStatus"),
			KeyConditionExpression: aws.String("tenant = :t AND #s = :s"), ExpressionAttributeNames: map[string]string{"#s": "status"},
			ExpressionAttributeValues: values(":t", str("t1"), ":s", str("open"))})
		mustOK(t, err)

		var got []string
		for _, it := range out.Items {
			got = append(got, sOf(t, it["p"])+"/"+nOf(t, it["due"]))
		}

		// Numbers sort as numbers (3 before 20); d has no due and is not
		// indexed.
		if !slices.Equal(got, []string{"b/3", "a/20"}) {
			t.Fatalf("got %v", got)
		}
	})
}

func TestLegacyKeyConditionsOnAMultiAttributeKey(t *testing.T) {
	each(t, func(t *testing.T, e engineUnderTest) {
		table := tournamentTable(t, e)
		putMatches(t, e, table)

		eq := func(v string) types.Condition {
			return types.Condition{ComparisonOperator: types.ComparisonOperatorEq, AttributeValueList: []types.AttributeValue{str(v)}}
		}

		out, err := e.db.Query(ctx, &dynamodb.QueryInput{TableName: aws.String(table), IndexName: aws.String("TournamentRegionIndex"),
			KeyConditions: map[string]types.Condition{"tournamentId": eq("WINTER2024"), "region": eq("NA-EAST"), "round": eq("SEMIFINALS"),
				"bracket": {ComparisonOperator: types.ComparisonOperatorGt, AttributeValueList: []types.AttributeValue{str("LOWER")}}}})
		mustOK(t, err)

		if out.Count != 2 {
			t.Fatalf("KeyConditions read %d items, want 2", out.Count)
		}

		_, err = e.db.Query(ctx, &dynamodb.QueryInput{TableName: aws.String(table), IndexName: aws.String("TournamentRegionIndex"),
			KeyConditions: map[string]types.Condition{"tournamentId": eq("WINTER2024"), "region": eq("NA-EAST"), "bracket": eq("UPPER")}})
		wantAPIError(t, err, "ValidationException", "round")
	})
}

func TestMultiAttributeIndexOutlivesARestart(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")

	s, err := Serve(Options{DataDir: dir})
	mustOK(t, err)

	e := engineUnderTest{name: "memory", db: clientFor(s, "k")}
	table := tournamentTable(t, e)
	putMatches(t, e, table)
	mustOK(t, s.Close())

	s2 := serveFor(t, Options{DataDir: dir})
	e2 := engineUnderTest{name: "memory", db: clientFor(s2, "k")}

	got := queryIDs(t, e2, &dynamodb.QueryInput{TableName: aws.String(table), IndexName: aws.String("PlayerMatchHistoryIndex"),
		KeyConditionExpression: aws.String("player1Id = :p AND begins_with(matchDate, :m)"), ExpressionAttributeValues: values(":p", str("101"), ":m", str("2024-01"))})
	if !slices.Equal(got, []string{"match-001", "match-003", "match-004"}) {
		t.Fatalf("after a restart: %v", got)
	}
}

// A GSI whose sort attributes end with the table's own keys (p, c, both
// or neither) is described with its complete key schema, in the order
// given (AWS's GlobalSecondaryIndexDescription.KeySchema: "The complete
// key schema for a global secondary index"), and sorts by every one.
// (ScyllaDB's test_gsi_composite_base_pk_ck_as_range at f4a4091ca28e
// expects the schema without a3, a typo its author corrected in
// scylladb/scylladb#30768: docs/engines.md.)
func TestBaseKeysAsMultiAttributeSortKeys(t *testing.T) {
	el := func(name string, typ types.KeyType) types.KeySchemaElement {
		return types.KeySchemaElement{AttributeName: aws.String(name), KeyType: typ}
	}

	for name, base := range map[string][]string{"both": {"p", "c"}, "hash_only": {"p"}, "range_only": {"c"}, "none": nil} {
		t.Run(name, func(t *testing.T) {
			each(t, func(t *testing.T, e engineUnderTest) {
				ks := []types.KeySchemaElement{el("a1", types.KeyTypeHash), el("a2", types.KeyTypeRange), el("a3", types.KeyTypeRange)}
				for _, b := range base {
					ks = append(ks, el(b, types.KeyTypeRange))
				}

				table := uniqueName(t)
				_, err := e.db.CreateTable(ctx, &dynamodb.CreateTableInput{
					TableName: aws.String(table), BillingMode: types.BillingModePayPerRequest,
					AttributeDefinitions: []types.AttributeDefinition{attr("p", "S"), attr("c", "S"), attr("a1", "S"), attr("a2", "S"), attr("a3", "S")},
					KeySchema:            []types.KeySchemaElement{el("p", types.KeyTypeHash), el("c", types.KeyTypeRange)},
					GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{{IndexName: aws.String("gsi"), KeySchema: ks,
						Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll}}},
				})
				if err != nil {
					skipWithoutMultiKeys(t, e, err)
					t.Fatalf("CreateTable: %v", err)
				}

				t.Cleanup(func() { _, _ = e.db.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String(table)}) })

				out, err := e.db.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(table)})
				mustOK(t, err)

				var got, want []string
				for _, k := range out.Table.GlobalSecondaryIndexes[0].KeySchema {
					got = append(got, aws.ToString(k.AttributeName)+":"+string(k.KeyType))
				}

				for _, k := range ks {
					want = append(want, aws.ToString(k.AttributeName)+":"+string(k.KeyType))
				}

				if !slices.Equal(got, want) {
					t.Fatalf("KeySchema %v, want %v", got, want)
				}

				// Equal a2 and a3: the base keys order the rest.
				for _, pc := range [][2]string{{"p2", "c1"}, {"p1", "c2"}, {"p1", "c1"}} {
					_, err := e.db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: values(
						"p", str(pc[0]), "c", str(pc[1]), "a1", str("A"), "a2", str("x"), "a3", str("y"))})
					mustOK(t, err)
				}

				q, err := e.db.Query(ctx, &dynamodb.QueryInput{TableName: aws.String(table), IndexName: aws.String("gsi"),
					KeyConditionExpression: aws.String("a1 = :a"), ExpressionAttributeValues: values(":a", str("A"))})
				mustOK(t, err)

				var order []string
				for _, it := range q.Items {
					order = append(order, sOf(t, it["p"])+sOf(t, it["c"]))
				}

				if name == "both" && !slices.Equal(order, []string{"p1c1", "p1c2", "p2c1"}) || len(order) != 3 {
					t.Fatalf("the index's order: %v", order)
				}
			})
		})
	}
}

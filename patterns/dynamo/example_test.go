package dynamo_test

import (
	"fmt"
	"sort"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/keyplan/keyplan/patterns"
	"github.com/keyplan/keyplan/patterns/dynamo"
	"github.com/keyplan/keyplan/patterns/model"
)

// design plans the leaderboard example, its GSIs keyed as keys says
// (patterns.IndexKeysAuto: natively); a real program would load its own
// model once at start.
func design(keys model.IndexKeys) *patterns.Design {
	m, err := model.Load("../../examples/leaderboard.yaml")
	if err != nil {
		panic(err)
	}
	d, err := patterns.PlanWith(m, patterns.Options{IndexKeys: keys})
	if err != nil {
		panic(err)
	}
	return d
}

func printItem(item map[string]types.AttributeValue) {
	names := make([]string, 0, len(item))
	for k := range item {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		switch v := item[k].(type) {
		case *types.AttributeValueMemberS:
			fmt.Printf("%s = %q\n", k, v.Value)
		case *types.AttributeValueMemberN:
			fmt.Printf("%s = %s\n", k, v.Value)
		}
	}
}

// Item builds an entity's whole item: its attributes and the base
// table's keys. Its GSIs are keyed natively on its own attributes (handle;
// season, rating), so the item carries no key attribute for them.
func ExampleTable_Item() {
	tbl := dynamo.New(design(model.IndexKeysAuto), nil, "Leaderboard")
	item, err := tbl.Item("Player", dynamo.Values{
		"playerId": "p1", "handle": "nighthawk", "region": "eu", "season": "2026-Q2",
		"rating": 1500, "createdAt": "2026-01-02T10:00:00+01:00",
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	printItem(item)
	// Output:
	// PK = "PLAYER#p1"
	// SK = "PLAYER"
	// createdAt = "2026-01-02T09:00:00.000Z"
	// handle = "nighthawk"
	// playerId = "p1"
	// rating = 1500
	// region = "eu"
	// season = "2026-Q2"
}

// With synthetic GSI keys (indexKeys: synthetic) the item carries exactly
// the GSI keys the design gives it, with numbers padded and times in
// fixed-width UTC so that keys sort by value.
func ExampleTable_Item_synthetic() {
	tbl := dynamo.New(design(model.IndexKeysSynthetic), nil, "Leaderboard")
	item, err := tbl.Item("Player", dynamo.Values{
		"playerId": "p1", "handle": "nighthawk", "region": "eu", "season": "2026-Q2",
		"rating": 1500, "createdAt": "2026-01-02T10:00:00+01:00",
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	printItem(item)
	// Output:
	// GSI1PK = "PLAYER#HANDLE#nighthawk"
	// GSI1SK = "PLAYER#p1"
	// GSI2PK = "PLAYER#SEASON#2026-Q2"
	// GSI2SK = "PLAYER#01500#p1"
	// PK = "PLAYER#p1"
	// SK = "PLAYER"
	// createdAt = "2026-01-02T09:00:00.000Z"
	// handle = "nighthawk"
	// playerId = "p1"
	// rating = 1500
	// region = "eu"
	// season = "2026-Q2"
}

// QueryInput builds the one Query a pattern is served by; no request is
// made, so tests can compare it with the SDK input they expect. On a
// native index: every partition attribute by equality, and the range on
// the sort attribute compared as a number.
func ExampleTable_QueryInput() {
	tbl := dynamo.New(design(model.IndexKeysAuto), nil, "Leaderboard")
	in, err := tbl.QueryInput("SeasonLeaderboard", dynamo.Request{
		Params: dynamo.Params{"season": "2026-Q2"},
		Range:  &dynamo.Range{Op: dynamo.Ge, Value: 1500},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(aws.ToString(in.IndexName), aws.ToString(in.KeyConditionExpression))
	fmt.Println(in.ExpressionAttributeNames["#0"], in.ExpressionAttributeNames["#1"])
	fmt.Println(":0", in.ExpressionAttributeValues[":0"].(*types.AttributeValueMemberS).Value)
	fmt.Println(":1", in.ExpressionAttributeValues[":1"].(*types.AttributeValueMemberN).Value)
	fmt.Println("ScanIndexForward:", aws.ToBool(in.ScanIndexForward), "Limit:", aws.ToInt32(in.Limit))
	// Output:
	// GSI2 (#0 = :0) AND (#1 >= :1)
	// season rating
	// :0 2026-Q2
	// :1 1500
	// ScanIndexForward: false Limit: 100
}

// On a synthetic index the range on the sort attribute is kept inside the
// entity's key range, on its padded encoding.
func ExampleTable_QueryInput_synthetic() {
	tbl := dynamo.New(design(model.IndexKeysSynthetic), nil, "Leaderboard")
	in, err := tbl.QueryInput("SeasonLeaderboard", dynamo.Request{
		Params: dynamo.Params{"season": "2026-Q2"},
		Range:  &dynamo.Range{Op: dynamo.Ge, Value: 1500},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(aws.ToString(in.IndexName), aws.ToString(in.KeyConditionExpression))
	for _, k := range []string{":0", ":1", ":2"} {
		fmt.Println(k, in.ExpressionAttributeValues[k].(*types.AttributeValueMemberS).Value)
	}
	fmt.Println("ScanIndexForward:", aws.ToBool(in.ScanIndexForward), "Limit:", aws.ToInt32(in.Limit))
	// Output:
	// GSI2 (#0 = :0) AND (#1 BETWEEN :1 AND :2)
	// :0 PLAYER#SEASON#2026-Q2
	// :1 PLAYER#01500
	// :2 PLAYER$
	// ScanIndexForward: false Limit: 100
}

// Decode tells which entity a raw item is and reads its values back,
// including those only its keys hold.
func ExampleTable_Decode() {
	tbl := dynamo.New(design(model.IndexKeysAuto), nil, "Leaderboard")
	entity, v, err := tbl.Decode(map[string]types.AttributeValue{
		"PK": &types.AttributeValueMemberS{Value: "PLAYER#p1"},
		"SK": &types.AttributeValueMemberS{Value: "MATCH#2026-06-23T14:00:00.000Z"},
	})
	fmt.Println(entity, v["playerId"], v["playedAt"], err)
	// Output:
	// Match p1 2026-06-23 14:00:00 +0000 UTC <nil>
}

package dynamo_test

import (
	"fmt"
	"sort"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/keyplan/keyplan/patterns"
	"github.com/keyplan/keyplan/patterns/dynamo"
)

// design plans the leaderboard example; a real program would load its own
// model once at start.
func design() *patterns.Design {
	m, err := patterns.Load("../../examples/leaderboard.yaml")
	if err != nil {
		panic(err)
	}
	d, err := patterns.Plan(m)
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

// Item builds an entity's whole item: its attributes, the base table's
// keys and exactly the GSI keys the design gives it, with numbers padded
// and times in fixed-width UTC so that keys sort by value.
func ExampleTable_Item() {
	tbl := dynamo.New(design(), nil, "Leaderboard")
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

// QueryInput builds the one Query a pattern is served by, here a range
// on the sort attribute kept inside the entity's key range; no request is
// made, so tests can compare it with the SDK input they expect.
func ExampleTable_QueryInput() {
	tbl := dynamo.New(design(), nil, "Leaderboard")
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
	tbl := dynamo.New(design(), nil, "Leaderboard")
	entity, v, err := tbl.Decode(map[string]types.AttributeValue{
		"PK": &types.AttributeValueMemberS{Value: "PLAYER#p1"},
		"SK": &types.AttributeValueMemberS{Value: "MATCH#2026-06-23T14:00:00.000Z"},
	})
	fmt.Println(entity, v["playerId"], v["playedAt"], err)
	// Output:
	// Match p1 2026-06-23 14:00:00 +0000 UTC <nil>
}

package dynamo

import (
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// The runtime next to the same item and query written by hand: the
// baseline a team would otherwise maintain.

func BenchmarkItem(b *testing.B) {
	tbl := load(b, "../../examples/leaderboard.yaml")
	b.ReportAllocs()
	for b.Loop() {
		if _, err := tbl.Item("Player", player); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkItemByHand(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		created, err := time.Parse(time.RFC3339, "2025-01-02T10:00:00+01:00")
		if err != nil {
			b.Fatal(err)
		}
		rating := 9
		_ = map[string]types.AttributeValue{
			"PK":        &types.AttributeValueMemberS{Value: fmt.Sprintf("PLAYER#%s", "p1")},
			"SK":        &types.AttributeValueMemberS{Value: "PLAYER"},
			"GSI1PK":    &types.AttributeValueMemberS{Value: fmt.Sprintf("PLAYER#SEASON#%s", "2026-Q2")},
			"GSI1SK":    &types.AttributeValueMemberS{Value: fmt.Sprintf("PLAYER#%05d#%s", rating, "p1")},
			"GSI2PK":    &types.AttributeValueMemberS{Value: fmt.Sprintf("PLAYER#HANDLE#%s", "night hawk")},
			"GSI2SK":    &types.AttributeValueMemberS{Value: fmt.Sprintf("PLAYER#%s", "p1")},
			"playerId":  &types.AttributeValueMemberS{Value: "p1"},
			"handle":    &types.AttributeValueMemberS{Value: "night hawk"},
			"region":    &types.AttributeValueMemberS{Value: "eu"},
			"season":    &types.AttributeValueMemberS{Value: "2026-Q2"},
			"rating":    &types.AttributeValueMemberN{Value: strconv.Itoa(rating)},
			"createdAt": &types.AttributeValueMemberS{Value: created.UTC().Format("2006-01-02T15:04:05.000Z")},
		}
	}
}

func BenchmarkQueryInput(b *testing.B) {
	tbl := load(b, "../../examples/leaderboard.yaml")
	r := Request{Params: Params{"season": "2026-Q2"}, Range: &Range{Op: ">=", Value: 1000}}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := tbl.QueryInput("SeasonLeaderboard", r); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkQueryInputByHand(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		cond := expression.Key("GSI1PK").Equal(expression.Value(fmt.Sprintf("PLAYER#SEASON#%s", "2026-Q2"))).
			And(expression.Key("GSI1SK").Between(expression.Value(fmt.Sprintf("PLAYER#%05d", 1000)), expression.Value("PLAYER$")))
		proj := expression.NamesList(expression.Name("PK"), expression.Name("SK"), expression.Name("GSI1PK"), expression.Name("GSI1SK"), expression.Name("handle"), expression.Name("rating"))
		expr, err := expression.NewBuilder().WithKeyCondition(cond).WithProjection(proj).Build()
		if err != nil {
			b.Fatal(err)
		}
		_ = &dynamodb.QueryInput{
			TableName: aws.String("Tbl"), IndexName: aws.String("GSI1"),
			KeyConditionExpression: expr.KeyCondition(), ExpressionAttributeNames: expr.Names(), ExpressionAttributeValues: expr.Values(),
			ProjectionExpression: expr.Projection(), ScanIndexForward: aws.Bool(false), Limit: aws.Int32(100),
		}
	}
}

package dynamo

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"
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

// keyEscaper is what careful hand-written code must do to a string it puts
// between '#' separators so that prefixes stay exact (the same item as the
// runtime's: TestHandBuiltItemIsTheSame).
var keyEscaper = strings.NewReplacer("%", "%25", "#", "%23", " ", "%20")

func itemByHand(playerID, handle, region, season string, rating int, createdAt string) (map[string]types.AttributeValue, error) {
	created, err := time.Parse(time.RFC3339, createdAt)
	if err != nil {
		return nil, err
	}
	if rating < 0 || rating > 99999 {
		return nil, fmt.Errorf("rating %d out of range", rating)
	}
	id, h := keyEscaper.Replace(playerID), keyEscaper.Replace(handle)
	return map[string]types.AttributeValue{
		"PK":        &types.AttributeValueMemberS{Value: "PLAYER#" + id},
		"SK":        &types.AttributeValueMemberS{Value: "PLAYER"},
		"GSI2PK":    &types.AttributeValueMemberS{Value: "PLAYER#SEASON#" + keyEscaper.Replace(season)},
		"GSI2SK":    &types.AttributeValueMemberS{Value: fmt.Sprintf("PLAYER#%05d#%s", rating, id)},
		"GSI1PK":    &types.AttributeValueMemberS{Value: "PLAYER#HANDLE#" + h},
		"GSI1SK":    &types.AttributeValueMemberS{Value: "PLAYER#" + id},
		"playerId":  &types.AttributeValueMemberS{Value: playerID},
		"handle":    &types.AttributeValueMemberS{Value: handle},
		"region":    &types.AttributeValueMemberS{Value: region},
		"season":    &types.AttributeValueMemberS{Value: season},
		"rating":    &types.AttributeValueMemberN{Value: strconv.Itoa(rating)},
		"createdAt": &types.AttributeValueMemberS{Value: created.UTC().Format("2006-01-02T15:04:05.000Z")},
	}, nil
}

// The baseline builds the very item the runtime builds.
func TestHandBuiltItemIsTheSame(t *testing.T) {
	tbl := load(t, "../../examples/leaderboard.yaml")
	got, err := tbl.Item("Player", player)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := itemByHand("p1", "night hawk", "eu", "2026-Q2", 9, "2025-01-02T10:00:00+01:00")
	if !reflect.DeepEqual(got, want) {
		t.Errorf("runtime %v\nby hand %v", got, want)
	}
}

func BenchmarkItemByHand(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := itemByHand("p1", "night hawk", "eu", "2026-Q2", 9, "2025-01-02T10:00:00+01:00"); err != nil {
			b.Fatal(err)
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
		cond := expression.Key("GSI2PK").Equal(expression.Value(fmt.Sprintf("PLAYER#SEASON#%s", "2026-Q2"))).
			And(expression.Key("GSI2SK").Between(expression.Value(fmt.Sprintf("PLAYER#%05d", 1000)), expression.Value("PLAYER$")))
		proj := expression.NamesList(expression.Name("PK"), expression.Name("SK"), expression.Name("GSI2PK"), expression.Name("GSI2SK"), expression.Name("handle"))
		expr, err := expression.NewBuilder().WithKeyCondition(cond).WithProjection(proj).Build()
		if err != nil {
			b.Fatal(err)
		}
		_ = &dynamodb.QueryInput{
			TableName: aws.String("Tbl"), IndexName: aws.String("GSI2"),
			KeyConditionExpression: expr.KeyCondition(), ExpressionAttributeNames: expr.Names(), ExpressionAttributeValues: expr.Values(),
			ProjectionExpression: expr.Projection(), ScanIndexForward: aws.Bool(false), Limit: aws.Int32(100),
		}
	}
}

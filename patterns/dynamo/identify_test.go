package dynamo

import (
	"errors"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/keyplan/keyplan/internal/testkit/enginepass"
	"github.com/keyplan/keyplan/internal/testkit/keyplantest"
)

// An item whose attributes do not decode as the model says (NULL, another
// type, another format) is still identified by its keys, and the
// attributes asked for decode alone: Decode refuses the item, Identify and
// DecodeAttrs read what they are asked. Keys of no entity are
// ErrNotKeyplan.
func TestIdentifyReadsTheKeysAlone(t *testing.T) {
	enginepass.Independent(t)
	d := keyplantest.Design(t, "../../examples/leaderboard.yaml")
	tbl := New(d, nil, "Leaderboard")
	item, err := tbl.Item("Match", Values{"playerId": "p1", "playedAt": "2026-06-01T10:00:00Z", "result": "win", "ratingDelta": 5, "mapId": "dust", "expiresAt": 1900000000})
	if err != nil {
		t.Fatal(err)
	}
	item["mapId"] = &types.AttributeValueMemberNULL{Value: true}
	item["playedAt"] = &types.AttributeValueMemberS{Value: "June 1st"} // the key holds it as keyplan writes it
	if _, _, err := tbl.Decode(item); err == nil {
		t.Fatal("Decode read an item whose attributes do not decode")
	}
	entity, v, err := tbl.Identify(item)
	if err != nil || entity != "Match" || v["playerId"] != "p1" || v["playedAt"] == nil || len(v) != 2 {
		t.Fatalf("Identify: %s %v %v; want Match and its keys' values", entity, v, err)
	}
	if err := tbl.DecodeAttrs("Match", item, v, "result", "expiresAt"); err != nil || v["result"] != "win" || v["expiresAt"] != int64(1900000000) {
		t.Errorf("DecodeAttrs of the good attributes: %v %v", v, err)
	}
	if err := tbl.DecodeAttrs("Match", item, v, "playedAt"); err == nil || !strings.Contains(err.Error(), "June 1st") {
		t.Errorf("DecodeAttrs of a time in another format: %v, want it named", err)
	}
	if _, ok := v["mapId"]; ok {
		t.Error("DecodeAttrs read an attribute not asked for")
	}
	foreign := map[string]types.AttributeValue{"PK": &types.AttributeValueMemberS{Value: "TEAM#1"}, "SK": &types.AttributeValueMemberS{Value: "MATCH#x"}}
	if _, _, err := tbl.Identify(foreign); !errors.Is(err, ErrNotKeyplan) {
		t.Errorf("Identify of an item of no entity: %v", err)
	}
	if err := tbl.DecodeAttrs("Nope", item, Values{}, "x"); err == nil {
		t.Error("DecodeAttrs of an entity the design has not")
	}
}

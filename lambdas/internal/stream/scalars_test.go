package stream

import (
	"testing"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/keyplan/keyplan/internal/testkit/enginepass"
	"github.com/keyplan/keyplan/patterns/model"
)

// A stream record's image holds every scalar type of the core's table as
// its DynamoDB type: each decodes to that type's member, and a key of it
// names the item in a log line.
func TestEveryScalarTypeDecodes(t *testing.T) {
	enginepass.Independent(t)
	for _, s := range model.ScalarTypes() {
		var in events.DynamoDBAttributeValue
		switch s.Dynamo { // the stream's own types, not keyplan's
		case "S":
			in = events.NewStringAttribute("a")
		case "N":
			in = events.NewNumberAttribute("1")
		case "B":
			in = events.NewBinaryAttribute([]byte{0, 0xff})
		case "BOOL":
			in = events.NewBooleanAttribute(true)
		default:
			t.Fatalf("%s: DynamoDB type %q has no stream form here", s.Type, s.Dynamo)
		}
		img, err := Image(map[string]events.DynamoDBAttributeValue{"v": in})
		if err != nil {
			t.Fatalf("%s: %v", s.Type, err)
		}
		var ok bool
		switch img["v"].(type) {
		case *types.AttributeValueMemberS:
			ok = s.Dynamo == "S"
		case *types.AttributeValueMemberN:
			ok = s.Dynamo == "N"
		case *types.AttributeValueMemberB:
			ok = s.Dynamo == "B"
		case *types.AttributeValueMemberBOOL:
			ok = s.Dynamo == "BOOL"
		}
		if !ok {
			t.Errorf("%s: a %s value decodes to %T", s.Type, s.Dynamo, img["v"])
		}
		if s.Dynamo != "BOOL" {
			r := events.DynamoDBEventRecord{Change: events.DynamoDBStreamRecord{Keys: map[string]events.DynamoDBAttributeValue{"v": in}}}
			if got := KeyText(r); got == `v="?"` {
				t.Errorf("%s: a %s key is named %s", s.Type, s.Dynamo, got)
			}
		}
	}
}

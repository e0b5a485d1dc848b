package minidyn

import (
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/keyplan/keyplan/internal/engine/minidyn/server"
)

func updateTTL(db *dynamodb.Client, table, attr string, on bool) error {
	_, err := db.UpdateTimeToLive(ctx, &dynamodb.UpdateTimeToLiveInput{TableName: aws.String(table),
		TimeToLiveSpecification: &types.TimeToLiveSpecification{AttributeName: aws.String(attr), Enabled: aws.Bool(on)}})

	return err
}

func describeTTL(t *testing.T, db *dynamodb.Client, table string) *types.TimeToLiveDescription {
	t.Helper()

	out, err := db.DescribeTimeToLive(ctx, &dynamodb.DescribeTimeToLiveInput{TableName: aws.String(table)})
	mustOK(t, err)

	return out.TimeToLiveDescription
}

// UpdateTimeToLive's states and refusals, as AWS's API reference and the
// Alternator suite (test_ttl.py, written against AWS) describe them.
func TestTimeToLiveStates(t *testing.T) {
	each(t, func(t *testing.T, e engineUnderTest) {
		table := makeTable(t, e.db, schema{})

		if d := describeTTL(t, e.db, table); d.TimeToLiveStatus != types.TimeToLiveStatusDisabled || d.AttributeName != nil {
			t.Fatalf("a new table's TTL: %+v", d)
		}

		wantAPIError(t, updateTTL(e.db, "no_such_table", "exp", true), "ResourceNotFoundException")
		mustOK(t, updateTTL(e.db, table, "exp", true))

		if d := describeTTL(t, e.db, table); d.TimeToLiveStatus != types.TimeToLiveStatusEnabled || aws.ToString(d.AttributeName) != "exp" {
			t.Fatalf("after enabling: %+v", d)
		}

		wantAPIError(t, updateTTL(e.db, table, "exp", true), "ValidationException", "already enabled")
		wantAPIError(t, updateTTL(e.db, table, "other", true), "ValidationException", "active on a different AttributeName")
		wantAPIError(t, updateTTL(e.db, table, "other", false), "ValidationException", "active on a different AttributeName")
	})
}

// A second change within an hour is refused (AWS's UpdateTimeToLive:
// "Any additional UpdateTimeToLive calls for the same table during this
// one hour duration result in a ValidationException"; DynamoDB Local
// 1.25.1 takes it at once); after it, TTL disables.
func TestTimeToLiveChangesOnceAnHour(t *testing.T) {
	s := serveFor(t, Options{SweepEvery: -1})
	c := &clock{now: time.Unix(1_800_000_000, 0)}
	s.SetClock(c.Now)

	db := clientFor(s, "k")
	table := makeTable(t, db, schema{})

	wantAPIError(t, updateTTL(db, table, "exp", false), "ValidationException", "already disabled")
	mustOK(t, updateTTL(db, table, "exp", true))
	wantAPIError(t, updateTTL(db, table, "exp", false), "ValidationException", "multiple times")

	c.Set(c.Now().Add(server.TTLChangeInterval))
	mustOK(t, updateTTL(db, table, "exp", false))

	if d := describeTTL(t, db, table); d.TimeToLiveStatus != types.TimeToLiveStatusDisabled || d.AttributeName != nil {
		t.Fatalf("after disabling: %+v", d)
	}

	// (A missing attribute name or Enabled the SDK refuses itself.)
	for _, name := range []string{"", strings.Repeat("x", 256)} {
		wantAPIError(t, updateTTL(db, table, name, true), "ValidationException", "length")
	}
}

package streamtest

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"
	stypes "github.com/aws/aws-sdk-go-v2/service/dynamodbstreams/types"

	"github.com/keyplan/keyplan/patterns"
)

// The frozen payloads in Lambda's format: the hand-written event modelled
// on AWS's captured sample, and each handler's batch.
var payloads = []string{"../testdata/stream-event.json", "../../../archive/testdata/batch.json",
	"../../../counters/testdata/batch.json", "../../../fanout/testdata/batch.json"}

// getRecordsBody is a Lambda event's records as GetRecords sends them on
// the wire (DynamoDB Streams API reference): no eventSourceARN (Lambda
// adds it), and userIdentity's members named PrincipalId and Type.
func getRecordsBody(t *testing.T, records []map[string]any) []byte {
	t.Helper()
	var wire []map[string]any
	for _, r := range records {
		w := map[string]any{}
		for k, v := range r {
			switch k {
			case "eventSourceARN":
			case "userIdentity":
				id := v.(map[string]any)
				w[k] = map[string]any{"PrincipalId": id["principalId"], "Type": id["type"]}
			default:
				w[k] = v
			}
		}
		wire = append(wire, w)
	}
	b, err := json.Marshal(map[string]any{"Records": wire, "NextShardIterator": "next"})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Every frozen payload, served as a GetRecords answer and read by the
// dynamodbstreams SDK client (AWS's own decoding of the wire format),
// becomes through LambdaRecord the very JSON Lambda delivered: the same
// fields, names, types and values, record by record; and LambdaEvent
// decodes it as the Go runtime does.
func TestLambdaRecordIsWhatLambdaDelivers(t *testing.T) {
	for _, path := range payloads {
		t.Run(path, func(t *testing.T) {
			raw, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			var frozen struct{ Records []map[string]any }
			if err := json.Unmarshal(raw, &frozen); err != nil || len(frozen.Records) == 0 {
				t.Fatalf("%s: %v", path, err)
			}
			body := getRecordsBody(t, frozen.Records)
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/x-amz-json-1.0")
				w.Write(body)
			}))
			defer srv.Close()
			c := dynamodbstreams.New(dynamodbstreams.Options{Region: "us-east-1", BaseEndpoint: aws.String(srv.URL),
				Credentials: credentials.NewStaticCredentialsProvider("k", "k", "")})
			out, err := c.GetRecords(context.Background(), &dynamodbstreams.GetRecordsInput{ShardIterator: aws.String("it")})
			if err != nil || len(out.Records) != len(frozen.Records) {
				t.Fatalf("GetRecords: %d records, %v", len(out.Records), err)
			}
			var converted []json.RawMessage
			for i, r := range out.Records {
				arn, _ := frozen.Records[i]["eventSourceARN"].(string)
				got, err := LambdaRecord(arn, r)
				if err != nil {
					t.Fatalf("record %d: %v", i, err)
				}
				converted = append(converted, got)
				var g any
				json.Unmarshal(got, &g)
				want, _ := json.Marshal(frozen.Records[i])
				var w any
				json.Unmarshal(want, &w)
				if !reflect.DeepEqual(g, w) {
					t.Errorf("record %d:\n got %s\nwant %s", i, got, want)
				}
			}
			ev, err := LambdaEvent(converted)
			if err != nil || len(ev.Records) != len(frozen.Records) {
				t.Fatalf("LambdaEvent: %v", err)
			}
			var direct events.DynamoDBEvent
			if err := json.Unmarshal(raw, &direct); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(ev, direct) {
				t.Errorf("the event decoded from the converted records differs from the payload's")
			}
		})
	}
}

// Every attribute type, nested, in DynamoDB's JSON, and what a handler
// reads of it.
func TestLambdaRecordTypes(t *testing.T) {
	at := time.Date(2026, 11, 21, 8, 0, 0, 0, time.UTC)
	img := map[string]stypes.AttributeValue{
		"PK": &stypes.AttributeValueMemberS{Value: "A#1"}, "n": &stypes.AttributeValueMemberN{Value: "9007199254740993.25"},
		"b": &stypes.AttributeValueMemberB{Value: []byte{0, 1, 42, 65}}, "t": &stypes.AttributeValueMemberBOOL{Value: true},
		"z":  &stypes.AttributeValueMemberNULL{Value: true},
		"ss": &stypes.AttributeValueMemberSS{Value: []string{"a", "b#%"}}, "ns": &stypes.AttributeValueMemberNS{Value: []string{"1", "-2.5"}},
		"bs": &stypes.AttributeValueMemberBS{Value: [][]byte{{0, 1, 42, 65}, {65, 42, 1, 0}}},
		"l":  &stypes.AttributeValueMemberL{Value: []stypes.AttributeValue{&stypes.AttributeValueMemberS{Value: ""}, &stypes.AttributeValueMemberL{}}},
		"m":  &stypes.AttributeValueMemberM{Value: map[string]stypes.AttributeValue{"e": &stypes.AttributeValueMemberM{}}},
	}
	r := stypes.Record{EventID: aws.String("e1"), EventName: stypes.OperationTypeRemove, EventVersion: aws.String("1.1"),
		EventSource: aws.String("aws:dynamodb"), AwsRegion: aws.String("eu-west-1"),
		UserIdentity: &stypes.Identity{Type: aws.String(patterns.TTLIdentityType), PrincipalId: aws.String(patterns.TTLPrincipal)},
		Dynamodb: &stypes.StreamRecord{ApproximateCreationDateTime: &at, Keys: map[string]stypes.AttributeValue{"PK": img["PK"]},
			OldImage: img, SequenceNumber: aws.String("100"), SizeBytes: aws.Int64(99), StreamViewType: stypes.StreamViewTypeNewAndOldImages}}
	got, err := LambdaRecord("arn:s", r)
	if err != nil {
		t.Fatal(err)
	}
	const want = `{"eventID":"e1","eventName":"REMOVE","eventVersion":"1.1","eventSource":"aws:dynamodb","awsRegion":"eu-west-1",` +
		`"dynamodb":{"ApproximateCreationDateTime":1795248000,"Keys":{"PK":{"S":"A#1"}},"OldImage":{"PK":{"S":"A#1"},"b":{"B":"AAEqQQ=="},` +
		`"bs":{"BS":["AAEqQQ==","QSoBAA=="]},"l":{"L":[{"S":""},{"L":[]}]},"m":{"M":{"e":{"M":{}}}},"n":{"N":"9007199254740993.25"},` +
		`"ns":{"NS":["1","-2.5"]},"ss":{"SS":["a","b#%"]},"t":{"BOOL":true},"z":{"NULL":true}},"SequenceNumber":"100","SizeBytes":99,` +
		`"StreamViewType":"NEW_AND_OLD_IMAGES"},"eventSourceARN":"arn:s","userIdentity":{"type":"Service","principalId":"dynamodb.amazonaws.com"}}`
	if string(got) != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
	ev, err := LambdaEvent([]json.RawMessage{got})
	if err != nil {
		t.Fatal(err)
	}
	rec := ev.Records[0]
	old := rec.Change.OldImage
	if rec.UserIdentity == nil || rec.UserIdentity.PrincipalID != patterns.TTLPrincipal || !rec.Change.ApproximateCreationDateTime.Equal(at) ||
		string(old["b"].Binary()) != "\x00\x01*A" || old["n"].Number() != "9007199254740993.25" || !old["z"].IsNull() ||
		len(old["l"].List()[1].List()) != 0 || old["m"].Map()["e"].DataType() != events.DataTypeMap || old["bs"].BinarySet()[1][0] != 65 {
		t.Errorf("decoded: %+v", rec)
	}
	if _, err := LambdaRecord("arn:s", stypes.Record{EventID: aws.String("e2")}); err == nil {
		t.Error("a record without its change converted")
	}
}

// A handler's filters (as the construct writes them) pass what they name
// and nothing else; an operator Lambda has but this evaluator does not
// is an error, never a guess.
func TestFilter(t *testing.T) {
	d := Design(t, "../testdata/blog.yaml")
	rec := func(event, sk string, ttl bool) json.RawMessage {
		r := map[string]any{"eventName": event, "dynamodb": map[string]any{"Keys": map[string]any{"PK": map[string]any{"S": "AUTHOR#a"}, "SK": map[string]any{"S": sk}}}}
		if ttl {
			r["userIdentity"] = map[string]any{"type": patterns.TTLIdentityType, "principalId": patterns.TTLPrincipal}
		}
		b, _ := json.Marshal(r)
		return b
	}
	pass := func(h patterns.Handler, r json.RawMessage) bool {
		for _, f := range d.StreamFilters(h) {
			raw, _ := json.Marshal(f.Pattern())
			var p Filter
			json.Unmarshal(raw, &p)
			if ok, err := p.Match(r); err != nil {
				t.Fatal(err)
			} else if ok {
				return true
			}
		}
		return false
	}
	for _, tc := range []struct {
		h    patterns.Handler
		r    json.RawMessage
		want bool
	}{
		{patterns.HandlerCounters, rec("INSERT", "POST#p1", false), true},
		{patterns.HandlerCounters, rec("REMOVE", "POST#p1", true), true},
		{patterns.HandlerCounters, rec("INSERT", "AUTHOR", false), false}, // the parent: not a child
		{patterns.HandlerCounters, rec("INSERT", "XPOST#p1", false), false},
		{patterns.HandlerArchive, rec("REMOVE", "POST#p1", true), true},
		{patterns.HandlerArchive, rec("REMOVE", "POST#p1", false), false}, // the application's delete
		{patterns.HandlerArchive, rec("MODIFY", "POST#p1", true), false},
		{patterns.HandlerFanout, rec("MODIFY", "AUTHOR", false), true},
		{patterns.HandlerFanout, rec("INSERT", "AUTHOR", false), false},
		{patterns.HandlerFanout, rec("MODIFY", "AUTHORS", false), false}, // a whole key, not a prefix
	} {
		if got := pass(tc.h, tc.r); got != tc.want {
			t.Errorf("%s, %s: passes %v, want %v", tc.h, tc.r, got, tc.want)
		}
	}
	for _, bad := range []string{`{"eventName": [{"anything-but": ["INSERT"]}]}`, `{"eventName": "INSERT"}`, `{"eventName": [{"prefix": "I", "suffix": "T"}]}`} {
		var f Filter
		json.Unmarshal([]byte(bad), &f)
		if _, err := f.Match(rec("INSERT", "POST#p", false)); err == nil || !strings.Contains(err.Error(), "filter") {
			t.Errorf("%s: %v", bad, err)
		}
	}
}

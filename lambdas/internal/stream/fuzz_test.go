package stream

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/aws/aws-lambda-go/events"

	"github.com/keyplan/keyplan/patterns"
	"github.com/keyplan/keyplan/patterns/dynamo"
	"github.com/keyplan/keyplan/patterns/model"
)

// Any record Lambda could hand a handler decodes to a change or an error,
// never a panic: images of any shape, values holding nothing, keys of no
// entity.
func FuzzDecodeRecord(f *testing.F) {
	m, err := model.Load("testdata/blog.yaml")
	if err != nil {
		f.Fatal(err)
	}
	d, err := patterns.Plan(m)
	if err != nil {
		f.Fatal(err)
	}
	tbl := dynamo.New(d, nil, "Blog")
	var ev events.DynamoDBEvent
	raw, err := os.ReadFile("testdata/stream-event.json")
	if err != nil {
		f.Fatal(err)
	}
	if err := json.Unmarshal(raw, &ev); err != nil {
		f.Fatal(err)
	}
	for _, r := range ev.Records {
		b, _ := json.Marshal(r)
		f.Add(b)
	}
	f.Add([]byte(`{"eventName":"INSERT","dynamodb":{"NewImage":{"PK":{},"SK":{"S":""}}}}`))
	f.Add([]byte(`{"eventName":"MODIFY","dynamodb":{"OldImage":{"PK":{"S":"~UNIQUE#x"}},"NewImage":{"PK":{"N":"1"}}}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var r events.DynamoDBEventRecord
		if json.Unmarshal(data, &r) != nil {
			return
		}
		ch, err := Decode(tbl, r)
		if err != nil {
			if !Skippable(err) {
				t.Fatalf("an error that fails the record: %v", err)
			}
			return
		}
		if ch.Entity != "" && r.Change.OldImage == nil && r.Change.NewImage == nil {
			t.Fatalf("a change of %s without images", ch.Entity)
		}
		if ch.Entity == "" {
			return
		}
		var attrs []string
		for _, a := range d.Model().Entity(ch.Entity).Attributes {
			attrs = append(attrs, a.Name)
		}
		for _, w := range []Which{Old, New} {
			if _, err := ch.Values(w, attrs...); err != nil && !Skippable(err) {
				t.Fatalf("an error that fails the record: %v", err)
			}
			if _, err := ch.Raw(w, attrs...); err != nil && !Skippable(err) {
				t.Fatalf("an error that fails the record: %v", err)
			}
		}
	})
}

package streamtest

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	stypes "github.com/aws/aws-sdk-go-v2/service/dynamodbstreams/types"
)

// What Lambda's event source mapping hands a function for a DynamoDB
// stream: each record GetRecords returns, in the stream's own JSON (the
// DynamoDB attribute-value format: "N" as a string, "B" in base64), with
// the stream's ARN added as eventSourceARN, and ApproximateCreationDateTime
// in epoch seconds; userIdentity only on the removals the TTL service
// made. AWS's captured sample is aws-lambda-go's
// events/testdata/dynamodb-event.json; the handlers' frozen batches are
// lambdas/*/testdata/batch.json.
//
// LambdaRecord writes that JSON from the SDK's record; LambdaEvent then decodes
// the batch with encoding/json into events.DynamoDBEvent, as the Go
// runtime decodes the payload Lambda sends (lambda.Start), so a handler
// sees exactly what it would be given on AWS.

// lambdaRecord is one record of a Lambda DynamoDB event, in its JSON.
type lambdaRecord struct {
	EventID        string          `json:"eventID"`
	EventName      string          `json:"eventName"`
	EventVersion   string          `json:"eventVersion"`
	EventSource    string          `json:"eventSource"`
	AWSRegion      string          `json:"awsRegion"`
	Dynamodb       lambdaChange    `json:"dynamodb"`
	EventSourceARN string          `json:"eventSourceARN"`
	UserIdentity   *lambdaIdentity `json:"userIdentity,omitempty"`
}

type lambdaChange struct {
	ApproximateCreationDateTime int64          `json:"ApproximateCreationDateTime"`
	Keys                        map[string]any `json:"Keys,omitempty"`
	NewImage                    map[string]any `json:"NewImage,omitempty"`
	OldImage                    map[string]any `json:"OldImage,omitempty"`
	SequenceNumber              string         `json:"SequenceNumber"`
	SizeBytes                   int64          `json:"SizeBytes"`
	StreamViewType              string         `json:"StreamViewType"`
}

type lambdaIdentity struct {
	Type        string `json:"type"`
	PrincipalID string `json:"principalId"`
}

// LambdaRecord is the JSON Lambda's event source mapping delivers for r,
// a record of the stream arn.
func LambdaRecord(arn string, r stypes.Record) (json.RawMessage, error) {
	if r.Dynamodb == nil {
		return nil, fmt.Errorf("record %s has no change", aws.ToString(r.EventID))
	}
	ch := r.Dynamodb
	out := lambdaRecord{
		EventID: aws.ToString(r.EventID), EventName: string(r.EventName), EventVersion: aws.ToString(r.EventVersion),
		EventSource: aws.ToString(r.EventSource), AWSRegion: aws.ToString(r.AwsRegion), EventSourceARN: arn,
		Dynamodb: lambdaChange{SequenceNumber: aws.ToString(ch.SequenceNumber), SizeBytes: aws.ToInt64(ch.SizeBytes),
			StreamViewType: string(ch.StreamViewType)},
	}
	if ch.ApproximateCreationDateTime != nil {
		out.Dynamodb.ApproximateCreationDateTime = ch.ApproximateCreationDateTime.Unix()
	}
	var err error
	if out.Dynamodb.Keys, err = imageJSON(ch.Keys); err != nil {
		return nil, fmt.Errorf("record %s: Keys: %w", out.EventID, err)
	}
	if out.Dynamodb.NewImage, err = imageJSON(ch.NewImage); err != nil {
		return nil, fmt.Errorf("record %s: NewImage: %w", out.EventID, err)
	}
	if out.Dynamodb.OldImage, err = imageJSON(ch.OldImage); err != nil {
		return nil, fmt.Errorf("record %s: OldImage: %w", out.EventID, err)
	}
	if id := r.UserIdentity; id != nil {
		out.UserIdentity = &lambdaIdentity{Type: aws.ToString(id.Type), PrincipalID: aws.ToString(id.PrincipalId)}
	}
	return json.Marshal(out)
}

// LambdaEvent decodes Lambda's event of records (LambdaRecord's JSON) as the Go
// runtime does.
func LambdaEvent(records []json.RawMessage) (events.DynamoDBEvent, error) {
	payload, err := json.Marshal(map[string][]json.RawMessage{"Records": records})
	if err != nil {
		return events.DynamoDBEvent{}, err
	}
	var ev events.DynamoDBEvent
	err = json.Unmarshal(payload, &ev)
	return ev, err
}

func imageJSON(img map[string]stypes.AttributeValue) (map[string]any, error) {
	if img == nil {
		return nil, nil
	}
	out := make(map[string]any, len(img))
	for k, v := range img {
		j, err := valueJSON(v)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", k, err)
		}
		out[k] = j
	}
	return out, nil
}

// valueJSON is an attribute value in DynamoDB's JSON ({"S": "x"},
// {"N": "1.5"}, {"B": base64}, {"M": {...}}, ...).
func valueJSON(v stypes.AttributeValue) (map[string]any, error) {
	switch x := v.(type) {
	case *stypes.AttributeValueMemberS:
		return map[string]any{"S": x.Value}, nil
	case *stypes.AttributeValueMemberN:
		return map[string]any{"N": x.Value}, nil
	case *stypes.AttributeValueMemberB:
		return map[string]any{"B": x.Value}, nil // []byte: base64
	case *stypes.AttributeValueMemberBOOL:
		return map[string]any{"BOOL": x.Value}, nil
	case *stypes.AttributeValueMemberNULL:
		return map[string]any{"NULL": x.Value}, nil
	case *stypes.AttributeValueMemberSS:
		return map[string]any{"SS": x.Value}, nil
	case *stypes.AttributeValueMemberNS:
		return map[string]any{"NS": x.Value}, nil
	case *stypes.AttributeValueMemberBS:
		return map[string]any{"BS": x.Value}, nil
	case *stypes.AttributeValueMemberL:
		l := make([]any, len(x.Value))
		for i, e := range x.Value {
			j, err := valueJSON(e)
			if err != nil {
				return nil, fmt.Errorf("[%d]: %w", i, err)
			}
			l[i] = j
		}
		return map[string]any{"L": l}, nil
	case *stypes.AttributeValueMemberM:
		m, err := imageJSON(x.Value)
		if err != nil {
			return nil, err
		}
		if m == nil {
			m = map[string]any{}
		}
		return map[string]any{"M": m}, nil
	}
	return nil, fmt.Errorf("an attribute value of type %T", v)
}

// Filter is one Lambda event filter pattern (FilterCriteria.Filters[].Pattern,
// patterns.StreamFilter.Pattern): a record passes when every field the
// pattern names holds one of the values it lists. Lambda's operators
// beyond a literal and "prefix" are refused, never guessed at.
type Filter map[string]any

// Match reports whether the record (its Lambda JSON) passes the filter.
func (f Filter) Match(record json.RawMessage) (bool, error) {
	var doc map[string]any
	if err := json.Unmarshal(record, &doc); err != nil {
		return false, err
	}
	return matchObject(f, doc)
}

func matchObject(pattern, doc map[string]any) (bool, error) {
	keys := make([]string, 0, len(pattern))
	for k := range pattern {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		v, ok := doc[k]
		if !ok {
			return false, nil
		}
		var match bool
		var err error
		switch p := pattern[k].(type) {
		case map[string]any:
			sub, isObj := v.(map[string]any)
			if !isObj {
				return false, nil
			}
			match, err = matchObject(p, sub)
		case []any:
			match, err = matchValues(p, v)
		default:
			return false, fmt.Errorf("filter field %s: %v is neither an object nor a list of values", k, p)
		}
		if err != nil || !match {
			return false, err
		}
	}
	return true, nil
}

// matchValues reports whether v (or, for a list, one of its elements)
// is one of the pattern's values.
func matchValues(values []any, v any) (bool, error) {
	if l, ok := v.([]any); ok {
		for _, e := range l {
			if m, err := matchValues(values, e); m || err != nil {
				return m, err
			}
		}
		return false, nil
	}
	for _, want := range values {
		switch w := want.(type) {
		case map[string]any:
			prefix, ok := w["prefix"].(string)
			if !ok || len(w) != 1 {
				return false, fmt.Errorf("filter operator %v: only a literal or {\"prefix\": ...} is implemented", w)
			}
			if s, isStr := v.(string); isStr && strings.HasPrefix(s, prefix) {
				return true, nil
			}
		default:
			if w == v {
				return true, nil
			}
		}
	}
	return false, nil
}

package prove

import (
	"context"
	"fmt"
	"maps"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/keyplan/keyplan/patterns"
	"github.com/keyplan/keyplan/patterns/dynamo"
	"github.com/keyplan/keyplan/patterns/model"
)

// Values kept in S3 (store: s3) in a proof: a read returns an item
// holding its objects' keys, the examples and the reference evaluator
// hold the values. Validate and Prove give the tables they make an
// object store of their own (MemoryObjects; the bucket is the
// construct's, which no engine has) and read each object an item read
// holds (Object) before comparing it: both sides then compare values.

// proofObjects is the option that gives a proof's table of design d an
// object store of its own, when d keeps values in S3 (nil otherwise: no
// option).
func proofObjects(d *patterns.Design) []dynamo.Option {
	if !d.Model().HasObjects() {
		return nil
	}
	return []dynamo.Option{dynamo.WithObjects(&dynamo.MemoryObjects{})}
}

// withObjects returns v with each value entity keeps in S3 read from
// t's object store in place of its key (v itself when the entity keeps
// none): a string attribute's as a string, a binary's as bytes. A key
// whose object the store does not hold is an error naming it.
func withObjects(ctx context.Context, t *dynamo.Table, entity string, v dynamo.Values) (dynamo.Values, error) {
	e := t.Design().Model().Entity(entity)
	if e == nil {
		return v, nil
	}
	out, cloned := v, false
	for _, a := range e.ObjectAttrs() {
		if v[a.Name] == nil {
			continue
		}
		b, err := t.Object(ctx, entity, a.Name, v)
		if err != nil {
			return nil, fmt.Errorf("the item holds %v for %s.%s, kept in S3: %w", v[a.Name], entity, a.Name, err)
		}
		if !cloned {
			out, cloned = maps.Clone(v), true
		}
		out[a.Name] = objectValue(a, b)
	}
	return out, nil
}

// objectValue is an object's bytes as a value of a: a string's text, a
// binary's bytes.
func objectValue(a *model.Attribute, b []byte) any {
	if a.DynamoType() == "B" {
		return b
	}
	return string(b)
}

// asRead is old, the values the reference gives a Replace or a Delete
// of entity, as the runtime takes them: as the item was read (Replace's
// contract), each value kept in S3 the key of the object the table's
// item holds, when that object holds the value. A value the item does
// not hold stays as old gives it: the item is not as old says, and the
// runtime refuses the write as the reference does.
func asRead(ctx context.Context, t *dynamo.Table, entity string, old dynamo.Values) (dynamo.Values, error) {
	e := t.Design().Model().Entity(entity)
	if e == nil || len(e.ObjectAttrs()) == 0 {
		return old, nil
	}
	key, err := t.Key(entity, old)
	if err != nil {
		return old, nil // refused as the reference refuses it
	}
	out, err := t.Probe().Client().GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(t.Name()), Key: key, ConsistentRead: aws.Bool(true)})
	if err != nil || out.Item == nil {
		return old, err
	}
	name, held, err := t.Decode(out.Item)
	if err != nil || name != entity {
		return old, nil
	}
	v := maps.Clone(old)
	for _, a := range e.ObjectAttrs() {
		if old[a.Name] == nil || held[a.Name] == nil {
			continue
		}
		if b, err := t.Object(ctx, entity, a.Name, held); err == nil && dynamo.SameAs(a, old[a.Name], objectValue(a, b)) {
			v[a.Name] = held[a.Name]
		}
	}
	return v, nil
}

// readObjects reads, in each item read (by example name), the values
// kept in S3 (withObjects), for comparing with the expectation's values;
// an object it cannot read is a mismatch, and its item keeps the key.
func readObjects(ctx context.Context, t *dynamo.Table, read map[string]dynamo.Item) []string {
	var bad []string
	for _, name := range sortedNames(read) {
		it := read[name]
		v, err := withObjects(ctx, t, it.Entity, it.Values)
		if err != nil {
			bad = append(bad, fmt.Sprintf("%s: %v", name, err))
			continue
		}
		it.Values = v
		read[name] = it
	}
	return bad
}

// loadObjects is the items a read of t returned, each value kept in S3
// read from t's object store (withObjects), as the reference holds them.
func loadObjects(ctx context.Context, t *dynamo.Table, items []dynamo.Item) ([]dynamo.Item, error) {
	out := make([]dynamo.Item, len(items))
	for i, it := range items {
		v, err := withObjects(ctx, t, it.Entity, it.Values)
		if err != nil {
			return nil, err
		}
		it.Values = v
		out[i] = it
	}
	return out, nil
}

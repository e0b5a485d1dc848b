package prove

import (
	"context"
	"fmt"
	"maps"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/keyplan/keyplan/internal/testkit/testmodel"
	"github.com/keyplan/keyplan/patterns/dynamo"
	"github.com/keyplan/keyplan/patterns/oracle"
)

// docsProved keeps a document's body, page and thumb in S3, with
// examples that expect their values.
const docsProved = testmodel.DocsInS3Examples

// keyplan validate proves a design keeping values in S3 (issue 39 part
// 4): the tables it makes get an object store in memory, and what a read
// returns is compared by value, its objects read, with the examples' and
// the reference's values. A value the examples do not hold fails, named.
func TestValidateValuesInS3(t *testing.T) {
	ctx := context.Background()
	d := planned(t, docsProved)
	needsNative(t, d)
	for seed := range proofSeeds(3) {
		rep, _, err := ValidateTable(ctx, engine, client, d, ValidateOptions{Generate: 15, Seed: seed})
		if err != nil || rep == nil || rep.Proof == nil {
			t.Fatalf("seed %d: %v, %+v", seed, err, rep)
		}
		var b strings.Builder
		rep.WriteText(&b, "docs.yaml")
		if !rep.OK() || rep.Loaded != 2 || len(rep.Results) != 2 || rep.Proof.Answered == 0 || rep.Proof.Done == 0 {
			t.Fatalf("seed %d: OK %v, %d loaded, proof %s:\n%s", seed, rep.OK(), rep.Loaded, rep.Proof, b.String())
		}
	}
	wrong := planned(t, strings.Replace(docsProved, `d2: {body: second, page: "eA=="}`, `d2: {body: secnd, page: "eQ=="}`, 1))
	rep, _, err := ValidateTable(ctx, engine, client, wrong, ValidateOptions{})
	if err != nil || rep == nil || len(rep.Results) != 2 {
		t.Fatalf("%v, %+v", err, rep)
	}
	if r := rep.Results[1]; r.OK() || !strings.Contains(r.String(), "d2.body: expected secnd, got second") || !strings.Contains(r.String(), "d2.page: expected") {
		t.Errorf("a value kept in S3 the example does not hold: %s", r)
	}
	if r := rep.Results[0]; !r.OK() {
		t.Errorf("%s", r)
	}
}

// alteredObjects is an object store that returns each body one byte
// longer than it was stored.
type alteredObjects struct{ dynamo.MemoryObjects }

func (a *alteredObjects) GetObject(ctx context.Context, key string) ([]byte, error) {
	b, err := a.MemoryObjects.GetObject(ctx, key)
	if err == nil && strings.HasPrefix(key, "Doc/body/") {
		b = append(b, '!')
	}
	return b, err
}

// The proof compares the values an object store returns: a store that
// returns another value than was written differs from the reference,
// named as a difference of Doc's body, on the first create (seed 1's
// first body is "a#b").
func TestProveReadsObjects(t *testing.T) {
	ctx := context.Background()
	d := planned(t, docsProved)
	needsNative(t, d)
	fresh := func(ctx context.Context) (*dynamo.Table, func(), error) {
		name := fmt.Sprintf("o%d-%s", tables.Add(1), d.Table)
		if err := dynamo.CreateTable(ctx, engine, d, name); err != nil {
			return nil, nil, err
		}
		return dynamo.New(d, client, name, dynamo.WithObjects(&alteredObjects{})), func() {
			engine.DeleteTable(context.Background(), &dynamodb.DeleteTableInput{TableName: aws.String(name)})
		}, nil
	}
	tbl, drop, err := fresh(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer drop()
	p, err := Prove(ctx, tbl, ProveOptions{Seed: 1, Items: 5, Steps: 5, Fresh: fresh})
	if err != nil {
		t.Fatal(err)
	}
	if p.OK() || p.Mismatch.Kind != "content" || !strings.Contains(p.Mismatch.Detail, `with body is "a#b!", expected "a#b"`) || len(p.Mismatch.Ops) != 1 {
		t.Fatalf("a store returning another body: %s", p)

	}
}

// A replace and a delete the reference gives with the values it holds
// run on the table as read (Replace's contract): the item holds its
// objects' keys, and the values are theirs, so both are done, on the
// table as on the reference, and the objects follow.
func TestProveWritesObjectsAsRead(t *testing.T) {
	ctx := context.Background()
	d := planned(t, docsProved)
	needsNative(t, d)
	name := fmt.Sprintf("w%d-%s", tables.Add(1), d.Table)
	if err := dynamo.CreateTable(ctx, engine, d, name); err != nil {
		t.Fatal(err)
	}
	defer engine.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String(name)})
	store := &dynamo.MemoryObjects{}
	tbl := dynamo.New(d, client, name, dynamo.WithObjects(store))
	run := &proofRun{t: withProofClock(tbl), ref: newRef(d), proof: &Proof{}}
	doc := map[string]any{"docId": "d1", "folder": "f", "title": "a", "body": "one", "page": []byte("p1")}
	rebodied := maps.Clone(doc)
	rebodied["body"], rebodied["page"] = "two", []byte("p2")
	for _, op := range []*oracle.Op{
		{Kind: oracle.OpCreate, Entity: "Doc", Params: doc},
		{Kind: oracle.OpReplace, Entity: "Doc", Old: doc, Params: rebodied},
		{Kind: oracle.OpReplace, Entity: "Doc", Old: doc, Params: rebodied}, // stale: refused by both
		{Kind: oracle.OpDelete, Entity: "Doc", Params: rebodied},
	} {
		mm, err := run.op(ctx, op)
		if err == nil && mm == nil {
			mm, err = run.content(ctx)
		}
		if err != nil || mm != nil {
			t.Fatalf("%s: %v, %v", op, err, mm)
		}
	}
	if run.proof.Done != 3 || run.proof.Refused != 1 {
		t.Errorf("done %d, refused %d; want 3 and 1", run.proof.Done, run.proof.Refused)
	}
	if keys := store.Keys(); len(keys) != 0 {
		t.Errorf("after the delete, the store holds %v", keys)
	}
}

package dynamo

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/keyplan/keyplan/patterns"
)

// request is one action a request takes, as IAM names it, and the index
// it reads (patterns.BaseIndex for the table; "" for a write).
type request struct{ action, index string }

// recorder records the IAM actions of the requests a client makes: a
// transaction's items each as their own action (IAM has no
// TransactWriteItems action).
type recorder struct {
	Client
	got []request
}

func (r *recorder) GetItem(ctx context.Context, in *dynamodb.GetItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error) {
	r.got = append(r.got, request{"dynamodb:GetItem", patterns.BaseIndex})
	return r.Client.GetItem(ctx, in, opts...)
}

func (r *recorder) Query(ctx context.Context, in *dynamodb.QueryInput, opts ...func(*dynamodb.Options)) (*dynamodb.QueryOutput, error) {
	ix := patterns.BaseIndex
	if in.IndexName != nil {
		ix = aws.ToString(in.IndexName)
	}
	r.got = append(r.got, request{"dynamodb:Query", ix})
	return r.Client.Query(ctx, in, opts...)
}

func (r *recorder) PutItem(ctx context.Context, in *dynamodb.PutItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error) {
	r.got = append(r.got, request{"dynamodb:PutItem", ""})
	return r.Client.PutItem(ctx, in, opts...)
}

func (r *recorder) UpdateItem(ctx context.Context, in *dynamodb.UpdateItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error) {
	r.got = append(r.got, request{"dynamodb:UpdateItem", ""})
	return r.Client.UpdateItem(ctx, in, opts...)
}

func (r *recorder) DeleteItem(ctx context.Context, in *dynamodb.DeleteItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.DeleteItemOutput, error) {
	r.got = append(r.got, request{"dynamodb:DeleteItem", ""})
	return r.Client.DeleteItem(ctx, in, opts...)
}

func (r *recorder) BatchWriteItem(ctx context.Context, in *dynamodb.BatchWriteItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.BatchWriteItemOutput, error) {
	r.got = append(r.got, request{"dynamodb:BatchWriteItem", ""})
	return r.Client.BatchWriteItem(ctx, in, opts...)
}

func (r *recorder) TransactWriteItems(ctx context.Context, in *dynamodb.TransactWriteItemsInput, opts ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error) {
	for _, it := range in.TransactItems {
		switch {
		case it.Put != nil:
			r.got = append(r.got, request{"dynamodb:PutItem", ""})
		case it.Update != nil:
			r.got = append(r.got, request{"dynamodb:UpdateItem", ""})
		case it.Delete != nil:
			r.got = append(r.got, request{"dynamodb:DeleteItem", ""})
		case it.ConditionCheck != nil:
			r.got = append(r.got, request{"dynamodb:ConditionCheckItem", ""})
		}
	}
	return r.Client.TransactWriteItems(ctx, in, opts...)
}

// What GrantPatterns grants a pattern (Design.Access) covers every
// request the runtime makes for it, for each of the gaps model's
// features: a sharded counter's sum, a count, a read that hides expired
// items (read on), sets, lists and map entries, a derived attribute's
// recomputed key, and a transaction of two items of one entity. Each
// read runs with its example's parameters, each write with its example
// step's (or an example item's, for a put).
func TestGrantsCoverRequests(t *testing.T) {
	ctx := context.Background()
	d := design(t, gapsModel)
	m := d.Model()
	tbl := fresh(t, d)
	if rep := Validate(ctx, tbl); !rep.OK() {
		t.Fatalf("the gaps model's examples do not hold:\n%v", rep)
	}
	check := func(name string, run func(*Table) error) {
		t.Helper()
		rec := &recorder{Client: client}
		err := run(New(d, rec, tbl.Name()))
		var ce *ConditionError
		if err != nil && !errors.As(err, &ce) {
			t.Errorf("%s: %v", name, err)
		}
		if len(rec.got) == 0 {
			t.Errorf("%s made no request: nothing is shown", name)
		}
		a, err := d.Access(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range rec.got {
			granted := slices.Contains(a.Writes, r.action)
			if r.index != "" {
				granted = slices.Contains(a.Actions, r.action) && slices.Contains(a.Indexes, r.index)
			}
			if !granted {
				t.Errorf("%s: %s on %s is not granted (%+v)", name, r.action, r.index, a)
			}
		}
	}
	read := map[string]bool{}
	for _, ex := range m.Examples.Expect {
		if read[ex.Pattern] {
			continue
		}
		read[ex.Pattern] = true
		pp, params := d.Pattern(ex.Pattern), Params(ex.Params)
		check(ex.Pattern, func(tbl *Table) error {
			switch {
			case pp.Count:
				_, err := tbl.Count(ctx, ex.Pattern, Request{Params: params, Limit: 1})
				return err
			case pp.Sum != "":
				_, err := tbl.Sum(ctx, ex.Pattern, params)
				return err
			case pp.Operation == patterns.GetItem:
				_, err := tbl.Get(ctx, ex.Pattern, params)
				return err
			}
			_, err := tbl.Read(ctx, ex.Pattern, Request{Params: params, Limit: 1})
			return err
		})
	}
	for _, p := range d.Patterns {
		if !read[p.Name] {
			t.Errorf("%s: no example reads it", p.Name)
		}
	}
	for _, w := range m.Writes {
		var params Params
		for _, st := range m.Examples.Steps {
			if st.Write == w.Name {
				params = Params(st.Params)
				break
			}
		}
		for _, it := range m.Examples.Items {
			if params == nil && w.Op == patterns.WritePut && it.Entity == w.Entity {
				params = Params(it.Values)
			}
		}
		if params == nil {
			t.Errorf("%s: no example step or item to write it with", w.Name)
			continue
		}
		check(w.Name, func(tbl *Table) error { return tbl.Write(ctx, w.Name, params) })
	}
}

package dynamo

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	enginepkg "github.com/keyplan/keyplan/internal/engine"
	"github.com/keyplan/keyplan/patterns"
	"github.com/keyplan/keyplan/patterns/model"
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
	r.got = append(r.got, request{"dynamodb:GetItem", model.BaseIndex})
	return r.Client.GetItem(ctx, in, opts...)
}

// ReadsRefusedItems passes on what the engine's client says.
func (r *recorder) ReadsRefusedItems(ctx context.Context) bool {
	rr, ok := r.Client.(RefusedItemReader)
	return ok && rr.ReadsRefusedItems(ctx)
}

func (r *recorder) Query(ctx context.Context, in *dynamodb.QueryInput, opts ...func(*dynamodb.Options)) (*dynamodb.QueryOutput, error) {
	ix := model.BaseIndex
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
//
// One request is accepted beyond the grant, and only on an engine the
// feature list says lacks ReturnValuesOnConditionCheckFailure (dynalite):
// the GetItem that follows a refused write, by which the runtime reads
// the item the engine did not return. Under least privilege that read
// is denied there (docs/engines.md); on DynamoDB it is never made.
func TestGrantsCoverRequests(t *testing.T) {
	ctx := context.Background()
	d := design(t, gapsModel)
	m := d.Model()
	tbl := fresh(t, d)
	if ok, rep := ValidateExamples(ctx, tbl); !ok {
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
		for i, r := range rec.got {
			granted := slices.Contains(a.Writes, r.action)
			if r.index != "" {
				granted = slices.Contains(a.Actions, r.action) && slices.Contains(a.Indexes, r.index)
			}
			if !granted && ce != nil && r.action == "dynamodb:GetItem" && i > 0 && rec.got[i-1].index == "" {
				if why := enginepkg.Lacks(engineName, enginepkg.OldItemOnConditionFailure); why != "" {
					t.Logf("%s: the GetItem after the refused write is not granted; accepted on %s only: %s", name, engineName, why)
					continue
				}
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
			if params == nil && w.Op == model.WritePut && it.Entity == w.Entity {
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

// withoutOldItem is an engine without ReturnValuesOnConditionCheckFailure
// (dynalite) under a write pattern's grant: a refused write returns no
// item, and a GetItem is denied.
type withoutOldItem struct{ Client }

func (w withoutOldItem) strip(err error) error {
	var ccf *types.ConditionalCheckFailedException
	if errors.As(err, &ccf) {
		return &types.ConditionalCheckFailedException{Message: ccf.Message}
	}
	return err
}

func (w withoutOldItem) PutItem(ctx context.Context, in *dynamodb.PutItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error) {
	out, err := w.Client.PutItem(ctx, in, opts...)
	return out, w.strip(err)
}

func (w withoutOldItem) UpdateItem(ctx context.Context, in *dynamodb.UpdateItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error) {
	out, err := w.Client.UpdateItem(ctx, in, opts...)
	return out, w.strip(err)
}

func (w withoutOldItem) ReadsRefusedItems(context.Context) bool { return true }

func (w withoutOldItem) GetItem(context.Context, *dynamodb.GetItemInput, ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error) {
	return nil, errors.New("AccessDeniedException: not authorized to perform dynamodb:GetItem")
}

// A refused write whose old item the engine did not return and the role
// may not read is explained without taking the item for absent: the
// first condition is named, not judged.
func TestRefusedWriteWithoutOldItemOrGetItem(t *testing.T) {
	ctx := context.Background()
	d := design(t, gapsModel)
	tbl := fresh(t, d)
	var w *model.Write
	var params Params
	for _, wr := range d.Model().Writes {
		if wr.Name == "AddUser" {
			w = wr
		}
	}
	if w == nil {
		t.Fatal("the gaps model has no AddUser")
	}
	for _, it := range d.Model().Examples.Items {
		if it.Entity == w.Entity {
			params = Params(it.Values)
			break
		}
	}
	if err := tbl.Write(ctx, "AddUser", params); err != nil {
		t.Fatal(err)
	}
	err := New(d, withoutOldItem{client}, tbl.Name()).Write(ctx, "AddUser", params)
	var ce *ConditionError
	if !errors.As(err, &ce) {
		t.Fatalf("a second AddUser of one id: %v, want a ConditionError", err)
	}
	// Judged on an item taken for absent, every clause would hold and the
	// error would only list them ("one of: ..."), or say the item does
	// not exist.
	if ce.Item != nil || strings.HasPrefix(ce.Condition, "one of") || strings.Contains(ce.Condition, "does not exist") {
		t.Errorf("the item exists, unknown to the runtime; the error says: %v", err)
	}
}

// A refused write is explained from the item the engine returns with it
// (ALL_OLD; none: there was none), and the runtime reads the item only on
// an engine the feature list says leaves it out (dynalite): on DynamoDB
// a role holding only the write pattern's grant is never denied a read.
// Both ways the explanation judges the item as it was: an update of a
// missing user says it does not exist, a second AddUser that it exists.
func TestRefusedWriteReadsOnlyWhereTheEngineLacksTheOldItem(t *testing.T) {
	ctx := context.Background()
	d := design(t, gapsModel)
	tbl := fresh(t, d)
	if ok, rep := ValidateExamples(ctx, tbl); !ok {
		t.Fatalf("the gaps model's examples do not hold:\n%v", rep)
	}
	lacks := enginepkg.Lacks(engineName, enginepkg.OldItemOnConditionFailure)
	var ann Params
	for _, it := range d.Model().Examples.Items {
		if it.Entity == "User" && it.Values["userId"] == "ann" {
			ann = Params(it.Values)
		}
	}
	for _, c := range []struct {
		write  string
		params Params
		says   string
	}{
		{"SetTheme", Params{"userId": "nobody", "prefs.theme": "dark"}, "does not exist"},
		{"AddBadges", Params{"userId": "a#b", "badges": []string{"x"}}, "does not exist"},
		{"AddUser", ann, "exists"},
	} {
		rec := &recorder{Client: client}
		err := New(d, rec, tbl.Name()).Write(ctx, c.write, c.params)
		var ce *ConditionError
		if !errors.As(err, &ce) {
			t.Fatalf("%s %v: %v, want a ConditionError", c.write, c.params, err)
		}
		if !strings.Contains(ce.Condition, c.says) || strings.HasPrefix(ce.Condition, "one of") {
			t.Errorf("%s %v: the error says %q, want the item judged (%q)", c.write, c.params, ce.Condition, c.says)
		}
		reads := 0
		for _, r := range rec.got {
			if r.action == "dynamodb:GetItem" {
				reads++
			}
		}
		switch {
		case lacks == "" && reads > 0:
			t.Errorf("%s: %d GetItem after the refused write on %s, which returns the old item: under the pattern's grant it is denied (%v)", c.write, reads, engineName, rec.got)
		case lacks != "" && c.says == "does not exist" && reads != 1:
			t.Errorf("%s: %d GetItem after the refused write on %s (%s), want 1 (%v)", c.write, reads, engineName, lacks, rec.got)
		}
	}
}

// readableWithoutOldItem is an engine without
// ReturnValuesOnConditionCheckFailure (dynalite) whose items can be read.
type readableWithoutOldItem struct{ withoutOldItem }

func (r readableWithoutOldItem) GetItem(ctx context.Context, in *dynamodb.GetItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error) {
	return r.withoutOldItem.Client.GetItem(ctx, in, opts...)
}

// A table made from another's Options over a client that wraps the
// first's (Validate counts requests so) still reads the item a refused
// write found where the engine leaves it out: a second AddUser of one id
// is explained as the item existing, not listed unjudged.
func TestRefusedItemsReadThroughDerivedTables(t *testing.T) {
	ctx := context.Background()
	d := design(t, gapsModel)
	tbl := fresh(t, d)
	var params Params
	for _, it := range d.Model().Examples.Items {
		if it.Entity == "User" {
			params = Params(it.Values)
			break
		}
	}
	first := New(d, readableWithoutOldItem{withoutOldItem{client}}, tbl.Name())
	if err := first.Write(ctx, "AddUser", params); err != nil {
		t.Fatal(err)
	}
	derived := New(d, &counter{Client: readableWithoutOldItem{withoutOldItem{client}}}, tbl.Name(), first.Options()...)
	for name, run := range map[string]*Table{"the table": first, "a table made from its Options": derived} {
		err := run.Write(ctx, "AddUser", params)
		var ce *ConditionError
		if !errors.As(err, &ce) || ce.Item == nil || !strings.Contains(ce.Condition, "exists") {
			t.Errorf("%s: a second AddUser: %v, want the existing item read and judged", name, err)
		}
	}
}

package adopt

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/keyplan/keyplan/internal/testkit/enginepass"
	"github.com/keyplan/keyplan/patterns"
	"github.com/keyplan/keyplan/patterns/model"
)

func s(v string) patterns.LiveValue { return patterns.LiveValue{Type: "S", Text: v} }

// orders is seed 003's layout: orders under their merchant, the pending
// ones alone on GSI1 (MERCHANT#m#STATUS#PENDING), the others off it.
func orders(pendingOnly bool) *Table {
	t := &Table{Name: "Shop", PK: "PK", SK: "SK", Source: "test", Noun: "the table", Origin: "test",
		Indexes: []Index{{Name: "GSI1", PK: "GSI1PK", SK: "GSI1SK", Projection: patterns.ProjectAll}}}
	for i := range 6 {
		m, o := fmt.Sprintf("m%d", i%2), fmt.Sprintf("o%d", i)
		st := "SHIPPED"
		if i%3 == 0 {
			st = "PENDING"
		}
		it := patterns.LiveItem{"PK": s("MERCHANT#" + m), "SK": s("ORDER#" + o), "merchantId": s(m), "orderId": s(o), "status": s(st), "placed": s(fmt.Sprintf("2024-01-0%d", i+1)), "total": {Type: "N", Text: fmt.Sprint(10 * i)}, "note": s("n")}
		if st == "PENDING" || !pendingOnly {
			it["GSI1PK"], it["GSI1SK"] = s("MERCHANT#"+m+"#STATUS#"+st), s(fmt.Sprintf("2024-01-0%d", i+1))
		}
		t.Items = append(t.Items, it)
	}
	return t
}

// A GSI only some items of an entity hold is inferred sparse: on the
// constant that tells the holders apart (when:, the reads on it filtered
// by it), by construction when the others lack an attribute its key
// reads, and said when nothing tells them apart.
func TestSparseIndexInferred(t *testing.T) {
	enginepass.Independent(t)
	im, err := Infer(orders(true))
	if err != nil {
		t.Fatal(err)
	}
	m, err := model.Parse("imported.yaml", im.YAML)
	if err != nil {
		t.Fatalf("%v\n%s", err, im.YAML)
	}
	d, err := patterns.Plan(m)
	if err != nil {
		t.Fatal(err)
	}
	e := d.Entities[0]
	if k := e.Key("GSI1"); k == nil || len(k.When) != 1 || k.When[0] != (model.Const{Attr: "status", Value: "PENDING"}) {
		t.Fatalf("GSI1's key: %+v, want sparse on status=PENDING\n%s", k, im.YAML)
	}
	served := 0
	for _, p := range d.Patterns {
		if p.Index == "GSI1" && p.Served() {
			served++
		}
	}
	if served != 1 || len(d.Errors()) > 0 {
		t.Errorf("%d served reads on GSI1, errors %v\n%s", served, d.Errors(), im.YAML)
	}

	// The shipped orders hold no placed date: off GSI1 by construction.
	byConstruction := orders(true)
	for _, it := range byConstruction.Items {
		if it["status"].Text != "PENDING" {
			delete(it, "placed")
		}
	}
	im, err = Infer(byConstruction)
	if err != nil {
		t.Fatal(err)
	}
	if y := string(im.YAML); strings.Contains(y, "when:") || !strings.Contains(y, "the others lack an attribute it reads") {
		t.Errorf("sparse by construction:\n%s", y)
	}

	// Nothing tells the pending orders apart: said, not guessed.
	blind := orders(true)
	for _, it := range blind.Items {
		it["status"] = s("OPEN")
	}
	im, err = Infer(blind)
	if err != nil {
		t.Fatal(err)
	}
	if y := string(im.YAML); strings.Contains(y, "when:") || !strings.Contains(y, "no constant tells them apart") {
		t.Errorf("sparse on nothing the items hold:\n%s", y)
	}
	if err := im.Loads(); err != nil {
		t.Error(err)
	}
}

// A GSI that projects less than ALL is kept: the reads inferred on it
// return what it projects, so the design keeps its projection; a type an
// attribute is held as by a few items only is said, not mixed.
func TestProjectionAndMixedTypesInferred(t *testing.T) {
	enginepass.Independent(t)
	for _, p := range []Index{{Projection: patterns.ProjectKeysOnly}, {Projection: patterns.ProjectInclude, NonKeyAttributes: []string{"total"}}} {
		tb := orders(false)
		tb.Indexes[0].Projection, tb.Indexes[0].NonKeyAttributes = p.Projection, p.NonKeyAttributes
		tb.Items[5]["note"] = patterns.LiveValue{Type: "N", Text: "7"}
		im, err := Infer(tb)
		if err != nil {
			t.Fatal(err)
		}
		m, err := model.Parse("imported.yaml", im.YAML)
		if err != nil {
			t.Fatalf("%v\n%s", err, im.YAML)
		}
		d, err := patterns.Plan(m)
		if err != nil {
			t.Fatal(err)
		}
		ix := d.Index("GSI1")
		if ix == nil || ix.Projection != p.Projection || !slices.Equal(ix.NonKeyAttributes, p.NonKeyAttributes) {
			t.Errorf("%s: GSI1 planned as %+v\n%s", p.Projection, ix, im.YAML)
		}
		if y := string(im.YAML); !strings.Contains(y, "attribute note is held as S by 5 item(s) and as another type by 1") {
			t.Errorf("mixed types not said:\n%s", y)
		}
	}
}

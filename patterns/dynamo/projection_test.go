package dynamo

import (
	"context"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/keyplan/keyplan/internal/testkit/evolvetest"
	"github.com/keyplan/keyplan/internal/testkit/testmodel"
	"github.com/keyplan/keyplan/patterns"
	"github.com/keyplan/keyplan/patterns/model"
)

// projModel reads every kind of key-encoded attribute from INCLUDE
// indexes (each pattern's returns names attributes its index keys hold,
// which the planner does not project): numbers below zero and at the
// bounds, times, booleans, strings with '#' and '%'.
const projModel = `table: Proj
entities:
  Doc:
    id: [docId]
    attributes:
      docId: {type: string, maxLength: 64}
      owner: {type: string, maxLength: 64}
      score: {type: number, min: -1000, max: 1000}
      at: time
      flag: bool
      title: {type: string, maxLength: 64}
      body: {type: string, maxLength: 200}
patterns:
  GetDoc:  {get: Doc}
  ByOwner: {query: Doc, where: [owner], sort: score desc, returns: [docId, owner, score, title]}
  ByFlag:  {query: Doc, where: [flag], sort: at, returns: [docId, at, flag, score]}
  ByTitle: {get: Doc, where: [title], unique: true, returns: [docId, title, owner]}
`

// projDocs: ids that are prefixes of each other and hold '#' and '%',
// equal sort values, the number bounds, the first and last times.
var projDocs = []Values{
	{"docId": "a", "owner": "o#1", "score": -1000, "at": "0001-01-01T00:00:00Z", "flag": true, "title": "t#1", "body": "b"},
	{"docId": "ab", "owner": "o#1", "score": 1000, "at": "9999-12-31T23:59:59.999Z", "flag": false, "title": "t%1", "body": "b"},
	{"docId": "a#b", "owner": "o#1", "score": -1, "at": "2026-01-02T03:04:05.678+02:00", "flag": true, "title": "t%231", "body": "b"},
	{"docId": "a%b", "owner": "o#1", "score": 0, "at": "2026-01-02T01:04:05.678Z", "flag": true, "title": "%", "body": "b"},
	{"docId": "%23", "owner": "o", "score": 0, "at": "2026-01-02T01:04:05.679Z", "flag": false, "title": "#", "body": "b"},
	{"docId": "a%", "owner": "o#1", "score": 1, "at": "2026-01-02T01:04:05Z", "flag": true, "title": "a b", "body": "b"},
	{"docId": strings.Repeat("z", 64), "owner": "o#1", "score": 999, "at": "2000-02-29T12:00:00Z", "flag": false, "title": strings.Repeat("%", 64), "body": "b"},
	{"docId": "é #ü", "owner": "o", "score": -999, "at": "1970-01-01T00:00:00Z", "flag": true, "title": "é", "body": "b"},
}

func projDesign(t testing.TB, keys model.IndexKeys) *patterns.Design {
	t.Helper()
	m, err := model.Parse("proj.yaml", []byte(projModel))
	if err != nil {
		t.Fatal(err)
	}
	d, err := patterns.PlanWith(m, patterns.Options{IndexKeys: keys})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// sameValue reports whether a value read back is the one written: the
// same key encoding (exact: ids, numbers, times to the millisecond) and
// the type the runtime reads each kind as.
func sameValue(a *model.Attribute, got, want any) bool {
	switch got.(type) {
	case string, int64, time.Time, bool:
	default:
		return false
	}
	g, err1 := a.EncodeKey(got)
	w, err2 := a.EncodeKey(want)
	return err1 == nil && err2 == nil && g == w
}

// stored keeps of an item what the index of pp stores: the table's keys,
// the index's, and its projection (what DynamoDB returns from it, however
// much more an engine returns).
func storedOn(tbl *Table, pp *patterns.PatternPlan, raw map[string]types.AttributeValue) map[string]types.AttributeValue {
	if pp.Index == model.BaseIndex {
		return raw
	}
	ix := tbl.d.Index(pp.Index)
	keep := map[string]types.AttributeValue{}
	for k, v := range raw {
		if k == tbl.d.PK || k == tbl.d.SK || slices.Contains(ix.KeyAttributes(), k) || stores(ix, k) {
			keep[k] = v
		}
	}
	return keep
}

// A read from an index that does not store what the pattern returns gets
// it from the keys, exactly; it never asks the index for it (DynamoDB
// refuses: "Global secondary index GSI2 does not project [rating]", the
// README's own example on DynamoDB Local). What each read must return is
// worked out from the values written, never from keys. With native keys
// (ByOwner's, ByTitle's; ByFlag's stays synthetic: a bool is no key
// type) the key attributes are the index's own.
func TestReadsReturnWhatTheIndexDoesNotStore(t *testing.T) {
	for _, keys := range []model.IndexKeys{model.IndexKeysSynthetic, model.IndexKeysAuto} {
		t.Run(string(keys), func(t *testing.T) { readsReturnWhatTheIndexDoesNotStore(t, keys) })
	}
}

func readsReturnWhatTheIndexDoesNotStore(t *testing.T, keys model.IndexKeys) {
	d := projDesign(t, keys)
	needsNative(t, d)
	tbl := fresh(t, d)
	ctx := context.Background()
	for _, v := range projDocs {
		if err := tbl.Create(ctx, "Doc", maps.Clone(v)); err != nil {
			t.Fatalf("%s: %v", v["docId"], err)
		}
	}
	e := tbl.m.Entity("Doc")
	byID := map[string]Values{}
	for _, v := range projDocs {
		byID[v["docId"].(string)] = v
	}
	check := func(t *testing.T, pattern string, items []Item, want []string) {
		t.Helper()
		p, pp := tbl.m.Pattern(pattern), d.Pattern(pattern)
		var got []string
		for _, it := range items {
			id, _ := it.Values["docId"].(string)
			got = append(got, id)
			written := byID[id]
			for _, a := range p.Returns {
				if !sameValue(e.Attr(a), it.Values[a], written[a]) {
					t.Errorf("%s: %q.%s = %#v, written %#v", pattern, id, a, it.Values[a], written[a])
				}
			}
			// As DynamoDB returns it (an engine may return more).
			_, v, err := tbl.Decode(storedOn(tbl, pp, it.Raw))
			if err != nil {
				t.Fatal(err)
			}
			for _, a := range p.Returns {
				if !sameValue(e.Attr(a), v[a], written[a]) {
					t.Errorf("%s: %q.%s from what the index stores = %#v, written %#v", pattern, id, a, v[a], written[a])
				}
			}
		}
		sort.Strings(got)
		sort.Strings(want)
		if !slices.Equal(got, want) {
			t.Errorf("%s read %q, want %q", pattern, got, want)
		}
	}
	where := func(attr string, x any) []string {
		var ids []string
		for _, v := range projDocs {
			if v[attr] == x {
				ids = append(ids, v["docId"].(string))
			}
		}
		return ids
	}
	all := func(pattern string, params Params) []Item {
		var items []Item
		for it, err := range tbl.All(ctx, pattern, Request{Params: params, Limit: 2}) {
			if err != nil {
				t.Fatalf("%s(%v): %v", pattern, params, err)
			}
			items = append(items, it)
		}
		return items
	}
	for _, owner := range []string{"o#1", "o", "o#"} {
		items := all("ByOwner", Params{"owner": owner})
		check(t, "ByOwner", items, where("owner", owner))
		for i := 1; i < len(items); i++ {
			if items[i-1].Values["score"].(int64) < items[i].Values["score"].(int64) {
				t.Errorf("ByOwner(%s): score %v before %v", owner, items[i-1].Values["score"], items[i].Values["score"])
			}
		}
	}
	for _, flag := range []bool{true, false} {
		items := all("ByFlag", Params{"flag": flag})
		check(t, "ByFlag", items, where("flag", flag))
		for i := 1; i < len(items); i++ {
			if items[i-1].Values["at"].(time.Time).After(items[i].Values["at"].(time.Time)) {
				t.Errorf("ByFlag(%v): %v before %v", flag, items[i-1].Values["at"], items[i].Values["at"])
			}
		}
	}
	for _, v := range projDocs {
		it, err := tbl.Get(ctx, "ByTitle", Params{"title": v["title"]})
		if err != nil {
			t.Fatalf("ByTitle(%q): %v", v["title"], err)
		}
		var items []Item
		if it != nil {
			items = []Item{*it}
		}
		check(t, "ByTitle", items, where("title", v["title"]))
	}
}

// Every pattern of every model keyplan ships or tests with asks an index
// only for what it stores, and gets the rest of what it returns from the
// keys that index returns.
func TestReadsAskOnlyForWhatTheIndexStores(t *testing.T) {
	models := map[string]string{"proj.yaml": projModel}
	blog, _ := filepath.Glob("../../lambdas/internal/stream/testdata/*.yaml")
	for _, f := range slices.Concat(testmodel.Files(t), blog) {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		models[f] = string(src)
	}
	shop := models["../../"+evolvetest.ShopModel]
	models["ShopV2"] = evolvetest.ShopV2(shop)
	for _, ed := range evolvetest.ShopEdits {
		if !ed.Refused {
			shop = ed.Apply(shop)
			models["shop edit "+ed.Name] = shop
		}
	}
	decoded := 0
	for _, name := range slices.Sorted(maps.Keys(models)) {
		src := models[name]
		m, err := model.Parse(name, []byte(src))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for _, keys := range []model.IndexKeys{model.IndexKeysSynthetic, model.IndexKeysAuto} {
			decoded += asksOnlyForWhatItStores(t, name+" ("+string(keys)+")", m, keys)
		}
	}
	if decoded == 0 {
		t.Error("no model returns an attribute from the keys: the test tests nothing")
	}
}

// asksOnlyForWhatItStores checks one model's reads; it returns how many
// attributes they decode from keys.
func asksOnlyForWhatItStores(t *testing.T, name string, m *model.Model, keys model.IndexKeys) (decoded int) {
	d, err := patterns.PlanWith(m, patterns.Options{IndexKeys: keys})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	tbl := New(d, nil, "Tbl")
	for _, pp := range d.Patterns {
		if pp.Index == model.BaseIndex {
			continue
		}
		p, ix := m.Pattern(pp.Name), d.Index(pp.Index)
		if len(p.Returns) == 0 {
			if ix.Projection != patterns.ProjectAll {
				t.Errorf("%s: %s reads whole items from %s, which is %s", name, pp.Name, ix.Name, ix.Projection)
			}
			continue
		}
		asked := tbl.projected(p, pp)
		for _, a := range asked {
			if a != d.PK && a != d.SK && !slices.Contains(ix.KeyAttributes(), a) && !stores(ix, a) {
				t.Errorf("%s: %s asks %s (%s) for %s", name, pp.Name, ix.Name, ix.Projection, a)
			}
		}
		for _, entity := range pp.Entities {
			ek := d.Entity(entity)
			var keyed []string
			for _, k := range []*patterns.EntityKey{ek.Key(model.BaseIndex), ek.Key(ix.Name)} {
				if k != nil {
					keyed = slices.Concat(keyed, k.PK.Attrs(), k.SK.Attrs())
				}
			}
			for _, a := range slices.Concat(p.Returns, pp.Verify) {
				if m.Entity(entity).Attr(a) == nil || slices.Contains(asked, a) {
					continue
				}
				if !slices.Contains(keyed, a) {
					t.Errorf("%s: %s returns %s.%s, which %s neither stores nor holds in its keys", name, pp.Name, entity, a, ix.Name)
					continue
				}
				decoded++
				t.Logf("%s: %s decodes %s.%s from the keys (%s is %s)", name, pp.Name, entity, a, ix.Name, ix.ProjectionText())
			}
		}
	}
	return decoded
}

// A hand-made key may end in a literal glued to a value ("{tag}Z"): the
// value is what precedes that suffix, even when the value holds the
// literal's text ("aZbZ"), so a KEYS_ONLY read decodes it exactly.
func TestDecodeValueBeforeATrailingLiteral(t *testing.T) {
	m, err := model.Parse("glued.yaml", []byte(`table: Glued
entities:
  Doc:
    id: [docId]
    attributes:
      docId: {type: string, maxLength: 20}
      tag: {type: string, maxLength: 20}
    keys:
      table: {pk: "DOC#{docId}", sk: "D"}
      GSI1: {pk: "TAGS", sk: "{tag}Z"}
patterns:
  GetDoc: {get: Doc}
  ByTag: {query: Doc, sort: tag, returns: [tag]}
`))
	if err != nil {
		t.Fatal(err)
	}
	d, err := patterns.Plan(m)
	if err != nil {
		t.Fatal(err)
	}
	tbl := New(d, nil, "Tbl")
	for _, tag := range []string{"aZbZ", "Z", "ZZ", "a", "a#Z", "%5A"} {
		item, err := tbl.Item("Doc", Values{"docId": "d1", "tag": tag})
		if err != nil {
			t.Fatal(err)
		}
		_, v, err := tbl.Decode(storedOn(tbl, d.Pattern("ByTag"), item))
		if err != nil || v["tag"] != tag {
			t.Errorf("tag %q from %s=%s: decoded %#v, %v", tag, "GSI1SK", s(item, "GSI1SK"), v["tag"], err)
		}
	}
}

package migrate

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/keyplan/keyplan/internal/testkit/keyplantest"
	"github.com/keyplan/keyplan/patterns"
	"github.com/keyplan/keyplan/patterns/dynamo"
	"github.com/keyplan/keyplan/patterns/model"
)

// written is what putting one item costs in bytes, as DynamoDB sizes
// items (attribute names and values): the item in the table, and the
// copy each GSI it lands on stores (its keys, the table's, and what the
// index projects). An item lacking any key attribute of an index is not
// on it: for a synthetic index, GSInPK/GSInSK; for a native one, its
// attributes.
func written(d *patterns.Design, item map[string]types.AttributeValue) (table, indexes int) {
	size := func(names []string) int {
		n := 0
		for _, k := range names {
			if v, ok := item[k]; ok {
				n += len(k) + avSize(v)
			}
		}
		return n
	}
	var all []string
	for k := range item {
		all = append(all, k)
	}
	table = size(all)
	for _, ix := range d.Indexes {
		keys := ix.KeyAttributes()
		if slices.ContainsFunc(keys, func(k string) bool { return item[k] == nil }) {
			continue
		}
		names := append([]string{d.PK, d.SK}, keys...)
		switch ix.Projection {
		case patterns.ProjectAll:
			names = all
		case patterns.ProjectInclude:
			names = append(names, ix.NonKeyAttributes...)
		}
		slices.Sort(names)
		indexes += size(slices.Compact(names))
	}
	return table, indexes
}

// BenchmarkBytesWritten: bytes written per example item (the table's
// item, and with every GSI copy), each example model's GSIs keyed
// synthetic and native (indexKeys: auto), with the time and allocations
// of building the items (make bench).
func BenchmarkBytesWritten(b *testing.B) {
	files, _ := filepath.Glob("../../../examples/*.yaml")
	for _, f := range files {
		for _, keys := range []model.IndexKeys{model.IndexKeysSynthetic, model.IndexKeysAuto} {
			d := keyplantest.Keyed(b, f, keys)
			name := filepath.Base(f) + "/" + map[model.IndexKeys]string{model.IndexKeysSynthetic: "synthetic", model.IndexKeysAuto: "native"}[keys]
			b.Run(name, func(b *testing.B) {
				tbl := dynamo.New(d, nil, d.Table)
				examples := d.Model().Examples.Items
				b.ReportAllocs()
				var tableBytes, indexBytes, items int
				for b.Loop() {
					tableBytes, indexBytes, items = 0, 0, 0
					for _, it := range examples {
						item, err := tbl.Item(it.Entity, it.Values)
						if err != nil {
							b.Fatal(err)
						}
						t, x := written(d, item)
						tableBytes, indexBytes, items = tableBytes+t, indexBytes+x, items+1
					}
				}
				b.ReportMetric(float64(tableBytes)/float64(items), "table-B/item")
				b.ReportMetric(float64(tableBytes+indexBytes)/float64(items), "written-B/item")
			})
		}
	}
}

// The measure itself: a synthetic item is bigger than the native one by
// exactly its GSInPK/GSInSK attributes, in the table and in each index
// copy, and an item missing a native key attribute is on no native index.
func TestBytesWrittenCountsKeyAttributes(t *testing.T) {
	syn := keyplantest.Keyed(t, "../../../examples/tracker.yaml", model.IndexKeysSynthetic)
	nat := keyplantest.Keyed(t, "../../../examples/tracker.yaml", model.IndexKeysAuto)
	v := dynamo.Values{"tenantId": "acme", "taskId": "t1", "title": "Ship it", "status": "open", "priority": 2, "assigneeId": "ana",
		"dueDate": "2026-07-01T09:00:00Z", "createdAt": "2026-06-01T10:00:00Z"}
	si, err := dynamo.New(syn, nil, "T").Item("Task", v)
	if err != nil {
		t.Fatal(err)
	}
	ni, err := dynamo.New(nat, nil, "T").Item("Task", v)
	if err != nil {
		t.Fatal(err)
	}
	extra := 0
	for k, x := range si {
		if _, ok := ni[k]; !ok {
			extra += len(k) + avSize(x)
		}
	}
	st, sx := written(syn, si)
	nt, nx := written(nat, ni)
	if extra == 0 || st-nt != extra {
		t.Errorf("table bytes: synthetic %d, native %d; the synthetic keys are %d bytes", st, nt, extra)
	}
	// Both GSIs project ALL: each copy holds the synthetic keys too.
	if sx-nx != 2*extra {
		t.Errorf("index bytes: synthetic %d, native %d; want %d more", sx, nx, 2*extra)
	}
	delete(ni, "assigneeId")
	if _, x := written(nat, ni); x*2 != nx-2*len("assigneeId")-2*len("ana") {
		t.Errorf("without assigneeId the task is still counted on GSI1: %d index bytes (with it %d)", x, nx)
	}
}

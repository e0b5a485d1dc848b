package adopt

import (
	"fmt"
	"strings"

	"github.com/keyplan/keyplan/patterns"
)

// FromLive is the inference's input from a live table (keyplan import
// table): its keys, GSIs and TTL as DynamoDB describes them, the items a
// sample read (complete when they are the whole table; cut names the
// partitions the sample's budget may have split), and what the table has
// that a keyplan model cannot hold, said in the notes.
func FromLive(lt *patterns.LiveTable, items []patterns.LiveItem, complete bool, cut []string) *Table {
	t := &Table{Name: lt.Name, PK: lt.PK, SK: lt.SK, Types: map[string]string{}, Items: items,
		Source: "table " + lt.Name, Origin: fmt.Sprintf("table %s (%s)", lt.Name, sampled(len(items), complete, lt.Items)), Noun: "the table",
		TTL: lt.TTL, TTLKnown: true, Expect: true, Complete: complete}
	for _, ix := range lt.Indexes {
		if len(ix.PartitionKeys) != 1 || len(ix.SortKeys) > 1 {
			continue // Unheld: keyed on several attributes a side
		}
		g := Index{Name: ix.Name, PK: ix.PartitionKeys[0], Projection: ix.Projection, NonKeyAttributes: ix.NonKeyAttributes}
		if len(ix.SortKeys) == 1 {
			g.SK = ix.SortKeys[0]
		}
		t.Indexes = append(t.Indexes, g)
	}
	for _, u := range Unheld(lt) {
		t.Notes = append(t.Notes, Note{Subject: "table " + lt.Name, Text: u})
	}
	switch {
	case len(items) == 0:
		t.Notes = append(t.Notes, Note{Subject: "table " + lt.Name, Text: "the sample holds no item: no entity can be inferred; write the entities and their keys: by hand (docs/model.md)"})
	case !complete:
		t.Notes = append(t.Notes, Note{Subject: "table " + lt.Name, Guess: true, Text: fmt.Sprintf("the sample is %d of some %d items: an entity or a key shape the sample missed is not in the model; a larger --items reads more; only the gets have examples.expect (a query's answer from a part of the table may lack items the table holds: add its expectations by hand from items you know)", len(items), lt.Items)})
	}
	if len(cut) > 0 {
		t.Notes = append(t.Notes, Note{Subject: "table " + lt.Name, Text: fmt.Sprintf("the sample may hold only part of %d partition(s) (%s): their collections' sizes are not what the table holds", len(cut), strings.Join(cut, ", "))})
	}
	return t
}

func sampled(n int, complete bool, estimate int64) string {
	if complete {
		return fmt.Sprintf("all %d items", n)
	}
	return fmt.Sprintf("a sample of %d of some %d items", n, estimate)
}

// Unheld says, one line each, what a live table has that a keyplan model
// cannot hold: a base key other than PK/SK strings, a GSI keyed otherwise
// than keyplan keys one (GSI<n>PK/GSI<n>SK strings, or native keys of the
// entities' attributes), an LSI. The construct refuses to adopt a table
// while any is there (Lock.Adopted.Unheld); keyplan diff --live reports
// them as drift.
func Unheld(lt *patterns.LiveTable) []string {
	var out []string
	if lt.PK != patterns.TablePK || lt.SK != patterns.TableSK || lt.Types[lt.PK] != "S" || lt.Types[lt.SK] != "S" {
		out = append(out, fmt.Sprintf("its base key is %s/%s (%s, %s); keyplan keys a table %s/%s, both strings: the model's keys hold the same values under keyplan's names, which is another table (migrate the items into one)",
			lt.PK, orNone(lt.SK), lt.Types[lt.PK], orNone(lt.Types[lt.SK]), patterns.TablePK, patterns.TableSK))
	}
	for _, ix := range lt.Indexes {
		pk, sk := patterns.IndexKeyNames(ix.Name)
		if len(ix.PartitionKeys) == 1 && ix.PartitionKeys[0] == pk && len(ix.SortKeys) == 1 && ix.SortKeys[0] == sk && lt.Types[pk] == "S" && lt.Types[sk] == "S" {
			continue
		}
		out = append(out, fmt.Sprintf("GSI %s is keyed %s; keyplan keys it %s/%s (strings): the model writes its keys under those names, so the construct cannot adopt it as it is", ix.Name, ix.KeyText(), pk, sk))
	}
	for _, ix := range lt.Local {
		out = append(out, fmt.Sprintf("local secondary index %s (%s) is not held: keyplan designs no LSI, and an LSI can only be made with its table", ix.Name, ix.KeyText()))
	}
	return out
}

// Lock is the lock of the table as deployed: the model's design (it
// must plan) as the table's first, with the table's settings recorded as
// adopted (Lock.Adopted), so that keyplan diff --live compares them.
func (im *Imported) Lock(lt *patterns.LiveTable) (*patterns.Lock, error) {
	m, err := patterns.Parse(lt.Name+".yaml", im.YAML)
	if err != nil {
		return nil, err
	}
	d, err := patterns.Plan(m)
	if err != nil {
		return nil, err
	}
	lk := patterns.NewLock(d)
	lk.Adopted = patterns.AdoptedOf(lt)
	lk.Adopted.Unheld = Unheld(lt)
	return lk, nil
}

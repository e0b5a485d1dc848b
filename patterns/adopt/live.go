package adopt

import (
	"bytes"
	"fmt"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/keyplan/keyplan/patterns"
	"github.com/keyplan/keyplan/patterns/model"
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
	own := 0
	t.Items = slices.DeleteFunc(slices.Clone(items), func(it patterns.LiveItem) bool {
		v := it[lt.PK]
		if v.Type == "S" && strings.HasPrefix(v.Text, patterns.ReservedPrefix) {
			own++
			return true
		}
		return false
	})
	if own > 0 {
		t.Notes = append(t.Notes, Note{Subject: "table " + lt.Name, Text: fmt.Sprintf("%d item(s) are keyplan's own bookkeeping (partition keys starting with %s: unique values' guard items, the handlers' markers, migrate's records): left out; a unique: alternate key they guard is not inferred, declare it", own, patterns.ReservedPrefix)})
	}
	if lt.Types[lt.PK] != "S" || lt.SK != "" && lt.Types[lt.SK] != "S" {
		t.Items = nil // no key shape to read in bytes or numbers
		t.Notes = append(t.Notes, Note{Subject: "table " + lt.Name, Text: fmt.Sprintf("its keys are not strings (%s, %s): no entity is inferred from them", lt.Types[lt.PK], orNone(lt.Types[lt.SK]))})
	}
	for _, u := range Unheld(lt) {
		t.Notes = append(t.Notes, Note{Subject: "table " + lt.Name, Text: u})
	}
	if !complete {
		t.Notes = append(t.Notes, Note{Subject: "table " + lt.Name, Question: true, Text: fmt.Sprintf("the sample is %d of some %d items: which entities and key shapes did it miss? A larger --items reads more; only the gets have examples.expect (a query's answer from a part of the table may lack items the table holds: add its expectations by hand from items you know)", len(items), lt.Items)})
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
	if lt.PK != model.TablePK || lt.SK != model.TableSK || lt.Types[lt.PK] != "S" || lt.Types[lt.SK] != "S" {
		out = append(out, fmt.Sprintf("its base key is %s/%s (%s, %s); keyplan keys a table %s/%s, both strings: the model's keys hold the same values under keyplan's names, which is another table (migrate the items into one)",
			lt.PK, orNone(lt.SK), lt.Types[lt.PK], orNone(lt.Types[lt.SK]), model.TablePK, model.TableSK))
	}
	for _, ix := range lt.Indexes {
		pk, sk := model.IndexKeyNames(ix.Name)
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
	m, err := model.Parse(lt.Name+".yaml", im.YAML)
	if err != nil {
		return nil, err
	}
	d, err := patterns.Plan(m)
	if err != nil {
		return nil, err
	}
	if errs := d.Errors(); len(errs) > 0 {
		return nil, fmt.Errorf("no lock written: the model's design has %d error(s) (keyplan check): fix the model, then keyplan lock records it, without the table's settings (docs/adopt.md)", len(errs))
	}
	lk := patterns.NewLock(d)
	lk.Adopted = patterns.AdoptedOf(lt)
	lk.Adopted.Unheld = Unheld(lt)
	return lk, nil
}

// raw is the model of a live table the sample gives no entity of (it is
// empty): one entity, Item, whose keys are the key attributes' values as
// they are (opaque: {pkValue}), so that any item the table holds fits it
// and the lock is the table's; what its entities are is the question
// the model asks.
func (im *importer) raw() (*Imported, error) {
	im.notes = append(im.notes, Note{Subject: "entities", Question: true, Text: "nothing in the sample says what the table's entities are (it holds no item, or none whose keys keyplan reads): the model has one, Item, keyed by the key values as they are; what are they? Replace it with them and their keys: templates (docs/model.md)"})
	e := &entity{name: "Item", keys: map[string][2]string{}}
	ents, attrs, keys := mapping(0), mapping(0), mapping(0)
	en := mapping(0)
	pats := mapping(0)
	id := []string{}
	for i, ix := range im.indexes {
		pk, sk := strings.ToLower(ix.pk)+"Value", strings.ToLower(ix.sk)+"Value"
		opt := i > 0 // a GSI's key: sparse by construction
		kn := mapping(yaml.FlowStyle)
		add(kn, "pk", quoted("{"+pk+"}"))
		if ix.sk == "" {
			add(kn, "sk", quoted(strings.ToUpper(e.name)))
		} else {
			add(kn, "sk", quoted("{"+sk+"}"))
		}
		add(keys, ix.name, kn)
		for _, a := range []string{pk, sk} {
			if a == "Value" {
				continue
			}
			if opt {
				n := mapping(yaml.FlowStyle)
				add(n, "type", scalar("string"))
				add(n, "optional", scalar("true"))
				add(attrs, a, n)
			} else {
				add(attrs, a, scalar("string"))
				id = append(id, a)
			}
		}
		q := mapping(yaml.FlowStyle)
		if i == 0 {
			add(q, "get", scalar(e.name))
			add(pats, "Get"+e.name, q)
			continue
		}
		add(q, "query", scalar(e.name))
		add(q, "where", seq([]string{pk}))
		if ix.sk != "" {
			add(q, "sort", scalar(sk))
		}
		add(pats, e.name+"On"+ix.name, q)
	}
	add(en, "id", seq(id))
	add(en, "attributes", attrs)
	add(en, "keys", keys)
	add(ents, e.name, en)
	doc := mapping(0)
	add(doc, "table", scalar(im.t.Name))
	add(doc, "entities", ents)
	add(doc, "patterns", pats)
	head := []string{fmt.Sprintf("Imported by keyplan from %s.", im.t.Origin)}
	for _, n := range im.notes {
		head = append(head, n.String())
	}
	doc.HeadComment = strings.Join(head, "\n")
	var b bytes.Buffer
	if err := encodeYAML(&b, doc); err != nil {
		return nil, err
	}
	return &Imported{YAML: b.Bytes(), Notes: im.notes}, nil
}

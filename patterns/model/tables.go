package model

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
)

// A model of several tables: `tables:` maps each table's name to its
// settings (the fields a model of one table sets at its top: indexKeys,
// headroom, consistency, principals), and each entity says which table
// holds it (`table: NAME`). The model is split into one model per table
// as soon as it is read (Model.Tables), each then validated and planned
// as a model of one table is: its own design, lock, construct table and
// client. A read pattern reads one table (a Query reads one); a write
// writes one table.

// tableFields are the settings of one table under tables:.
var tableFields = []string{"indexKeys", "headroom", "consistency", "principals"}

// tables decodes tables: NAME to settings, in declaration order.
func (l *loader) tables(n *yaml.Node) []*Model {
	var out []*Model
	for _, tf := range l.fields(n, "tables", nil) {
		path := join("tables", tf.key)
		t := &Model{Table: tf.key, Pos: tf.keyAt, FieldPos: map[string]Pos{}}
		if deref(tf.val).Tag != "!!null" { // Orders: (no settings)
			for _, f := range l.fields(tf.val, path, tableFields) {
				if f.key == "indexKeys" {
					t.IndexKeys, t.IndexKeysPos = l.indexKeys(f.val), pos(f.val)
					continue
				}
				l.setting(t, f)
			}
		}
		out = append(out, t)
	}
	if len(out) == 0 {
		l.add(pos(n), "tables", "expected at least one table: NAME to its settings (indexKeys, headroom, consistency, principals)")
	}
	return out
}

// TableNames are the model's tables: Tables' names, or Table.
func (m *Model) TableNames() []string {
	if len(m.Tables) == 0 {
		return []string{m.Table}
	}
	out := make([]string, len(m.Tables))
	for i, t := range m.Tables {
		out[i] = t.Table
	}
	return out
}

// validateEntityTables checks, in a model of one table, that an entity's
// table: names it.
func (m *Model) validateEntityTables(l *errorList) {
	for _, e := range m.Entities {
		if e.Table != "" && e.Table != m.Table {
			l.add(e.PosOf("table"), "entities."+e.Name+".table", "unknown table %q; the model is one table, %q (declare tables: to hold entities in several)", e.Table, m.Table)
		}
	}
}

// splitTables validates a model of several tables: each entity in a
// declared table, each table holding one, no read, write, stream or
// parent across two tables; then it fills each of m.Tables with its
// entities, patterns, writes and examples and validates it as a model of
// one table.
func (m *Model) splitTables(file string) error {
	l := &errorList{file: file}
	if m.Table != "" {
		l.add(m.Pos, "table", "give either table (one table) or tables (several), not both: with tables, each table is named there")
	}
	for _, f := range []string{"indexKeys", "headroom", "consistency", "principals"} {
		if at, set := m.FieldPos[f]; set || (f == "indexKeys" && m.IndexKeys != "") {
			if f == "indexKeys" {
				at = m.IndexKeysPos
			}
			l.add(at, f, "with tables, a table's settings are under its name (tables: {NAME: {%s: ...}}), not at the top", f)
		}
	}
	byName := map[string]*Model{}
	folded := map[string]*Model{}
	names := m.TableNames()
	for _, t := range m.Tables {
		path := "tables." + t.Table
		if prev := folded[strings.ToLower(t.Table)]; prev != nil {
			l.add(t.Pos, path, "two tables with one name: %q and %q (line %d) differ only in case; their lock files would be one file where names are not case-sensitive", prev.Table, t.Table, prev.Pos.Line)
			continue
		}
		folded[strings.ToLower(t.Table)] = t
		byName[t.Table] = t
		t.Entities, t.Patterns, t.Writes, t.Examples, t.Source = nil, nil, nil, nil, m.Source
	}
	tableOf := map[string]string{} // entity → table
	for _, e := range m.Entities {
		path := "entities." + e.Name + ".table"
		switch {
		case e.Table == "" && len(m.Tables) == 1:
			tableOf[e.Name] = m.Tables[0].Table
		case e.Table == "":
			l.add(e.Pos, path, "missing; the model declares tables %s: say which holds %s (table: %s)", list(names), e.Name, names[0])
		case byName[e.Table] == nil:
			l.unknown(e.PosOf("table"), path, "table", e.Table, names)
		default:
			tableOf[e.Name] = e.Table
		}
	}
	for _, e := range m.Entities {
		if t := byName[tableOf[e.Name]]; t != nil {
			t.Entities = append(t.Entities, e)
		}
	}
	for _, t := range m.Tables {
		if len(t.Entities) == 0 && byName[t.Table] == t {
			l.add(t.Pos, "tables."+t.Table, "the table holds no entity: give an entity table: %s, or remove the table", t.Table)
		}
	}
	if len(l.errs) > 0 {
		return l.err()
	}
	// across tables: the first table of the names given, the others
	across := func(entities []string) (string, []string) {
		first, others := "", []string(nil)
		for _, en := range entities {
			t, ok := tableOf[en]
			if !ok {
				continue // unknown: the table's own validation names it
			}
			if first == "" {
				first = t
			} else if t != first && !slices.Contains(others, t) {
				others = append(others, t)
			}
		}
		return first, others
	}
	in := func(en string) string { return fmt.Sprintf("%s (table %s)", en, tableOf[en]) }
	for _, e := range m.Entities {
		path := "entities." + e.Name
		if _, known := tableOf[e.Within]; known && tableOf[e.Within] != tableOf[e.Name] {
			l.add(e.PosOf("within"), path+".within", "%s lives within %s: an item collection is one table's partition; put them in one table, or drop within", in(e.Name), in(e.Within))
		}
		for _, c := range e.Copies {
			if _, known := tableOf[c.FromEntity]; known && tableOf[c.FromEntity] != tableOf[e.Name] {
				l.add(c.Pos, path+".copies."+c.Attr, "%s copies %s.%s: the fanout handler keeps copies within one table's stream; put them in one table", in(e.Name), in(c.FromEntity), c.FromAttr)
			}
		}
		for _, c := range e.Counters {
			if _, known := tableOf[c.Child]; known && tableOf[c.Child] != tableOf[e.Name] {
				l.add(c.Pos, path+".counters."+c.Attr, "%s counts %s: the counters handler counts within one table's stream; put them in one table", in(e.Name), in(c.Child))
			}
		}
	}
	patternTable := map[string]string{}
	for _, p := range m.Patterns {
		first, others := across(p.Entities)
		if len(others) > 0 {
			l.add(p.PosOf(string(p.Op)), "patterns."+p.Name+"."+string(p.Op), "%s reads tables %s and %s in one %s: a Query reads one table; read each table with its own pattern, or hold %s in one table",
				p.Name, first, strings.Join(others, ", "), p.Op, strings.Join(p.Entities, " and "))
			continue
		}
		patternTable[p.Name] = cmp.Or(first, names[0])
		byName[patternTable[p.Name]].Patterns = append(byName[patternTable[p.Name]].Patterns, p)
	}
	writeTable := map[string]string{}
	for _, w := range m.Writes {
		if _, dup := patternTable[w.Name]; dup {
			l.add(w.Pos, "writes."+w.Name, "duplicate name %q: read and write patterns share one namespace (GrantPatterns takes both), across tables too", w.Name)
			continue
		}
		var ens []string
		for _, s := range append([]*Write{w}, w.Steps...) {
			if s.Entity != "" {
				ens = append(ens, s.Entity)
			}
		}
		first, others := across(ens)
		if len(others) > 0 {
			l.add(w.Pos, "writes."+w.Name, "%s writes tables %s and %s in one write pattern: a write pattern is one table's; give each table's part a write pattern of its own and run them as one transaction with dynamo.TransactTables (DynamoDB takes one across tables of one account and Region), or hold its entities in one table",
				w.Name, first, strings.Join(others, ", "))
			continue
		}
		writeTable[w.Name] = cmp.Or(first, names[0])
		byName[writeTable[w.Name]].Writes = append(byName[writeTable[w.Name]].Writes, w)
	}
	if len(l.errs) > 0 {
		return l.err()
	}
	if ex := m.Examples; ex != nil {
		of := func(t string) *Examples {
			tm := byName[cmp.Or(t, names[0])]
			if tm.Examples == nil {
				tm.Examples = &Examples{Now: ex.Now}
			}
			return tm.Examples
		}
		for _, it := range ex.Items {
			of(tableOf[it.Entity]).Items = append(of(tableOf[it.Entity]).Items, it)
		}
		for _, s := range ex.Steps {
			of(writeTable[s.Write]).Steps = append(of(writeTable[s.Write]).Steps, s)
		}
		for _, x := range ex.Expect {
			of(patternTable[x.Pattern]).Expect = append(of(patternTable[x.Pattern]).Expect, x)
		}
	}
	for _, t := range m.Tables {
		if err := t.validate(file); err != nil {
			// each table's problems, in one list (errorList.err sorts it)
			if j, ok := err.(interface{ Unwrap() []error }); ok {
				for _, e := range j.Unwrap() {
					if x, ok := e.(*Error); ok {
						l.errs = append(l.errs, x)
					}
				}
			}
		}
	}
	return l.err()
}

// TableModel is the model of table name of a model that declares tables
// (validated: Model.Tables hold their entities once it is), or an error
// naming the tables it declares.
func (m *Model) TableModel(name string) (*Model, error) {
	if err := m.Validate(); err != nil {
		return nil, err
	}
	for _, t := range m.Tables {
		if t.Table == name {
			return t, nil
		}
	}
	return nil, fmt.Errorf("%s declares tables %s, not %q", cmp.Or(m.Source, "the model"), strings.Join(m.TableNames(), ", "), name)
}

package singletable

import (
	"fmt"
	"strings"

	"github.com/aws/aws-cdk-go/awscdk/v2/awsiam"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"

	"github.com/keyplan/keyplan/patterns/model"
)

// A model of several tables (tables:) is made as one Table construct per
// table: each table has its own design, lock, settings (billing, point-in-
// time recovery, replicas, a name: the reasons to split a model are
// settings that differ), stream handlers for its own entities, backfill
// job, alarms and dashboard, exactly as a model of one table does, so
// everything proven of one table holds of each. NewTables makes them
// all with the same props; New with Props.ModelTable makes one with its
// own.

// modelTable is the model of one table of m: m itself when it declares
// none (table must be ""), else its table named table.
func modelTable(m *model.Model, table string) (*model.Model, error) {
	switch {
	case len(m.Tables) == 0 && table != "" && table != m.Table:
		return nil, fmt.Errorf("Props.ModelTable %q: %s is one table, %s (ModelTable is for a model that declares tables)", table, modelName(m), m.Table)
	case len(m.Tables) == 0:
		return m, nil
	case table == "":
		return nil, fmt.Errorf("Props.ModelTable: %s declares tables %s: name the one this construct makes (singletable.NewTables makes each)", modelName(m), strings.Join(m.TableNames(), ", "))
	}
	return m.TableModel(table)
}

// Tables are the Table constructs of a model of several tables, one per
// table in the order the model declares them.
type Tables struct {
	constructs.Construct
	// Tables holds each table's construct (its id the table's name).
	Tables []*Table

	problems []string
}

// NewTables makes one Table per table the model declares (each with
// props and its ModelTable), under one construct id. A model of one
// table makes one Table, named by its table. props.ModelTable and
// props.TableName are refused (both name one table: make it with New).
func NewTables(scope constructs.Construct, id string, props *Props) *Tables {
	ts := &Tables{}
	constructs.NewConstruct_Override(ts, scope, jsii.String(id))
	ts.Node().AddValidation(&tablesValidation{ts})
	p := Props{}
	if props != nil {
		p = *props
	}
	if p.ModelTable != "" || p.TableName != "" {
		ts.problems = append(ts.problems, "NewTables: Props.ModelTable and Props.TableName name one table: make it with singletable.New")
		p.ModelTable, p.TableName = "", ""
	}
	m, err := p.Model, error(nil)
	if m == nil && p.ModelFile != "" {
		m, err = model.Load(p.ModelFile)
	}
	if m == nil || err != nil { // the table reports the model's problems
		ts.Tables = append(ts.Tables, New(ts, "Table", &p))
		return ts
	}
	for _, name := range m.TableNames() {
		q := p
		if len(m.Tables) > 0 {
			q.ModelTable = name
		}
		ts.Tables = append(ts.Tables, New(ts, name, &q))
	}
	return ts
}

// Table is the construct of the table of that name; nil when the model
// declares none of that name.
func (ts *Tables) Table(name string) *Table {
	for _, t := range ts.Tables {
		if t.Design != nil && t.Design.Table == name {
			return t
		}
	}
	return nil
}

// GrantPatterns grants the grantee the actions of the named read and
// write patterns, each on the table whose entities it reads or writes
// (Table.GrantPatterns: that table's ARN and its indexes' the patterns
// touch); a name no table has fails synthesis, naming it.
func (ts *Tables) GrantPatterns(grantee awsiam.IGrantable, names ...string) awsiam.Grant {
	var g awsiam.Grant
	byTable := map[*Table][]string{}
	var order []*Table
	for _, name := range names {
		t := ts.holding(name)
		if t == nil {
			ts.problems = append(ts.problems, fmt.Sprintf("GrantPatterns: no table has a pattern %q", name))
			continue
		}
		if byTable[t] == nil {
			order = append(order, t)
		}
		byTable[t] = append(byTable[t], name)
	}
	for _, t := range order {
		if x := t.GrantPatterns(grantee, byTable[t]...); g == nil {
			g = x
		} else {
			g = g.Combine(x)
		}
	}
	if g == nil {
		return notBuilt(grantee)
	}
	return g
}

// holding is the table whose model has the read or write pattern name.
func (ts *Tables) holding(name string) *Table {
	for _, t := range ts.Tables {
		if t.Design == nil {
			continue
		}
		m := t.Design.Model()
		if m.Pattern(name) != nil || m.Write(name) != nil {
			return t
		}
	}
	return nil
}

type tablesValidation struct{ ts *Tables }

func (v *tablesValidation) Validate() *[]*string {
	out := make([]*string, 0, len(v.ts.problems))
	for _, p := range v.ts.problems {
		out = append(out, jsii.String(p))
	}
	return &out
}

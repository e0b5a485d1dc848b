package singletable

import (
	"github.com/aws/aws-cdk-go/awscdk/v2/awsiam"
	"github.com/aws/jsii-runtime-go"

	"github.com/keyplan/keyplan/patterns/model"
)

// GrantPatterns grants exactly what the named patterns take
// (patterns.Lock.Access): for reads GetItem and/or Query, each only on
// the ARNs of the indexes its patterns read (the table's for the base
// table, a GSI's), one statement per set of actions
// (patterns.Access.Statements: GetItem on the table and Query on a GSI
// are two statements, never both actions on both); for writes their item
// actions (PutItem, UpdateItem,
// DeleteItem, ConditionCheckItem, BatchWriteItem) in a statement of their
// own, on the table's ARN alone; nothing else (plus kms:Decrypt with a
// customer managed key, and kms:Encrypt/GenerateDataKey for writes).
// During a migration that is what both designs' plans read. An unknown
// or unserved pattern fails synthesis.
func (t *Table) GrantPatterns(grantee awsiam.IGrantable, names ...string) awsiam.Grant {
	if !t.built() {
		return notBuilt(grantee)
	}
	a, err := t.Lock.Access(names...)
	if err != nil {
		t.problems = append(t.problems, "GrantPatterns: "+err.Error())
		return notBuilt(grantee)
	}
	var g awsiam.Grant
	add := func(actions []string, indexes ...string) {
		if x := t.grant(grantee, actions, indexes...); g == nil {
			g = x
		} else {
			g = g.Combine(x)
		}
	}
	for _, st := range a.Statements() {
		add(st.Actions, st.Indexes...)
	}
	if len(a.Writes) > 0 {
		add(a.Writes, model.BaseIndex)
	}
	t.grantObjects(grantee, names)
	if t.props.Encryption != nil && t.props.Encryption.Kind == CustomerManaged {
		t.Table.GrantOnKey(grantee, jsii.String("kms:Decrypt"))
		if len(a.Writes) > 0 {
			t.Table.GrantOnKey(grantee, jsii.String("kms:Encrypt"), jsii.String("kms:ReEncrypt*"), jsii.String("kms:GenerateDataKey*"))
		}
	}
	return g
}

// grant adds one statement: actions on the table's ARN and the named
// indexes' ARNs ("table" for the base table).
func (t *Table) grant(grantee awsiam.IGrantable, actions []string, indexes ...string) awsiam.Grant {
	var resources []*string
	for _, ix := range indexes {
		if ix == model.BaseIndex {
			resources = append(resources, t.Table.TableArn())
		} else {
			resources = append(resources, jsii.String(*t.Table.TableArn()+"/index/"+ix))
		}
	}
	return awsiam.Grant_AddToPrincipal(&awsiam.GrantOnPrincipalOptions{
		Grantee:      grantee,
		Actions:      jsii.Strings(actions...),
		ResourceArns: &resources,
	})
}

package singletable

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsdynamodb"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsiam"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"

	"github.com/keyplan/keyplan/patterns"
)

// TableNameEnv is the environment variable that carries the table's name
// to application code and stream handlers (patterns.TableNameEnv).
const TableNameEnv = patterns.TableNameEnv

// Table is a DynamoDB global table (CDK TableV2) synthesized from a
// keyplan design: keys, overloaded GSIs with their projections, TTL.
type Table struct {
	constructs.Construct
	// Table is the synthesized table; nil when the model could not be
	// used (synthesis then fails with the reason).
	Table awsdynamodb.TableV2
	// Design is the plan the table was built from; nil with Table.
	Design *patterns.Design
	// Handlers are the stream handlers the model called for.
	Handlers map[patterns.Handler]*StreamHandler

	props    Props
	problems []string
}

// New builds the table described by props. Every problem with the props,
// the model or the design's checks is collected and fails synthesis once,
// naming each (rule id, model file:line); warnings become CDK warnings,
// which `cdk synth --strict` fails on.
func New(scope constructs.Construct, id string, props *Props) *Table {
	t := &Table{}
	constructs.NewConstruct_Override(t, scope, jsii.String(id))
	if props != nil {
		t.props = *props
	}
	t.Node().AddValidation(&validation{t})
	m, err := t.model()
	if err != nil {
		t.fail(err)
		return t
	}
	d, err := patterns.Plan(m)
	if err != nil {
		t.fail(err)
		return t
	}
	t.Design = d
	t.annotate(d.Diagnostics)
	tp, problems := t.tableProps(d)
	t.problems = append(t.problems, problems...)
	if len(problems) > 0 {
		return t
	}
	t.Table = awsdynamodb.NewTableV2(t, jsii.String("Table"), tp)
	t.addHandlers(d)
	return t
}

func (t *Table) model() (*patterns.Model, error) {
	switch {
	case t.props.Model != nil:
		return t.props.Model, nil
	case t.props.ModelFile != "":
		return patterns.Load(t.props.ModelFile)
	}
	return nil, errors.New("singletable: Props.Model or Props.ModelFile is required")
}

// fail records every joined error as its own problem.
func (t *Table) fail(err error) {
	var joined interface{ Unwrap() []error }
	if errors.As(err, &joined) {
		for _, e := range joined.Unwrap() {
			t.problems = append(t.problems, e.Error())
		}
		return
	}
	t.problems = append(t.problems, err.Error())
}

// validation reports the collected problems when the construct tree is
// validated, before synthesis.
type validation struct{ t *Table }

func (v *validation) Validate() *[]*string {
	out := make([]*string, 0, len(v.t.problems))
	for _, p := range v.t.problems {
		out = append(out, jsii.String(p))
	}
	return &out
}

// annotate turns check errors into problems and warnings into CDK
// warnings whose id is the finding's key ("KP401:OrdersByStatus", what
// `cdk synth` prints as [ack: …] and Props.Acknowledge takes). An
// acknowledged warning is dropped by CDK, so its reason is kept as an info
// annotation in the cloud assembly.
func (t *Table) annotate(ds []patterns.Diagnostic) {
	used := map[string]bool{}
	for _, d := range ds {
		if d.Severity == patterns.SeverityError {
			t.problems = append(t.problems, d.String())
			continue
		}
		key := d.Key()
		reason, ok := t.props.Acknowledge[key]
		if !ok {
			key = d.ID
			reason, ok = t.props.Acknowledge[key]
		}
		ann := awscdk.Annotations_Of(t)
		ann.AddWarningV2(jsii.String(d.Key()), jsii.String(d.String()))
		if ok {
			used[key] = true
			ann.AcknowledgeWarning(jsii.String(d.Key()), jsii.String(reason))
			ann.AddInfo(jsii.String(fmt.Sprintf("acknowledged %s (%s): %s", d.Key(), d.Subject, reason)))
		}
	}
	var stale []string
	for key, reason := range t.props.Acknowledge {
		if strings.TrimSpace(reason) == "" {
			t.problems = append(t.problems, fmt.Sprintf("Acknowledge[%q]: give the reason the warning is accepted", key))
		}
		if !used[key] {
			stale = append(stale, key)
		}
	}
	sort.Strings(stale)
	for _, key := range stale {
		t.problems = append(t.problems, fmt.Sprintf("Acknowledge[%q] matches no warning of this design; remove it", key))
	}
}

// built reports whether there is a table to grant on.
func (t *Table) built() bool { return t.Table != nil && t.Design != nil }

// Environment returns the variables application code needs: the table's
// name under TableNameEnv.
func (t *Table) Environment() map[string]*string {
	if !t.built() {
		return map[string]*string{}
	}
	return map[string]*string{TableNameEnv: t.Table.TableName()}
}

// GrantReadData grants every read action on the table and its indexes.
func (t *Table) GrantReadData(grantee awsiam.IGrantable) awsiam.Grant {
	if !t.built() {
		return nil
	}
	return t.Table.GrantReadData(grantee)
}

// GrantWriteData grants every write action on the table.
func (t *Table) GrantWriteData(grantee awsiam.IGrantable) awsiam.Grant {
	if !t.built() {
		return nil
	}
	return t.Table.GrantWriteData(grantee)
}

// GrantStreamRead grants reading the table's stream.
func (t *Table) GrantStreamRead(grantee awsiam.IGrantable) awsiam.Grant {
	if !t.built() {
		return nil
	}
	return t.Table.GrantStreamRead(grantee)
}

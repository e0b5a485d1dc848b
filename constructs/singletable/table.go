package singletable

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsdynamodb"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsiam"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslambda"
	"github.com/aws/aws-cdk-go/awscdk/v2/awss3"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"

	"github.com/keyplan/keyplan/patterns"
	"github.com/keyplan/keyplan/patterns/model"
)

// TableNameEnv is the environment variable that carries the table's name
// to application code and stream handlers (patterns.TableNameEnv).
const TableNameEnv = patterns.TableNameEnv

// Table is a DynamoDB global table (CDK TableV2) synthesized from a
// keyplan design: keys, overloaded GSIs with their projections, TTL.
type Table struct {
	constructs.Construct
	// Table is the synthesized table; never nil: when the model cannot be
	// used it is a stand-in, and synthesis fails naming every problem.
	Table awsdynamodb.TableV2
	// Design is the plan the table was built from; nil when the model
	// could not be used. During a migration it is the lock's target.
	Design *patterns.Design
	// Lock is what the table is deployed from: the lock read from
	// Props.LockFile, or a lock of Design when there is none.
	Lock *patterns.Lock
	// Handlers are the stream handlers the model called for.
	Handlers map[patterns.Handler]*StreamHandler
	// Backfill is the backfill job of the lock's current phase
	// (Props.Backfill); nil when there is none.
	Backfill *BackfillJob
	// Monitor holds the table's alarms and dashboard (Props.Monitoring);
	// nil when monitoring is disabled.
	Monitor *Monitor
	// ObjectsBucket keeps the values of the model's store: s3
	// attributes (objects.go); nil when it has none.
	ObjectsBucket awss3.Bucket

	props    Props
	problems []string
	// acknowledged are the Props.Acknowledge keys a warning matched.
	acknowledged map[string]bool
	// layer is the design layer, once made (designLayer).
	layer awslambda.LayerVersion
	// recoveryOff says which entities' needs turned point-in-time
	// recovery off (needs.go); "" when they did not.
	recoveryOff string
	// backupPlans are the AWS Backup plans the entities' needs name.
	backupPlans []string
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
	t.build()
	if t.Table == nil {
		// The problems fail synthesis, naming each; until then a stand-in
		// keeps code that references the table (its name, grants)
		// working, so the model's own error is what the user sees.
		t.Table = awsdynamodb.NewTableV2(t, jsii.String("Table"), &awsdynamodb.TablePropsV2{
			PartitionKey: &awsdynamodb.Attribute{Name: jsii.String(model.TablePK), Type: awsdynamodb.AttributeType_STRING},
		})
	}
	return t
}

// build plans the model and builds the table, its handlers and its
// backfill job; a problem leaves Table nil. The props' own problems are
// collected first, so a model that does not load is reported with them.
func (t *Table) build() {
	m, whole, err := t.model()
	var props problems
	if err == nil {
		props = t.applyNeeds(m, whole) // the props the model's needs decide
	}
	props = append(props, t.checkProps()...)
	t.problems = append(t.problems, props...)
	d, lock, err := t.plan(m, err)
	if err != nil {
		t.fail(err)
		return
	}
	m = d.Model()
	if lock == nil {
		lock = patterns.NewLock(d)
		t.warn(NoLockWarning, NoLockWarning, "table "+m.Table, fmt.Sprintf(
			"%s has no lock: the design is planned from scratch, and a later model edit may move the keys of items already written; `keyplan lock %s` records it (commit the lock beside the model)",
			modelName(m), modelArg(m)))
	} else if !lock.Accepts(d) {
		t.problems = append(t.problems, disagreement(m, lock, d))
		return
	}
	t.Design, t.Lock = d, lock
	t.annotate(d.Diagnostics)
	withDesign := t.checkWithDesign(d)
	t.problems = append(t.problems, withDesign...)
	if len(props)+len(withDesign) > 0 {
		t.Design = nil // nothing built from it
		return
	}
	t.Table = awsdynamodb.NewTableV2(t, jsii.String("Table"), t.tableProps(d))
	t.addHandlers(d)
	t.addBackfill()
	t.addMonitor(d)
	t.addObjects(d)
	t.addBackup()
	if t.recoveryOff != "" {
		suppress(t.Table, suppression{ID: "KPG1", Reason: t.recoveryOff})
	}
}

// NoLockWarning is the id of the warning for a table synthesized without
// a lock (Props.Acknowledge takes it, for a table never deployed).
const NoLockWarning = "keyplan:NoLock"

// plan plans the model (m, or the error reading it) with its lock
// (stable planning), as keyplan's commands do (patterns.Open).
func (t *Table) plan(m *model.Model, err error) (*patterns.Design, *patterns.Lock, error) {
	if err != nil {
		return nil, nil, err
	}
	lock, err := t.lock()
	if err != nil {
		return nil, nil, err
	}
	d, err := patterns.PlanLocked(m, lock)
	return d, lock, err
}

// lock is Props.Lock, or read from Props.LockFile, or the lock beside
// Props.ModelFile when it has one (patterns.LockBeside); nil when there
// is none. A lock that disagrees with what it derives from
// (patterns.Lock.Check) is refused.
func (t *Table) lock() (*patterns.Lock, error) {
	p := t.props
	switch {
	case p.Lock != nil:
		return p.Lock, p.Lock.Check()
	case p.LockFile != "":
		l, err := patterns.LoadLock(p.LockFile)
		if err == nil && l == nil {
			err = fmt.Errorf("LockFile %s: no such file (keyplan lock writes it)", p.LockFile)
		}
		if err == nil {
			err = l.Check()
		}
		return l, err
	case p.ModelFile != "" && p.ModelTable != "":
		return patterns.LockBesideTable(p.ModelFile, p.ModelTable)
	case p.ModelFile != "":
		return patterns.LockBeside(p.ModelFile)
	}
	return nil, nil
}

// modelName is how messages name the model: its file, or its table.
func modelName(m *model.Model) string {
	if m.Source != "" {
		return m.Source
	}
	return "the model of table " + m.Table
}

// disagreement explains a model whose plan the lock has not accepted:
// what changed, and the commands that review and accept it.
func disagreement(m *model.Model, l *patterns.Lock, d *patterns.Design) string {
	df := patterns.Compare(l, d)
	var b strings.Builder
	fmt.Fprintf(&b, "%s: the model's design is not the one its lock (%s) records", modelName(m), lockName(l))
	if l.Migration != nil {
		fmt.Fprintf(&b, " (a migration is at phase %d of %d)", l.Migration.Current+1, len(l.Migration.Phases))
	}
	b.WriteString(":")
	const most = 5
	for i, c := range df.Changes {
		if i == most {
			fmt.Fprintf(&b, "\n  … and %d more", len(df.Changes)-most)
			break
		}
		fmt.Fprintf(&b, "\n  %s %s %s: %s", c.ID, c.Severity, c.Subject, c.Message)
	}
	switch {
	case len(df.Errors()) > 0:
		fmt.Fprintf(&b, "\n`keyplan diff %s` shows why the change is refused", modelArg(m))
	case df.Safe:
		fmt.Fprintf(&b, "\nthe change is safe (one deploy, no backfill): `keyplan diff %s` shows it, `keyplan lock %s` accepts it", modelArg(m), modelArg(m))
	default:
		fmt.Fprintf(&b, "\nthe change is a migration of %d phase(s): `keyplan diff %s` shows it, `keyplan lock %s` starts it", len(df.Phases), modelArg(m), modelArg(m))
	}
	return b.String()
}

// modelArg is the model as a command's argument.
func modelArg(m *model.Model) string {
	if m.Source != "" {
		return m.Source
	}
	return "MODEL"
}

func lockName(l *patterns.Lock) string {
	if l.Source() != "" {
		return l.Source()
	}
	return "Props.Lock"
}

// model is the model of this table, and the whole model (of every table
// it declares).
func (t *Table) model() (table, whole *model.Model, err error) {
	m := t.props.Model
	switch {
	case m != nil:
	case t.props.ModelFile != "":
		if m, err = model.Load(t.props.ModelFile); err != nil {
			return nil, nil, err
		}
	default:
		return nil, nil, errors.New("singletable: Props.Model or Props.ModelFile is required")
	}
	table, err = modelTable(m, t.props.ModelTable)
	return table, m, err
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
// warnings (warn), then fails synthesis on acknowledgements that matched
// no warning.
func (t *Table) annotate(ds []patterns.Diagnostic) {
	for _, d := range ds {
		if d.Severity == patterns.SeverityError {
			t.problems = append(t.problems, d.String())
			continue
		}
		t.warn(d.Key(), d.ID, d.Subject.String(), d.String())
	}
	var stale []string
	for key, reason := range t.props.Acknowledge {
		if strings.TrimSpace(reason) == "" {
			t.problems = append(t.problems, fmt.Sprintf("Acknowledge[%q]: give the reason the warning is accepted", key))
		}
		if !t.acknowledged[key] {
			stale = append(stale, key)
		}
	}
	sort.Strings(stale)
	for _, key := range stale {
		t.problems = append(t.problems, fmt.Sprintf("Acknowledge[%q] matches no warning of this design; remove it", key))
	}
}

// warn adds a CDK warning whose id is key ("KP401:OrdersByStatus", what
// `cdk synth` prints as [ack: …]); Props.Acknowledge takes the key or
// the rule id alone. An acknowledged warning is dropped by CDK, so its
// reason is kept as an info annotation in the cloud assembly.
func (t *Table) warn(key, id, subject, text string) {
	ann := awscdk.Annotations_Of(t)
	ann.AddWarningV2(jsii.String(key), jsii.String(text))
	ack := key
	reason, ok := t.props.Acknowledge[ack]
	if !ok {
		ack = id
		reason, ok = t.props.Acknowledge[ack]
	}
	if !ok {
		return
	}
	if t.acknowledged == nil {
		t.acknowledged = map[string]bool{}
	}
	t.acknowledged[ack] = true
	ann.AcknowledgeWarning(jsii.String(key), jsii.String(reason))
	ann.AddInfo(jsii.String(fmt.Sprintf("acknowledged %s (%s): %s", key, subject, reason)))
}

// built reports whether the table was built from a design (not a
// stand-in).
func (t *Table) built() bool { return t.Design != nil }

// notBuilt is the grant of a table that was not built: nothing, the
// synthesis failing anyway.
func notBuilt(grantee awsiam.IGrantable) awsiam.Grant {
	return awsiam.Grant_Drop(grantee, jsii.String("a keyplan table whose model could not be used"))
}

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
		return notBuilt(grantee)
	}
	return t.Table.GrantReadData(grantee)
}

// GrantWriteData grants every write action on the table.
func (t *Table) GrantWriteData(grantee awsiam.IGrantable) awsiam.Grant {
	if !t.built() {
		return notBuilt(grantee)
	}
	return t.Table.GrantWriteData(grantee)
}

// GrantStreamRead grants reading the table's stream.
func (t *Table) GrantStreamRead(grantee awsiam.IGrantable) awsiam.Grant {
	if !t.built() {
		return notBuilt(grantee)
	}
	return t.Table.GrantStreamRead(grantee)
}

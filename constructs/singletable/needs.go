package singletable

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsbackup"
	"github.com/aws/jsii-runtime-go"

	"github.com/keyplan/keyplan/patterns/model"
)

// The model's needs (an entity's needs:, patterns.Needs) decide the
// table's point-in-time recovery, billing mode, replica Regions and AWS
// Backup plans: a need the table's entities state is the setting, and a
// prop that says otherwise fails synthesis, naming the entity, the need
// and the prop (the model is the one place the setting is written; the
// prop is for what the needs leave open: a replica's read capacity, the
// provisioned scaling, a plan of the user's own for a need's name).
// Entities of one table that state a need differently are KP310's (a
// warning proposing a split); kept in one table (the warning
// acknowledged), the table gets what KP310's "keep one table" says:
// point-in-time recovery on, every plan any entity names, every Region any
// entity names, and the billing mode Props.Billing.Mode chooses (required
// then). A table whose entities state no need is built from its props
// alone, as before.

// statement is one entity's statement of one need.
type statement struct {
	entity, value, at string
}

func (s statement) String() string {
	return fmt.Sprintf("entity %s (%s)", s.entity, s.at)
}

// stated are the table's entities' statements of one need, in the
// model's order; value says what an entity's needs state of it.
func stated(m *model.Model, field string, value func(*model.Needs) (string, bool)) []statement {
	var out []statement
	for _, e := range m.Entities {
		if e.Needs == nil {
			continue
		}
		if v, ok := value(e.Needs); ok {
			out = append(out, statement{e.Name, v, e.Needs.Pos[field].In(m.Source)})
		}
	}
	return out
}

// saying are the statements of value.
func saying(st []statement, value string) []statement {
	var out []statement
	for _, s := range st {
		if s.value == value {
			out = append(out, s)
		}
	}
	return out
}

// who names the entities of the statements, with where each says it.
func who(st []statement) string {
	var out []string
	for _, s := range st {
		out = append(out, s.String())
	}
	return strings.Join(out, ", ")
}

// values are the distinct values stated, in the order first stated.
func values(st []statement) []string {
	var out []string
	for _, s := range st {
		if !slices.Contains(out, s.value) {
			out = append(out, s.value)
		}
	}
	return out
}

// fromModel ends a refusal: what to do about it.
const fromModel = "remove the prop (the model's needs decide it) or change the need"

// applyNeeds sets the props the model of the table (m; whole: of every
// table) needs decide, and returns the problems of props that contradict
// them.
func (t *Table) applyNeeds(m, whole *model.Model) problems {
	var ps problems
	t.needRecovery(m, &ps)
	t.needBilling(m, &ps)
	t.needReplicas(m, &ps)
	t.needBackup(m, whole, &ps)
	return ps
}

// needRecovery: point-in-time recovery on when any entity needs it, off
// when every entity that states it says it need not be.
func (t *Table) needRecovery(m *model.Model, ps *problems) {
	st := stated(m, "pointInTimeRecovery", func(n *model.Needs) (string, bool) {
		if n.PointInTimeRecovery == nil {
			return "", false
		}
		return fmt.Sprint(*n.PointInTimeRecovery), true
	})
	if len(st) == 0 {
		return
	}
	p := &t.props
	want := slices.ContainsFunc(st, func(s statement) bool { return s.value == "true" })
	by := saying(st, fmt.Sprint(want))
	if p.PointInTimeRecovery != nil && *p.PointInTimeRecovery != want {
		ps.add("PointInTimeRecovery %t: %s need(s) pointInTimeRecovery: %t; %s", *p.PointInTimeRecovery, who(by), want, fromModel)
	}
	if !want && p.RecoveryPeriodDays != 0 {
		ps.add("RecoveryPeriodDays %v: %s need(s) pointInTimeRecovery: false, so no period applies; %s", p.RecoveryPeriodDays, who(by), fromModel)
		p.RecoveryPeriodDays = 0 // reported here, not again by checkRecovery
	}
	p.PointInTimeRecovery = jsii.Bool(want)
	if !want {
		t.recoveryOff = who(by) + " need(s) no point-in-time recovery (needs: pointInTimeRecovery: false)"
	}
}

// needMode is a need's billing value as a BillingMode.
var needMode = map[string]BillingMode{model.NeedOnDemand: OnDemand, model.NeedProvisioned: Provisioned}

// needBilling: the billing mode the entities need; Billing.Mode must
// choose when they need different ones.
func (t *Table) needBilling(m *model.Model, ps *problems) {
	st := stated(m, "billing", func(n *model.Needs) (string, bool) { return n.Billing, n.Billing != "" })
	if len(st) == 0 {
		return
	}
	p := &t.props
	given := p.Billing != nil && p.Billing.Mode != ""
	vs := values(st)
	switch {
	case len(vs) > 1 && !given:
		var said []string
		for _, v := range vs {
			said = append(said, who(saying(st, v))+": "+v)
		}
		ps.add("Billing.Mode: the entities of table %s need different billing modes (%s; KP310): split the table, or choose one with Billing.Mode", m.Table, strings.Join(said, "; "))
	case len(vs) > 1:
		// kept in one table: the prop chooses one of the modes needed
	case given && needMode[vs[0]] != p.Billing.Mode && (p.Billing.Mode == OnDemand || p.Billing.Mode == Provisioned):
		ps.add("Billing.Mode %s: %s need(s) billing: %s; %s", p.Billing.Mode, who(st), vs[0], fromModel)
	case !given:
		b := Billing{}
		if p.Billing != nil {
			b = *p.Billing // the user's props are not changed
		}
		b.Mode = needMode[vs[0]]
		p.Billing = &b
	}
}

// needReplicas: the table's replicas are every Region any entity needs
// its items in, but the stack's own (the table is there); Replicas, when
// given, must name exactly these (each may add its own read capacity and
// key).
func (t *Table) needReplicas(m *model.Model, ps *problems) {
	st := stated(m, "replicas", func(n *model.Needs) (string, bool) {
		if !n.Replicated {
			return "", false
		}
		return "[" + strings.Join(n.Replicas, ", ") + "]", true
	})
	if len(st) == 0 {
		return
	}
	own := ""
	if r := awscdk.Stack_Of(t).Region(); r != nil && !*awscdk.Token_IsUnresolved(r) {
		own = *r
	}
	var want []string
	for _, e := range m.Entities {
		if e.Needs == nil {
			continue
		}
		for _, r := range e.Needs.Replicas {
			if r != own && !slices.Contains(want, r) {
				want = append(want, r)
			}
		}
	}
	slices.Sort(want)
	p := &t.props
	if own == "" && len(want) > 0 {
		ps.add("%s: a global table's replicas need the stack's region: give the stack an env with Region", needsReplicas(st))
		return
	}
	if len(p.Replicas) == 0 {
		for _, r := range want {
			p.Replicas = append(p.Replicas, Replica{Region: r})
		}
		return
	}
	var have []string
	for _, r := range p.Replicas {
		have = append(have, r.Region)
	}
	var missing, extra []string
	for _, r := range want {
		if !slices.Contains(have, r) {
			missing = append(missing, r)
		}
	}
	for _, r := range have {
		if !slices.Contains(want, r) && r != "" {
			extra = append(extra, r)
		}
	}
	if len(missing) > 0 {
		ps.add("Replicas: %s lack(s) %s: %s; %s", strings.Join(have, ", "), strings.Join(missing, ", "), needsReplicas(st), fromModel)
	}
	if len(extra) > 0 {
		ps.add("Replicas: %s: no entity needs its items there (%s); %s", strings.Join(extra, ", "), needsReplicas(st), fromModel)
	}
}

// needsReplicas says which entities need which replicas.
func needsReplicas(st []statement) string {
	var said []string
	for _, v := range values(st) {
		said = append(said, who(saying(st, v))+" need(s) replicas: "+v)
	}
	return strings.Join(said, "; ")
}

// needBackup: the table is in every AWS Backup plan an entity names
// (none: no plan); BackupPlans gives plans for those names, and only for
// the names an entity of the model gives (NewTables passes one map to
// every table: a plan another table's entities need is not this
// table's, and not refused).
func (t *Table) needBackup(m, whole *model.Model, ps *problems) {
	st := stated(m, "backup", func(n *model.Needs) (string, bool) { return n.Backup, n.Backup != "" })
	t.backupPlans = nil
	for _, v := range values(st) {
		if v != model.BackupNone {
			t.backupPlans = append(t.backupPlans, v)
		}
	}
	slices.Sort(t.backupPlans)
	elsewhere := func(name string) bool {
		return slices.ContainsFunc(whole.Entities, func(e *model.Entity) bool { return e.Needs != nil && e.Needs.Backup == name })
	}
	for _, name := range slices.Sorted(maps.Keys(t.props.BackupPlans)) {
		switch {
		case slices.Contains(t.backupPlans, name):
			if t.props.BackupPlans[name] == nil {
				ps.add("BackupPlans[%q]: nil; give the plan, or leave the name out (the construct makes one)", name)
			}
			continue
		case elsewhere(name):
			continue // another table's
		}
		why := "no entity of table " + m.Table + " needs a backup plan (needs: backup)"
		if len(st) > 0 {
			var said []string
			for _, v := range values(st) {
				said = append(said, who(saying(st, v))+" need(s) backup: "+v)
			}
			why = "no entity of table " + m.Table + " names it: " + strings.Join(said, "; ")
		}
		ps.add("BackupPlans[%q]: %s; %s", name, why, fromModel)
	}
}

// DefaultBackupPlanRule is the rule of a plan the construct makes for a
// need's name that Props.BackupPlans does not give: a backup a day at
// 05:00 UTC, each kept 35 days (awsbackup.BackupPlanRule_Daily).
const DefaultBackupPlanRule = "daily at 05:00 UTC, kept 35 days"

// addBackup puts the table in each AWS Backup plan its entities need:
// Props.BackupPlans's of that name, or one the construct makes in the
// stack (named so, DefaultBackupPlanRule, in a vault of its own; one
// per name and stack, shared by the stack's tables).
func (t *Table) addBackup() {
	for _, name := range t.backupPlans {
		var plan awsbackup.IBackupPlan = t.props.BackupPlans[name]
		if plan == nil {
			plan = backupPlan(awscdk.Stack_Of(t), name)
		}
		sel := awsbackup.NewBackupSelection(t, jsii.String("Backup"+name), &awsbackup.BackupSelectionProps{
			BackupPlan: plan,
			Resources:  &[]awsbackup.BackupResource{awsbackup.BackupResource_FromArn(t.Table.TableArn())},
			// one per table in a plan the stack's tables share
			BackupSelectionName: awscdk.Names_UniqueResourceName(t, &awscdk.UniqueResourceNameOptions{MaxLength: jsii.Number(50)}),
		})
		suppress(sel.Node().FindChild(jsii.String("Role")), suppression{ID: "AwsSolutions-IAM4",
			Reason:    "AWS Backup's own service role policy (AWSBackupServiceRolePolicyForBackup) is what AWS Backup documents for the role it assumes to back the table up",
			AppliesTo: []any{"Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSBackupServiceRolePolicyForBackup"}})
	}
}

// backupPlan is the stack's plan of that name, made once.
func backupPlan(stack awscdk.Stack, name string) awsbackup.IBackupPlan {
	id := "KeyplanBackupPlan" + name
	if c := stack.Node().TryFindChild(jsii.String(id)); c != nil {
		return c.(awsbackup.IBackupPlan)
	}
	return awsbackup.NewBackupPlan(stack, jsii.String(id), &awsbackup.BackupPlanProps{
		BackupPlanName:  jsii.String(name),
		BackupPlanRules: &[]awsbackup.BackupPlanRule{awsbackup.BackupPlanRule_Daily(nil)},
	})
}

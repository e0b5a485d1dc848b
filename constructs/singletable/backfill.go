package singletable

import (
	"encoding/json"
	"fmt"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsiam"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslogs"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsstepfunctions"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsstepfunctionstasks"
	"github.com/aws/aws-cdk-go/awscdklambdagoalpha/v2"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"

	"github.com/keyplan/keyplan/patterns"
	"github.com/keyplan/keyplan/patterns/model"
)

// Backfill configures the job that backfills the lock's current
// migration phase on AWS, for tables too big for keyplan migrate from one
// machine: a Step Functions state machine whose Distributed Map runs one
// child workflow per Scan segment, each invoking a Go function (the rekey
// engine keyplan migrate runs) stretch after stretch until its segment
// ends. Start an execution after deploying the phase; then `keyplan
// migrate MODEL --table NAME --verify` checks the table and advances the
// lock. Deployed with the lock that ends a migration (no migration, a
// pending cleanup), the job runs the cleanup instead, after checking the
// table is at the lock's design and recording the deploy in it
// (docs/evolution.md, "Clean up"); --verify then drops the cleanup.
type Backfill struct {
	// Segments is the parallel Scan's segment count: the Distributed
	// Map's items (MinBackfillSegments–MaxBackfillSegments). Size it at a
	// few GB per segment.
	// Default: DefaultBackfillSegments.
	Segments int
	// MaxConcurrency bounds the segments rewritten at once (1–10,000).
	// Default: Segments.
	MaxConcurrency int
	// MaxWCU caps the write units per second the whole job uses (each
	// running segment gets MaxWCU / MaxConcurrency), so production
	// traffic keeps its capacity.
	// Default: no limit.
	MaxWCU float64
	// MemorySize of the worker function, in MB.
	// Default: 512.
	MemorySize float64
	// Timeout of one worker invocation (at most 15 minutes); it stops
	// after a Scan page when its time runs short and the state machine
	// invokes it again.
	// Default: 15 minutes.
	Timeout awscdk.Duration
	// LogRetention of the worker's and the state machine's logs.
	// Default: one month.
	LogRetention awslogs.RetentionDays
}

// Backfill job bounds.
const (
	DefaultBackfillSegments = 16
	MinBackfillSegments     = 1
	// MaxBackfillSegments is DynamoDB's TotalSegments limit.
	MaxBackfillSegments = 1_000_000
	// MaxBackfillConcurrency is the Distributed Map's concurrency limit.
	MaxBackfillConcurrency = 10_000
)

// backfillOptions are Props.Backfill with their defaults, and the
// problems of the options given.
func backfillOptions(b Backfill) (Backfill, problems) {
	o := b
	if o.Segments == 0 {
		o.Segments = DefaultBackfillSegments
	}
	if o.MaxConcurrency == 0 {
		o.MaxConcurrency = min(o.Segments, MaxBackfillConcurrency)
	}
	if o.MemorySize == 0 {
		o.MemorySize = 512
	}
	if o.Timeout == nil {
		o.Timeout = awscdk.Duration_Minutes(jsii.Number(15))
	}
	if o.LogRetention == "" {
		o.LogRetention = awslogs.RetentionDays_ONE_MONTH
	}
	var ps problems
	switch {
	case o.Segments < MinBackfillSegments || o.Segments > MaxBackfillSegments:
		ps.add("Backfill.Segments %d: expected %d to %d", o.Segments, MinBackfillSegments, MaxBackfillSegments)
	case o.MaxConcurrency < 1 || o.MaxConcurrency > MaxBackfillConcurrency:
		ps.add("Backfill.MaxConcurrency %d: expected 1 to %d", o.MaxConcurrency, MaxBackfillConcurrency)
	}
	if finite(o.MaxWCU) && o.MaxWCU < 0 { // not finite: numbers says so
		ps.add("Backfill.MaxWCU %v: expected a positive number (or 0, no limit)", o.MaxWCU)
	}
	if finite(o.MemorySize) && (o.MemorySize < 128 || o.MemorySize > 10240) {
		ps.add("Backfill.MemorySize %v: expected 128 to 10240 (MB)", o.MemorySize)
	}
	if s := *o.Timeout.ToSeconds(nil); s < 60 || s > 900 {
		ps.add("Backfill.Timeout %vs: expected 60 to 900 seconds", s)
	}
	return o, ps
}

// BackfillJob is the synthesized backfill job of a table.
type BackfillJob struct {
	constructs.Construct
	StateMachine awsstepfunctions.StateMachine
	Function     awscdklambdagoalpha.GoFunction
	Role         awsiam.Role
	LogGroup     awslogs.LogGroup
}

// addBackfill builds the job for the lock's current phase, when a
// migration is in progress and the phase has a backfill (its options were
// checked with the other props: checkProps).
func (t *Table) addBackfill() {
	b := t.props.Backfill
	if b == nil {
		return
	}
	o, _ := backfillOptions(*b)
	mg := t.Lock.Migration
	if mg == nil && t.Lock.Cleanup != nil {
		// The lock ends a migration: the job runs its cleanup (it exists
		// only in this deploy, so it runs once this lock is deployed).
		job, err := newBackfillJob(t, o)
		if err != nil {
			t.problems = append(t.problems, "Backfill: "+err.Error())
			return
		}
		t.Backfill = job
		return
	}
	if mg == nil || len(mg.Phases[mg.Current].Backfill) == 0 {
		what := "no migration is in progress"
		if mg != nil {
			what = fmt.Sprintf("phase %d of %d has nothing to backfill", mg.Current+1, len(mg.Phases))
		}
		awscdk.Annotations_Of(t).AddInfo(jsii.String("Backfill: " + what + ": no backfill job is synthesized"))
		return
	}
	job, err := newBackfillJob(t, o)
	if err != nil {
		t.problems = append(t.problems, "Backfill: "+err.Error())
		return
	}
	t.Backfill = job
}

func newBackfillJob(t *Table, o Backfill) (*BackfillJob, error) {
	entry, module, err := handlerSource(patterns.BackfillWorker)
	if err != nil {
		return nil, err
	}
	layer, err := t.designLayer()
	if err != nil {
		return nil, err
	}
	// What the job does: the current phase's backfill, or the cleanup of
	// the migration the lock ends (the worker tells them apart by the
	// lock it carries: lambdas/backfill).
	var phase, what string
	// Before it writes, the worker compares the lock with the table
	// (DescribeTable, DescribeTimeToLive: the drift check); the cleanup
	// also checks the table is at the lock's design.
	actions := []string{"dynamodb:DescribeTable", "dynamodb:DescribeTimeToLive", "dynamodb:Scan", "dynamodb:UpdateItem"}
	if mg := t.Lock.Migration; mg != nil {
		phase = fmt.Sprintf("phase %d of %d", mg.Current+1, len(mg.Phases))
		what = fmt.Sprint(mg.Phases[mg.Current].Backfill)
	} else {
		phase, what = "the migration's cleanup", t.Lock.Cleanup.String()
	}
	j := &BackfillJob{Construct: constructs.NewConstruct(t, jsii.String("Backfill"))}
	j.LogGroup = awslogs.NewLogGroup(j.Construct, jsii.String("Logs"), &awslogs.LogGroupProps{Retention: o.LogRetention})
	j.Role = awsiam.NewRole(j.Construct, jsii.String("Role"), &awsiam.RoleProps{
		AssumedBy:   awsiam.NewServicePrincipal(jsii.String("lambda.amazonaws.com"), nil),
		Description: jsii.String("keyplan backfill worker: its log group, and DescribeTable, DescribeTimeToLive, Scan and UpdateItem on the table"),
	})
	j.LogGroup.GrantWrite(j.Role)
	// The rekey engine reads with Scan and writes with conditional
	// UpdateItem (ALL_OLD on a conflict spares it a GetItem).
	t.grant(j.Role, actions, model.BaseIndex)
	if t.props.Encryption != nil && t.props.Encryption.Kind == CustomerManaged {
		t.Table.GrantOnKey(j.Role, jsii.String("kms:Decrypt"), jsii.String("kms:Encrypt"), jsii.String("kms:GenerateDataKey"))
	}
	env := map[string]*string{
		patterns.TableNameEnv: t.Table.TableName(),
		patterns.LockEnv:      jsii.String(patterns.DesignPath),
	}
	if o.MaxWCU > 0 {
		env[patterns.BackfillMaxWCUEnv] = jsii.String(fmt.Sprint(o.MaxWCU / float64(o.MaxConcurrency)))
	}
	j.Function = goFunction(j.Construct, goFunctionProps{entry: entry, module: module, role: j.Role, logGroup: j.LogGroup, layer: layer, env: env,
		memory: o.MemorySize, timeout: o.Timeout,
		description: truncate(fmt.Sprintf("keyplan backfill worker for %s (%s: %s)", t.Design.Table, phase, what), maxDescription)})

	// One child workflow per segment: invoke, loop until done, fail the
	// job on items the engine could not rewrite.
	rekey := awsstepfunctionstasks.NewLambdaInvoke(j.Construct, jsii.String("Rekey"), &awsstepfunctionstasks.LambdaInvokeProps{
		LambdaFunction:           j.Function,
		PayloadResponseOnly:      jsii.Bool(true),
		RetryOnServiceExceptions: jsii.Bool(true),
		Comment:                  jsii.String("rewrite the segment's pages until it ends or the invocation's time runs short"),
	})
	// A worker error (the table unreachable after its own retries) is
	// retried from the same task: the engine is idempotent.
	rekey.AddRetry(&awsstepfunctions.RetryProps{
		Errors:      jsii.Strings("States.TaskFailed", "Lambda.TooManyRequestsException"),
		Interval:    awscdk.Duration_Seconds(jsii.Number(10)),
		MaxAttempts: jsii.Number(6),
		BackoffRate: jsii.Number(2),
	})
	failed := awsstepfunctions.NewFail(j.Construct, jsii.String("ItemsFailed"), &awsstepfunctions.FailProps{
		Error: jsii.String("ItemsFailed"),
		Cause: jsii.String("items of the segment could not be rewritten (the worker's log names them); fix them and start the job again"),
	})
	next := awsstepfunctions.NewChoice(j.Construct, jsii.String("SegmentDone?"), nil).
		When(awsstepfunctions.Condition_NumberGreaterThan(jsii.String("$."+patterns.BackfillTaskFailed), jsii.Number(0)), failed, nil).
		When(awsstepfunctions.Condition_BooleanEquals(jsii.String("$."+patterns.BackfillTaskDone), jsii.Bool(true)),
			awsstepfunctions.NewSucceed(j.Construct, jsii.String("SegmentRewritten"), nil), nil).
		Otherwise(rekey)
	// The tasks as plain JSON values (jsii passes those through).
	var tasks []any
	for seg := range o.Segments {
		b, _ := json.Marshal(patterns.BackfillTask{Segment: seg, Segments: o.Segments})
		var task map[string]any
		_ = json.Unmarshal(b, &task)
		tasks = append(tasks, task)
	}
	segments := awsstepfunctions.NewPass(j.Construct, jsii.String("Segments"), &awsstepfunctions.PassProps{
		Result:  awsstepfunctions.Result_FromObject(&map[string]any{"tasks": tasks}),
		Comment: jsii.String(fmt.Sprintf("the %d Scan segments", o.Segments)),
	})
	m := awsstepfunctions.NewDistributedMap(j.Construct, jsii.String("EachSegment"), &awsstepfunctions.DistributedMapProps{
		ItemsPath:                  jsii.String("$.tasks"),
		MaxConcurrency:             jsii.Number(float64(o.MaxConcurrency)),
		ToleratedFailurePercentage: jsii.Number(0),
		MapExecutionType:           awsstepfunctions.StateMachineType_STANDARD,
		Label:                      jsii.String("Rekey"),
		ResultPath:                 awsstepfunctions.JsonPath_DISCARD(),
	})
	m.ItemProcessor(rekey.Next(next), nil)
	j.StateMachine = awsstepfunctions.NewStateMachine(j.Construct, jsii.String("StateMachine"), &awsstepfunctions.StateMachineProps{
		DefinitionBody: awsstepfunctions.DefinitionBody_FromChainable(segments.Next(m)),
		Comment:        jsii.String(fmt.Sprintf("keyplan backfill of %s, %s: %s", t.Design.Table, phase, what)),
		Logs: &awsstepfunctions.LogOptions{
			Destination:          awslogs.NewLogGroup(j.Construct, jsii.String("StateMachineLogs"), &awslogs.LogGroupProps{Retention: o.LogRetention}),
			Level:                awsstepfunctions.LogLevel_ALL,
			IncludeExecutionData: jsii.Bool(true),
		},
		TracingEnabled: jsii.Bool(true),
	})
	awscdk.NewCfnOutput(j.Construct, jsii.String("StateMachineArn"), &awscdk.CfnOutputProps{
		Value: j.StateMachine.StateMachineArn(),
		Description: jsii.String(fmt.Sprintf("keyplan backfill of %s, %s: start an execution, then keyplan migrate MODEL --table NAME --verify %s",
			t.Design.Table, phase, map[bool]string{true: "advances the lock", false: "drops the cleanup from the lock"}[t.Lock.Migration != nil])),
	})
	j.nagSuppressions()
	return j, nil
}

// nagSuppressions explains, for cdk-nag's packs, the findings that do not
// apply to the backfill job.
func (j *BackfillJob) nagSuppressions() {
	suppress(j.Role, suppression{ID: "AwsSolutions-IAM5",
		Reason:    "X-Ray's PutTraceSegments and PutTelemetryRecords have no resource-level permissions",
		AppliesTo: []any{"Resource::*"}})
	suppress(j.Function, suppression{ID: "Serverless-LambdaDLQ",
		Reason: "Step Functions invokes the worker synchronously and retries it; a failed segment fails the execution, which a DLQ (for asynchronous invocations) would never see"})
	suppress(j.StateMachine, suppression{ID: "AwsSolutions-IAM5",
		Reason: "the Distributed Map starts and tracks its child executions (execution ARNs are made at run time) and invokes every version of the worker, as CDK grants it",
		AppliesTo: []any{
			map[string]any{"regex": "/^Resource::<.*Function.*\\.Arn>:\\*$/"},
			map[string]any{"regex": "/^Resource::arn:<AWS::Partition>:states:[^:]+:<AWS::AccountId>:execution:.*\\*$/"},
			"Resource::*",
		}})
}

// maxDescription is Lambda's limit on a function's description, in
// characters.
const maxDescription = 256

// truncate shortens s to at most n characters, ending it with "…" when
// it cut.
func truncate(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

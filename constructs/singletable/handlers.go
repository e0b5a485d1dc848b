package singletable

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awscloudwatch"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsiam"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslambda"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslambdaeventsources"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslogs"
	"github.com/aws/aws-cdk-go/awscdk/v2/awss3"
	"github.com/aws/aws-cdk-go/awscdk/v2/awss3assets"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssqs"
	"github.com/aws/aws-cdk-go/awscdklambdagoalpha/v2"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"

	"github.com/keyplan/keyplan/patterns"
	"github.com/keyplan/keyplan/patterns/model"
)

// StreamHandlers configures the Lambda stream handlers the model calls
// for: fanout for copies, counters for counters, archive for archive.
type StreamHandlers struct {
	// Disabled leaves the model's copies, counters and archive to the
	// application.
	// Default: false.
	Disabled bool
	// Defaults apply to every handler.
	// Default: see HandlerOptions.
	Defaults HandlerOptions
	// Handlers override Defaults per handler.
	// Default: none.
	Handlers map[patterns.Handler]HandlerOptions
	// ArchiveBucket receives the archive handler's objects.
	// Default: a new bucket: public access blocked, TLS enforced, S3-managed
	// encryption, versioned, access logs to a second bucket, RETAIN.
	ArchiveBucket awss3.IBucket
}

// HandlerOptions tune one handler's function and event source mapping.
// Zero values take the defaults.
type HandlerOptions struct {
	// BatchSize is the most records per invocation.
	// Default: 100.
	BatchSize float64
	// RetryAttempts bounds the retries of a failing batch before its
	// records go to the on-failure queue.
	// Default: 10.
	RetryAttempts float64
	// MaxRecordAge sends older records to the on-failure queue.
	// Default: 24 hours (the stream's retention).
	MaxRecordAge awscdk.Duration
	// ParallelizationFactor is the concurrent batches per shard (1–10).
	// Default: 1 (keeps each item's records in order).
	ParallelizationFactor float64
	// ReservedConcurrency reserves (and caps) the function's concurrency.
	// Default: none (unreserved).
	ReservedConcurrency float64
	// MemorySize in MB.
	// Default: 256.
	MemorySize float64
	// Timeout of one invocation.
	// Default: 60 seconds.
	Timeout awscdk.Duration
	// LogRetention of the function's log group.
	// Default: awslogs.RetentionDays_ONE_MONTH.
	LogRetention awslogs.RetentionDays
}

func (o HandlerOptions) or(d HandlerOptions) HandlerOptions {
	if o.BatchSize == 0 {
		o.BatchSize = d.BatchSize
	}
	if o.RetryAttempts == 0 {
		o.RetryAttempts = d.RetryAttempts
	}
	if o.MaxRecordAge == nil {
		o.MaxRecordAge = d.MaxRecordAge
	}
	if o.ParallelizationFactor == 0 {
		o.ParallelizationFactor = d.ParallelizationFactor
	}
	if o.ReservedConcurrency == 0 {
		o.ReservedConcurrency = d.ReservedConcurrency
	}
	if o.MemorySize == 0 {
		o.MemorySize = d.MemorySize
	}
	if o.Timeout == nil {
		o.Timeout = d.Timeout
	}
	if o.LogRetention == "" {
		o.LogRetention = d.LogRetention
	}
	return o
}

func builtinDefaults() HandlerOptions {
	return HandlerOptions{BatchSize: 100, RetryAttempts: 10, MaxRecordAge: awscdk.Duration_Hours(jsii.Number(24)),
		ParallelizationFactor: 1, MemorySize: 256, Timeout: awscdk.Duration_Seconds(jsii.Number(60)),
		LogRetention: awslogs.RetentionDays_ONE_MONTH}
}

// StreamHandler is one of keyplan's stream handlers wired to a table: a
// Go function (GoFunction, provided.al2023, arm64) with its own role and
// log group, an event source mapping on the table's stream filtered to
// the records it needs, and a queue for the records it gives up on.
type StreamHandler struct {
	constructs.Construct
	Function awscdklambdagoalpha.GoFunction
	Role     awsiam.Role
	// Failures receives the records the handler gave up on; FailuresAlarm
	// goes off when one does (add an action to be told).
	Failures      awssqs.Queue
	FailuresAlarm awscloudwatch.Alarm
	// UndecodableAlarm goes off when the handler skips a record it cannot
	// read what its job needs from (patterns.MetricUndecodable, in the
	// metrics its log writes): an attribute stored as another type, an
	// image missing. Such a record is never retried (a retry cannot change
	// it), so this alarm, not the failure queue, tells of it (add an
	// action to be told).
	UndecodableAlarm awscloudwatch.Alarm
	LogGroup         awslogs.LogGroup
	// Filters are the event filter patterns, as JSON.
	Filters []string
}

// StreamHandlerProps configure one stream handler.
type StreamHandlerProps struct {
	// Handler is which of keyplan's handlers to build.
	Handler patterns.Handler
	// Table is the keyplan table whose stream it reads.
	Table *Table
	// Layer carries the model (the table's design layer).
	Layer awslambda.ILayerVersion
	// Options tune the function and the event source mapping.
	Options HandlerOptions
	// ArchiveBucket receives the archive handler's objects.
	// Default: a new bucket (see StreamHandlers.ArchiveBucket).
	ArchiveBucket awss3.IBucket
}

// handlerSource finds a handler's package directory and its module root,
// whether keyplan is this module or a dependency (in the module cache).
// It asks for the module only: a CDK app's go.sum need not cover the
// handlers' own dependencies, which are built in keyplan's module.
func handlerSource(pkg string) (entry, module string, err error) {
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", patterns.Module).Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return "", "", fmt.Errorf("go list -m %s: %s", patterns.Module, strings.TrimSpace(string(ee.Stderr)))
		}
		return "", "", fmt.Errorf("go list: %w (the handlers are built with the local Go toolchain)", err)
	}
	module = strings.TrimSpace(string(out))
	if module == "" {
		return "", "", fmt.Errorf("go list -m %s: the module is not downloaded; run go mod download", patterns.Module)
	}
	return filepath.Join(module, pkg), module, nil
}

// designBundle stages the lock as the design layer's content, in Go: CDK
// calls TryBundle with the asset's output directory, and the bytes are
// written there. No path, and nothing of the model, ever reaches a shell
// (GoFunction's own bundling runs its build under bash -c, so keyplan
// adds nothing to it).
type designBundle struct{ lock []byte }

func (b *designBundle) TryBundle(outputDir *string, _ *awscdk.BundlingOptions) *bool {
	dir := filepath.Join(*outputDir, patterns.LayerDir)
	err := os.MkdirAll(dir, 0o755)
	if err == nil {
		err = os.WriteFile(filepath.Join(dir, patterns.DesignFile), b.lock, 0o644)
	}
	if err != nil {
		panic(fmt.Sprintf("singletable: staging the design layer: %v", err))
	}
	return jsii.Bool(true)
}

// designLayer is the Lambda layer that carries the table's lock (its
// designs as planned, and a migration's phase) to every function of the
// table, at patterns.DesignPath: one per table, made on first use. Its
// asset hash is the lock's content, so an unchanged lock is not staged
// again. The asset's source directory is never read (CUSTOM hash, local
// bundling): the working directory.
func (t *Table) designLayer() (awslambda.LayerVersion, error) {
	if t.layer != nil {
		return t.layer, nil
	}
	scope := t
	data, err := t.Lock.Bytes()
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(data)
	code := awslambda.Code_FromAsset(jsii.String("."), &awss3assets.AssetOptions{
		AssetHash:     jsii.String(hex.EncodeToString(sum[:])),
		AssetHashType: awscdk.AssetHashType_CUSTOM,
		Bundling: &awscdk.BundlingOptions{
			// Never run: the local bundler always succeeds or fails synthesis.
			Image: awscdk.DockerImage_FromRegistry(jsii.String("scratch")),
			Local: &designBundle{lock: data},
		},
	})
	t.layer = awslambda.NewLayerVersion(scope, jsii.String("Design"), &awslambda.LayerVersionProps{
		Code:                    code,
		CompatibleRuntimes:      &[]awslambda.Runtime{awslambda.Runtime_PROVIDED_AL2023()},
		CompatibleArchitectures: &[]awslambda.Architecture{awslambda.Architecture_ARM_64()},
		Description:             jsii.String("keyplan: the table's lock (its planned design) its functions read"),
	})
	return t.layer, nil
}

// checkHandlers: a handler's options only for one the design needs, and
// each one's parallelization in range.
func (t *Table) checkHandlers(d *patterns.Design, ps *problems) {
	sh := t.props.StreamHandlers
	needed := d.Handlers()
	if sh == nil || sh.Disabled || len(needed) == 0 {
		return
	}
	for _, h := range slices.Sorted(maps.Keys(sh.Handlers)) { // an unknown one is checkProps'
		if slices.Contains(patterns.Handlers(), h) && !slices.Contains(needed, h) {
			ps.add("StreamHandlers.Handlers[%q]: the model needs no %s handler", h, h)
		}
	}
	defaults := sh.Defaults.or(builtinDefaults())
	for _, h := range needed {
		if o := sh.Handlers[h].or(defaults); o.ParallelizationFactor < MinParallelization || o.ParallelizationFactor > MaxParallelization {
			ps.add("StreamHandlers %s: ParallelizationFactor %v: expected %d to %d", h, o.ParallelizationFactor, MinParallelization, MaxParallelization)
		}
	}
}

// addHandlers builds the handlers the model calls for (their options
// checked: checkHandlers).
func (t *Table) addHandlers(d *patterns.Design) {
	sh := t.props.StreamHandlers
	if sh == nil {
		sh = &StreamHandlers{}
	}
	needed := d.Handlers()
	if sh.Disabled || len(needed) == 0 {
		return
	}
	layer, err := t.designLayer()
	if err != nil {
		t.problems = append(t.problems, fmt.Sprintf("StreamHandlers: the design layer: %v", err))
		return
	}
	defaults := sh.Defaults.or(builtinDefaults())
	t.Handlers = map[patterns.Handler]*StreamHandler{}
	for _, h := range needed {
		o := sh.Handlers[h].or(defaults) // checked: checkHandlers
		handler, err := NewStreamHandler(t, strings.ToUpper(string(h[:1]))+string(h[1:]), &StreamHandlerProps{
			Handler: h, Table: t, Layer: layer, Options: o, ArchiveBucket: sh.ArchiveBucket})
		if err != nil {
			t.problems = append(t.problems, fmt.Sprintf("StreamHandlers: %v", err))
			continue
		}
		t.Handlers[h] = handler
	}
}

func handlerList(hs []patterns.Handler) string {
	s := make([]string, len(hs))
	for i, h := range hs {
		s[i] = string(h)
	}
	return strings.Join(s, ", ")
}

// NewStreamHandler builds one handler of a keyplan table. The table
// (props.Table) must have been built; its design decides the handler's
// filters and its access.
func NewStreamHandler(scope constructs.Construct, id string, props *StreamHandlerProps) (*StreamHandler, error) {
	entry, module, err := handlerSource(props.Handler.Package())
	if err != nil {
		return nil, err
	}
	// Children take the embedded Construct as their scope: jsii knows it,
	// not the Go struct around it.
	h := &StreamHandler{Construct: constructs.NewConstruct(scope, jsii.String(id))}
	t, d, o := props.Table, props.Table.Design, props.Options
	h.LogGroup = awslogs.NewLogGroup(h.Construct, jsii.String("Logs"), &awslogs.LogGroupProps{Retention: o.LogRetention})
	h.Role = awsiam.NewRole(h.Construct, jsii.String("Role"), &awsiam.RoleProps{
		AssumedBy:   awsiam.NewServicePrincipal(jsii.String("lambda.amazonaws.com"), nil),
		Description: jsii.String("keyplan " + string(props.Handler) + " stream handler: its log group, the table's stream, and what its patterns use"),
	})
	h.LogGroup.GrantWrite(h.Role)
	// The records given up on: kept (RETAIN, 14 days; each message holds
	// the stream's ARN, the shard and the sequence range, to replay them
	// from the stream within its 24 hours: docs/operations.md), and an
	// alarm as soon as one arrives.
	h.Failures = awssqs.NewQueue(h.Construct, jsii.String("Failures"), &awssqs.QueueProps{
		Encryption:      awssqs.QueueEncryption_SQS_MANAGED,
		EnforceSSL:      jsii.Bool(true),
		RetentionPeriod: awscdk.Duration_Days(jsii.Number(14)),
		RemovalPolicy:   awscdk.RemovalPolicy_RETAIN,
	})
	h.FailuresAlarm = h.Failures.MetricApproximateNumberOfMessagesVisible(&awscloudwatch.MetricOptions{
		Period: awscdk.Duration_Minutes(jsii.Number(1)), Statistic: jsii.String("Maximum"),
	}).CreateAlarm(h.Construct, jsii.String("FailuresAlarm"), &awscloudwatch.CreateAlarmOptions{
		AlarmDescription: jsii.String("keyplan " + string(props.Handler) + " stream handler gave up on records: replay them from the stream within 24 h (docs/operations.md)"),
		Threshold:        jsii.Number(1), EvaluationPeriods: jsii.Number(1),
		ComparisonOperator: awscloudwatch.ComparisonOperator_GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
		TreatMissingData:   awscloudwatch.TreatMissingData_NOT_BREACHING,
	})
	env := map[string]*string{
		patterns.TableNameEnv: t.Table.TableName(),
		patterns.LockEnv:      jsii.String(patterns.DesignPath),
	}
	var bucket awss3.IBucket
	if props.Handler == patterns.HandlerArchive {
		bucket = props.ArchiveBucket
		if bucket == nil {
			bucket = archiveBucket(h.Construct)
		}
		env[patterns.ArchiveBucketEnv] = bucket.BucketName()
	}
	h.function(d, props.Handler, entry, module, props.Layer, env, o)
	h.UndecodableAlarm = awscloudwatch.NewMetric(&awscloudwatch.MetricProps{
		Namespace: jsii.String(patterns.MetricNamespace), MetricName: jsii.String(patterns.MetricUndecodable),
		DimensionsMap: &map[string]*string{patterns.MetricDimension: h.Function.FunctionName()},
		Period:        awscdk.Duration_Minutes(jsii.Number(1)), Statistic: jsii.String("Sum"),
	}).CreateAlarm(h.Construct, jsii.String("UndecodableAlarm"), &awscloudwatch.CreateAlarmOptions{
		AlarmDescription: jsii.String("keyplan " + string(props.Handler) + " stream handler skipped records it could not read (their keys are in its log: \"record skipped: undecodable\"; docs/operations.md)"),
		Threshold:        jsii.Number(1), EvaluationPeriods: jsii.Number(1),
		ComparisonOperator: awscloudwatch.ComparisonOperator_GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
		TreatMissingData:   awscloudwatch.TreatMissingData_NOT_BREACHING,
	})
	h.access(t, props.Handler, bucket)
	h.nagSuppressions(bucket != nil)
	h.events(t, props.Handler, o)
	return h, nil
}

// function is the Go function, built from keyplan's module.
func (h *StreamHandler) function(d *patterns.Design, handler patterns.Handler, entry, module string, layer awslambda.ILayerVersion, env map[string]*string, o HandlerOptions) {
	h.Function = goFunction(h.Construct, goFunctionProps{entry: entry, module: module, role: h.Role, logGroup: h.LogGroup, layer: layer, env: env,
		memory: o.MemorySize, timeout: o.Timeout, reserved: o.ReservedConcurrency,
		description: "keyplan " + string(handler) + " stream handler for " + d.Table})
}

// goFunctionProps are what keyplan's functions differ in.
type goFunctionProps struct {
	entry, module string
	role          awsiam.IRole
	logGroup      awslogs.ILogGroup
	layer         awslambda.ILayerVersion
	env           map[string]*string
	memory        float64
	timeout       awscdk.Duration
	reserved      float64
	description   string
}

// goFunction is one of keyplan's Go functions (provided.al2023, arm64,
// X-Ray, the design layer), built from keyplan's module by the local Go
// toolchain.
func goFunction(scope constructs.Construct, p goFunctionProps) awscdklambdagoalpha.GoFunction {
	var reserved *float64
	if p.reserved > 0 {
		reserved = jsii.Number(p.reserved)
	}
	fn := awscdklambdagoalpha.NewGoFunction(scope, jsii.String("Function"), &awscdklambdagoalpha.GoFunctionProps{
		Entry:                        jsii.String(p.entry),
		ModuleDir:                    jsii.String(filepath.Join(p.module, "go.mod")),
		Runtime:                      awslambda.Runtime_PROVIDED_AL2023(),
		Architecture:                 awslambda.Architecture_ARM_64(),
		MemorySize:                   jsii.Number(p.memory),
		Timeout:                      p.timeout,
		Role:                         p.role,
		LogGroup:                     p.logGroup,
		ReservedConcurrentExecutions: reserved,
		Environment:                  &p.env,
		Layers:                       &[]awslambda.ILayerVersion{p.layer},
		Description:                  jsii.String(p.description),
		Tracing:                      awslambda.Tracing_ACTIVE,
		Bundling: &awscdklambdagoalpha.BundlingOptions{
			CgoEnabled:   jsii.Bool(false),
			GoBuildFlags: jsii.Strings(shellFlags(HandlerBuildFlags)...),
		},
	})
	// Our own constant flags: reviewed, acknowledged.
	awscdk.Annotations_Of(scope).AcknowledgeWarning(jsii.String("@aws-cdk/aws-lambda-go-alpha:goBuildFlagsSecurityWarning"),
		jsii.String("keyplan's fixed flags: "+strings.Join(shellFlags(HandlerBuildFlags), " ")))
	return fn
}

// HandlerBuildFlags are the go build flags of keyplan's functions (as
// go build takes them, one argument each): no symbol table or DWARF, no
// file paths, and aws-lambda-go without its RPC mode (the go1.x
// runtime's, unused on provided.al2023): its net/rpc brings
// html/template, whose reflection keeps every exported method of the
// binary alive (4.6 of the fanout's 14.9 MB).
var HandlerBuildFlags = []string{"-tags=lambda.norpc", "-trimpath", "-ldflags=-s -w"}

// shellFlags writes flags for GoFunction, which joins them into a shell
// command: a value with a space is quoted.
func shellFlags(flags []string) []string {
	out := make([]string, len(flags))
	for i, f := range flags {
		if name, value, ok := strings.Cut(f, "="); ok && strings.ContainsRune(value, ' ') {
			f = name + `="` + value + `"`
		}
		out[i] = f
	}
	return out
}

// access grants the role exactly what the handler does to the table
// (patterns.Design.HandlerAccess), and to the archive bucket.
func (h *StreamHandler) access(t *Table, handler patterns.Handler, bucket awss3.IBucket) {
	a := t.Design.HandlerAccess(handler)
	if len(a.TableActions) > 0 {
		t.grant(h.Role, a.TableActions, model.BaseIndex)
	}
	if len(a.Reads) > 0 {
		t.GrantPatterns(h.Role, a.Reads...)
	}
	if len(a.OwnActions) > 0 {
		// Only on its own items: their partition keys start with OwnPrefix.
		h.Role.AddToPrincipalPolicy(awsiam.NewPolicyStatement(&awsiam.PolicyStatementProps{
			Actions:   jsii.Strings(a.OwnActions...),
			Resources: &[]*string{t.Table.TableArn()},
			Conditions: &map[string]any{"ForAllValues:StringLike": map[string]any{
				"dynamodb:LeadingKeys": []string{a.OwnPrefix + "*"},
			}},
		}))
	}
	if bucket != nil {
		h.Role.AddToPrincipalPolicy(awsiam.NewPolicyStatement(&awsiam.PolicyStatementProps{
			Actions:   jsii.Strings("s3:PutObject"),
			Resources: &[]*string{bucket.ArnForObjects(jsii.String(t.Design.Table + "/*"))},
		}))
	}
	if t.props.Encryption != nil && t.props.Encryption.Kind == CustomerManaged {
		t.Table.GrantOnKey(h.Role, jsii.String("kms:Decrypt"), jsii.String("kms:Encrypt"), jsii.String("kms:GenerateDataKey"))
	}
}

// nagSuppressions explains, for cdk-nag's packs, the findings that do not
// apply to a stream handler.
func (h *StreamHandler) nagSuppressions(archive bool) {
	dlq := "this queue is the event source mapping's on-failure destination: it is the dead-letter queue"
	suppress(h.Failures,
		suppression{ID: "AwsSolutions-SQS3", Reason: dlq},
		suppression{ID: "Serverless-SQSRedrivePolicy", Reason: dlq})
	suppress(h.Function, suppression{ID: "Serverless-LambdaDLQ",
		Reason: "the event source mapping invokes the function synchronously; records it gives up on go to the mapping's on-failure queue, which a function DLQ (for asynchronous invocations) would never see"})
	suppress(h.Role, suppression{ID: "AwsSolutions-IAM5",
		Reason:    "X-Ray's PutTraceSegments and PutTelemetryRecords have no resource-level permissions",
		AppliesTo: []any{"Resource::*"}})
	if archive {
		suppress(h.Role, suppression{ID: "AwsSolutions-IAM5",
			Reason:    "the archive handler writes one new object per batch under the table's prefix; object keys are not known in advance",
			AppliesTo: []any{map[string]any{"regex": "/^Resource::<.*Archive.*\\.Arn>\\/.*\\/\\*$/"}}})
	}
}

// events wires the table's stream to the function: partial batch
// failures, bisection, bounded retries, old records dropped to the queue,
// and the filters of patterns.Design.StreamFilters.
func (h *StreamHandler) events(t *Table, handler patterns.Handler, o HandlerOptions) {
	var fs []*map[string]any
	for _, f := range t.Design.StreamFilters(handler) {
		p := f.Pattern()
		h.Filters = append(h.Filters, jsonString(p))
		fs = append(fs, awslambda.FilterCriteria_Filter(&p))
	}
	h.Function.AddEventSource(awslambdaeventsources.NewDynamoEventSource(t.Table, &awslambdaeventsources.DynamoEventSourceProps{
		StartingPosition:        awslambda.StartingPosition_TRIM_HORIZON,
		BatchSize:               jsii.Number(o.BatchSize),
		BisectBatchOnError:      jsii.Bool(true),
		ReportBatchItemFailures: jsii.Bool(true),
		RetryAttempts:           jsii.Number(o.RetryAttempts),
		MaxRecordAge:            o.MaxRecordAge,
		ParallelizationFactor:   jsii.Number(o.ParallelizationFactor),
		OnFailure:               awslambdaeventsources.NewSqsDlq(h.Failures),
		Filters:                 &fs,
	}))
}

// archiveBucket is the default archive (retainedBucket).
func archiveBucket(parent constructs.Construct) awss3.Bucket {
	return retainedBucket(parent, "Bucket", "Archive", "archive/")
}

// jsonString renders a filter pattern (encoding/json sorts map keys).
func jsonString(v map[string]any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

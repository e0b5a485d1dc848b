package singletable

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/aws/aws-cdk-go/awscdk/v2"
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
	"github.com/cdklabs/cdk-nag-go/cdknag/v2"

	"github.com/keyplan/keyplan/patterns"
)

// The stream handlers keyplan ships, by the model feature that needs them.
const (
	Fanout   = "fanout"   // copies
	Counters = "counters" // counters
	Archive  = "archive"  // archive
)

// Environment variables the handlers read (lambdas/stream).
const (
	ModelEnv         = "KEYPLAN_MODEL"
	ArchiveBucketEnv = "KEYPLAN_ARCHIVE_BUCKET"
	bundledModel     = "model.yaml"
	// layerDir is where the design layer puts the model, under /opt.
	layerDir = "keyplan"
)

// HandlerModule is the Go module the handlers are built from.
const HandlerModule = "github.com/keyplan/keyplan"

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
	// Handlers override Defaults per handler (Fanout, Counters, Archive).
	// Default: none.
	Handlers map[string]HandlerOptions
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

// Handler is one synthesized stream handler.
type Handler struct {
	Function awscdklambdagoalpha.GoFunction
	Role     awsiam.Role
	// Failures receives the records the handler gave up on.
	Failures awssqs.Queue
	LogGroup awslogs.LogGroup
	// Filters are the event filter patterns, as JSON.
	Filters []string
}

// neededHandlers lists the handlers the model calls for.
func neededHandlers(m *patterns.Model) []string {
	var out []string
	need := map[string]bool{}
	for _, e := range m.Entities {
		need[Fanout] = need[Fanout] || len(e.Copies) > 0
		need[Counters] = need[Counters] || len(e.Counters) > 0
		need[Archive] = need[Archive] || e.Archive
	}
	for _, h := range []string{Fanout, Counters, Archive} {
		if need[h] {
			out = append(out, h)
		}
	}
	return out
}

// handlerSource finds a handler's package directory and its module root,
// whether keyplan is this module or a dependency (in the module cache).
// It asks for the module only: a CDK app's go.sum need not cover the
// handlers' own dependencies, which are built in keyplan's module.
func handlerSource(name string) (entry, module string, err error) {
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", HandlerModule).Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return "", "", fmt.Errorf("go list -m %s: %s", HandlerModule, strings.TrimSpace(string(ee.Stderr)))
		}
		return "", "", fmt.Errorf("go list: %w (the handlers are built with the local Go toolchain)", err)
	}
	module = strings.TrimSpace(string(out))
	if module == "" {
		return "", "", fmt.Errorf("go list -m %s: the module is not downloaded; run go mod download", HandlerModule)
	}
	return filepath.Join(module, "lambdas", name), module, nil
}

// designBundle stages the model file as the design layer's content, in
// Go: CDK calls TryBundle with the asset's output directory, and the file
// is copied there byte for byte. No path, and nothing of the model, ever
// reaches a shell (GoFunction's own bundling runs its build under bash -c,
// so keyplan adds nothing to it).
type designBundle struct{ model string }

func (b *designBundle) TryBundle(outputDir *string, _ *awscdk.BundlingOptions) *bool {
	dir := filepath.Join(*outputDir, layerDir)
	data, err := os.ReadFile(b.model)
	if err == nil {
		err = os.MkdirAll(dir, 0o755)
	}
	if err == nil {
		err = os.WriteFile(filepath.Join(dir, bundledModel), data, 0o644)
	}
	if err != nil {
		panic(fmt.Sprintf("singletable: staging the design layer: %v", err))
	}
	return jsii.Bool(true)
}

// designLayer is the Lambda layer that carries the model to every
// handler of the table, at /opt/keyplan/model.yaml. Its asset hash is the
// model's content, so an unchanged model is not staged again.
func designLayer(scope constructs.Construct, model string) (awslambda.LayerVersion, error) {
	data, err := os.ReadFile(model)
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(data)
	code := awslambda.Code_FromAsset(jsii.String(filepath.Dir(model)), &awss3assets.AssetOptions{
		AssetHash:     jsii.String(hex.EncodeToString(sum[:])),
		AssetHashType: awscdk.AssetHashType_CUSTOM,
		Bundling: &awscdk.BundlingOptions{
			// Never run: the local bundler always succeeds or fails synthesis.
			Image: awscdk.DockerImage_FromRegistry(jsii.String("scratch")),
			Local: &designBundle{model: model},
		},
	})
	return awslambda.NewLayerVersion(scope, jsii.String("Design"), &awslambda.LayerVersionProps{
		Code:                    code,
		CompatibleRuntimes:      &[]awslambda.Runtime{awslambda.Runtime_PROVIDED_AL2023()},
		CompatibleArchitectures: &[]awslambda.Architecture{awslambda.Architecture_ARM_64()},
		Description:             jsii.String("keyplan: the model the stream handlers read"),
	}), nil
}

// keyFilter is the stream filter on an entity's items: its base sort key
// constant (exactly, or as a prefix when values follow).
func keyFilter(d *patterns.Design, entity string) map[string]any {
	k := d.Entity(entity).Key(patterns.Table)
	lead := ""
	for _, s := range k.SK {
		if s.Lit == "" {
			break
		}
		lead += s.Lit
	}
	var match any = []any{lead}
	if len(k.SK.Attrs()) > 0 {
		match = []any{map[string]any{"prefix": lead}}
	}
	return map[string]any{"Keys": map[string]any{d.SK: map[string]any{"S": match}}}
}

// filters are the event patterns a handler needs: only its event names,
// only its entities' items.
func filters(d *patterns.Design, handler string) []map[string]any {
	m := d.Model()
	var out []map[string]any
	add := func(entity string, events []string, extra map[string]any) {
		f := map[string]any{"eventName": toAny(events), "dynamodb": keyFilter(d, entity)}
		for k, v := range extra {
			f[k] = v
		}
		out = append(out, f)
	}
	seen := map[string]bool{}
	for _, e := range m.Entities {
		switch handler {
		case Fanout:
			for _, c := range e.Copies {
				if !seen[c.FromEntity] {
					seen[c.FromEntity] = true
					add(c.FromEntity, []string{"MODIFY"}, nil)
				}
			}
		case Counters:
			for _, c := range e.Counters {
				if !seen[c.Child] {
					seen[c.Child] = true
					add(c.Child, []string{"INSERT", "MODIFY", "REMOVE"}, nil)
				}
			}
		case Archive:
			if e.Archive {
				add(e.Name, []string{"REMOVE"}, map[string]any{"userIdentity": map[string]any{
					"type": []any{"Service"}, "principalId": []any{"dynamodb.amazonaws.com"}}})
			}
		}
	}
	return out
}

func toAny(s []string) []any {
	out := make([]any, len(s))
	for i, v := range s {
		out[i] = v
	}
	return out
}

// handlerAccess is what a handler does to the table: actions on the
// table, and patterns it reads.
func handlerAccess(d *patterns.Design, handler string) (tableActions []string, reads []string) {
	switch handler {
	case Fanout:
		for _, e := range d.Model().Entities {
			for _, c := range e.Copies {
				if !contains(reads, c.Via) {
					reads = append(reads, c.Via)
				}
			}
		}
		return []string{"dynamodb:UpdateItem"}, reads
	case Counters:
		return []string{"dynamodb:PutItem", "dynamodb:UpdateItem"}, nil
	}
	return nil, nil
}

// addHandlers builds the handlers the model calls for.
func (t *Table) addHandlers(d *patterns.Design) {
	sh := t.props.StreamHandlers
	if sh == nil {
		sh = &StreamHandlers{}
	}
	names := neededHandlers(d.Model())
	if sh.Disabled || len(names) == 0 {
		return
	}
	for name := range sh.Handlers {
		if !contains([]string{Fanout, Counters, Archive}, name) {
			t.problems = append(t.problems, fmt.Sprintf("StreamHandlers.Handlers[%q]: expected %s, %s or %s", name, Fanout, Counters, Archive))
		} else if !contains(names, name) {
			t.problems = append(t.problems, fmt.Sprintf("StreamHandlers.Handlers[%q]: the model needs no %s handler", name, name))
		}
	}
	model := t.props.ModelFile
	if model == "" {
		t.problems = append(t.problems, "StreamHandlers: the handlers bundle the model file; give Props.ModelFile (or StreamHandlers.Disabled)")
		return
	}
	abs, err := filepath.Abs(model)
	if err != nil {
		t.problems = append(t.problems, err.Error())
		return
	}
	layer, err := designLayer(t, abs)
	if err != nil {
		t.problems = append(t.problems, fmt.Sprintf("StreamHandlers: reading the model: %v", err))
		return
	}
	defaults := sh.Defaults.or(builtinDefaults())
	t.Handlers = map[string]*Handler{}
	for _, name := range names {
		entry, module, err := handlerSource(name)
		if err != nil {
			t.problems = append(t.problems, fmt.Sprintf("StreamHandlers: %v", err))
			continue
		}
		o := sh.Handlers[name].or(defaults)
		if o.ParallelizationFactor < 1 || o.ParallelizationFactor > 10 {
			t.problems = append(t.problems, fmt.Sprintf("StreamHandlers %s: ParallelizationFactor %v: expected 1 to 10", name, o.ParallelizationFactor))
			continue
		}
		t.Handlers[name] = t.handler(d, name, entry, module, layer, o, sh)
	}
}

func (t *Table) handler(d *patterns.Design, name, entry, module string, layer awslambda.ILayerVersion, o HandlerOptions, sh *StreamHandlers) *Handler {
	scope := constructs.NewConstruct(t, jsii.String(strings.ToUpper(name[:1])+name[1:]))
	h := &Handler{}
	h.LogGroup = awslogs.NewLogGroup(scope, jsii.String("Logs"), &awslogs.LogGroupProps{Retention: o.LogRetention})
	h.Role = awsiam.NewRole(scope, jsii.String("Role"), &awsiam.RoleProps{
		AssumedBy:   awsiam.NewServicePrincipal(jsii.String("lambda.amazonaws.com"), nil),
		Description: jsii.String("keyplan " + name + " stream handler: its log group, the table's stream, and what its patterns use"),
	})
	h.LogGroup.GrantWrite(h.Role)
	h.Failures = awssqs.NewQueue(scope, jsii.String("Failures"), &awssqs.QueueProps{
		Encryption:      awssqs.QueueEncryption_SQS_MANAGED,
		EnforceSSL:      jsii.Bool(true),
		RetentionPeriod: awscdk.Duration_Days(jsii.Number(14)),
	})
	env := map[string]*string{
		TableNameEnv: t.Table.TableName(),
		ModelEnv:     jsii.String("/opt/" + layerDir + "/" + bundledModel),
	}
	var bucket awss3.IBucket
	if name == Archive {
		bucket = sh.ArchiveBucket
		if bucket == nil {
			bucket = archiveBucket(scope)
		}
		env[ArchiveBucketEnv] = bucket.BucketName()
	}
	var reserved *float64
	if o.ReservedConcurrency > 0 {
		reserved = jsii.Number(o.ReservedConcurrency)
	}
	h.Function = awscdklambdagoalpha.NewGoFunction(scope, jsii.String("Function"), &awscdklambdagoalpha.GoFunctionProps{
		Entry:                        jsii.String(entry),
		ModuleDir:                    jsii.String(filepath.Join(module, "go.mod")),
		Runtime:                      awslambda.Runtime_PROVIDED_AL2023(),
		Architecture:                 awslambda.Architecture_ARM_64(),
		MemorySize:                   jsii.Number(o.MemorySize),
		Timeout:                      o.Timeout,
		Role:                         h.Role,
		LogGroup:                     h.LogGroup,
		ReservedConcurrentExecutions: reserved,
		Environment:                  &env,
		Layers:                       &[]awslambda.ILayerVersion{layer},
		Description:                  jsii.String("keyplan " + name + " stream handler for " + d.Table),
		Tracing:                      awslambda.Tracing_ACTIVE,
		Bundling: &awscdklambdagoalpha.BundlingOptions{
			CgoEnabled:   jsii.Bool(false),
			GoBuildFlags: jsii.Strings(`-ldflags "-s -w"`, "-trimpath"),
		},
	})
	// Our own constant flags: reviewed, acknowledged.
	awscdk.Annotations_Of(scope).AcknowledgeWarning(jsii.String("@aws-cdk/aws-lambda-go-alpha:goBuildFlagsSecurityWarning"),
		jsii.String("keyplan's fixed flags: -ldflags \"-s -w\" -trimpath"))
	cdknag.NagSuppressions_AddResourceSuppressions(h.Failures, &[]*cdknag.NagPackSuppression{
		{Id: jsii.String("AwsSolutions-SQS3"), Reason: jsii.String("this queue is the event source mapping's on-failure destination: it is the dead-letter queue")},
		{Id: jsii.String("Serverless-SQSRedrivePolicy"), Reason: jsii.String("this queue is the event source mapping's on-failure destination: it is the dead-letter queue")},
	}, jsii.Bool(true))
	cdknag.NagSuppressions_AddResourceSuppressions(h.Function, &[]*cdknag.NagPackSuppression{
		{Id: jsii.String("Serverless-LambdaDLQ"), Reason: jsii.String("the event source mapping invokes the function synchronously; records it gives up on go to the mapping's on-failure queue, which a function DLQ (for asynchronous invocations) would never see")},
	}, jsii.Bool(true))
	cdknag.NagSuppressions_AddResourceSuppressions(h.Role, &[]*cdknag.NagPackSuppression{{
		Id:        jsii.String("AwsSolutions-IAM5"),
		Reason:    jsii.String("X-Ray's PutTraceSegments and PutTelemetryRecords have no resource-level permissions"),
		AppliesTo: &[]interface{}{"Resource::*"},
	}}, jsii.Bool(true))
	actions, reads := handlerAccess(d, name)
	if len(actions) > 0 {
		h.Role.AddToPrincipalPolicy(awsiam.NewPolicyStatement(&awsiam.PolicyStatementProps{
			Actions: jsii.Strings(actions...), Resources: &[]*string{t.Table.TableArn()},
		}))
	}
	if len(reads) > 0 {
		t.GrantPatterns(h.Role, reads...)
	}
	if bucket != nil {
		h.Role.AddToPrincipalPolicy(awsiam.NewPolicyStatement(&awsiam.PolicyStatementProps{
			Actions:   jsii.Strings("s3:PutObject"),
			Resources: &[]*string{bucket.ArnForObjects(jsii.String(d.Table + "/*"))},
		}))
		cdknag.NagSuppressions_AddResourceSuppressions(h.Role, &[]*cdknag.NagPackSuppression{{
			Id:        jsii.String("AwsSolutions-IAM5"),
			Reason:    jsii.String("the archive handler writes one new object per batch under the table's prefix; object keys are not known in advance"),
			AppliesTo: &[]interface{}{map[string]any{"regex": "/^Resource::<.*Archive.*\\.Arn>\\/.*\\/\\*$/"}},
		}}, jsii.Bool(true))
	}
	if t.props.Encryption != nil && t.props.Encryption.Kind == CustomerManaged {
		t.Table.GrantOnKey(h.Role, jsii.String("kms:Decrypt"), jsii.String("kms:Encrypt"), jsii.String("kms:GenerateDataKey"))
	}
	var fs []*map[string]any
	for _, f := range filters(d, name) {
		h.Filters = append(h.Filters, jsonString(f))
		fs = append(fs, awslambda.FilterCriteria_Filter(&f))
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
	return h
}

// archiveBucket is the default archive: private, TLS only, encrypted,
// versioned, with access logs, retained. Log delivery is granted by bucket
// policy, not the deprecated ACL: the feature flag is set on this subtree
// so the construct behaves the same in any app.
func archiveBucket(parent constructs.Construct) awss3.Bucket {
	scope := constructs.NewConstruct(parent, jsii.String("Bucket"))
	scope.Node().SetContext(jsii.String("@aws-cdk/aws-s3:serverAccessLogsUseBucketPolicy"), true)
	logs := awss3.NewBucket(scope, jsii.String("AccessLogs"), &awss3.BucketProps{
		BlockPublicAccess: awss3.BlockPublicAccess_BLOCK_ALL(),
		EnforceSSL:        jsii.Bool(true),
		Encryption:        awss3.BucketEncryption_S3_MANAGED,
		ObjectOwnership:   awss3.ObjectOwnership_BUCKET_OWNER_ENFORCED,
		Versioned:         jsii.Bool(true),
		RemovalPolicy:     awscdk.RemovalPolicy_RETAIN,
	})
	return awss3.NewBucket(scope, jsii.String("Archive"), &awss3.BucketProps{
		BlockPublicAccess:      awss3.BlockPublicAccess_BLOCK_ALL(),
		EnforceSSL:             jsii.Bool(true),
		Encryption:             awss3.BucketEncryption_S3_MANAGED,
		Versioned:              jsii.Bool(true),
		ServerAccessLogsBucket: logs,
		ServerAccessLogsPrefix: jsii.String("archive/"),
		RemovalPolicy:          awscdk.RemovalPolicy_RETAIN,
	})
}

// jsonString renders a filter pattern (encoding/json sorts map keys).
func jsonString(v map[string]any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

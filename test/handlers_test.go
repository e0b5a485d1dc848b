package test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/keyplan/keyplan/constructs/singletable"
	"github.com/keyplan/keyplan/patterns"
)

// byPrefix returns the resource of a type whose logical id starts with
// prefix.
func byPrefix(t *testing.T, tmpl map[string]any, typ, prefix string) (string, map[string]any) {
	t.Helper()
	for id, r := range resources(tmpl, typ) {
		if strings.HasPrefix(id, prefix) {
			return id, r
		}
	}
	t.Fatalf("no %s %s*", typ, prefix)
	return "", nil
}

// statements renders a policy as "actions on resources" lines, sorted.
func statements(pol map[string]any) []string {
	var out []string
	for _, st := range list(obj(props(pol)["PolicyDocument"])["Statement"]) {
		st := obj(st)
		var actions []string
		switch a := st["Action"].(type) {
		case string:
			actions = []string{a}
		case []any:
			for _, x := range a {
				actions = append(actions, x.(string))
			}
		}
		sort.Strings(actions)
		var res []string
		switch r := st["Resource"].(type) {
		case []any:
			for _, x := range r {
				res = append(res, resShape(x))
			}
		default:
			res = []string{resShape(r)}
		}
		sort.Strings(res)
		line := strings.Join(actions, ",") + " on " + strings.Join(res, ",")
		if c, ok := st["Condition"]; ok {
			b, _ := json.Marshal(c)
			line += " if " + string(b)
		}
		out = append(out, line)
	}
	sort.Strings(out)
	return out
}

// resShape names a resource by the logical id it points at.
func resShape(r any) string {
	if s, ok := r.(string); ok {
		return s
	}
	m := obj(r)
	if ga, ok := m["Fn::GetAtt"]; ok {
		return list(ga)[0].(string) + "." + list(ga)[1].(string)
	}
	if j, ok := m["Fn::Join"]; ok {
		var parts []string
		for _, p := range list(list(j)[1]) {
			parts = append(parts, resShape(p))
		}
		return strings.Join(parts, "")
	}
	b, _ := json.Marshal(r)
	return string(b)
}

func TestStreamHandlers(t *testing.T) {
	tests := []struct {
		stack, handler string
		filters        []string // each filter's event names and sort-key match
		statements     []string
	}{
		{"leaderboard", "Counters", []string{`INSERT,MODIFY,REMOVE {"prefix":"MATCH#"}`}, []string{
			"dynamodb:DescribeStream,dynamodb:GetRecords,dynamodb:GetShardIterator,dynamodb:ListStreams on LeaderboardTableEE164F4B.StreamArn",
			"dynamodb:PutItem,dynamodb:UpdateItem on LeaderboardTableEE164F4B.Arn",
			"logs:CreateLogStream,logs:PutLogEvents on LeaderboardCountersLogs19D194AF.Arn",
			"sqs:GetQueueAttributes,sqs:GetQueueUrl,sqs:SendMessage on LeaderboardCountersFailures93141D36.Arn",
			"xray:PutTelemetryRecords,xray:PutTraceSegments on *",
		}},
		{"leaderboard", "Archive", []string{`REMOVE {"prefix":"MATCH#"}`}, []string{
			"dynamodb:DescribeStream,dynamodb:GetRecords,dynamodb:GetShardIterator,dynamodb:ListStreams on LeaderboardTableEE164F4B.StreamArn",
			"logs:CreateLogStream,logs:PutLogEvents on LeaderboardArchiveLogsAEB7B32F.Arn",
			"s3:PutObject on LeaderboardArchiveBucketArchiveF38DDA13.Arn/Leaderboard/*",
			"sqs:GetQueueAttributes,sqs:GetQueueUrl,sqs:SendMessage on LeaderboardArchiveFailures47366AFC.Arn",
			"xray:PutTelemetryRecords,xray:PutTraceSegments on *",
		}},
		// The fanout's second filter and its own actions: its continuations.
		{"shop", "Fanout", []string{`MODIFY "CUSTOMER"`, `INSERT,MODIFY "~FANOUT"`}, []string{
			`dynamodb:DeleteItem,dynamodb:GetItem,dynamodb:PutItem on ShopTable9FD07E5E.Arn if {"ForAllValues:StringLike":{"dynamodb:LeadingKeys":["~FANOUT*"]}}`,
			"dynamodb:DescribeStream,dynamodb:GetRecords,dynamodb:GetShardIterator,dynamodb:ListStreams on ShopTable9FD07E5E.StreamArn",
			"dynamodb:Query on ShopTable9FD07E5E.Arn/index/GSI1", // CustomerOrders, exactly
			"dynamodb:UpdateItem on ShopTable9FD07E5E.Arn",
			"logs:CreateLogStream,logs:PutLogEvents on ShopFanoutLogs0497E84E.Arn",
			"sqs:GetQueueAttributes,sqs:GetQueueUrl,sqs:SendMessage on ShopFanoutFailures79C28E68.Arn",
			"xray:PutTelemetryRecords,xray:PutTraceSegments on *",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.handler, func(t *testing.T) {
			tmpl := templates[tt.stack]
			base := map[string]string{"leaderboard": "Leaderboard", "shop": "Shop"}[tt.stack] + tt.handler
			// GIVEN the model's handler WHEN synthesized THEN the function
			// is Go on provided.al2023/arm64, traced, with its own role.
			fnID, fn := byPrefix(t, tmpl, "AWS::Lambda::Function", base+"Function")
			fp := props(fn)
			if fp["Runtime"] != "provided.al2023" || list(fp["Architectures"])[0] != "arm64" || fp["Handler"] != "bootstrap" ||
				obj(fp["TracingConfig"])["Mode"] != "Active" || fp["MemorySize"] != 256.0 || fp["Timeout"] != 60.0 {
				t.Errorf("function %v", fp)
			}
			env := obj(obj(fp["Environment"])["Variables"])
			if env[patterns.LockEnv] != patterns.DesignPath || env[patterns.TableNameEnv] == nil {
				t.Errorf("environment %v", env)
			}
			// AND the event source mapping reports partial failures,
			// bisects, retries a bounded number of times, drops old
			// records, and sends what it gives up on to the queue.
			_, esm := byPrefix(t, tmpl, "AWS::Lambda::EventSourceMapping", base+"Function")
			ep := props(esm)
			if ep["FunctionName"].(map[string]any)["Ref"] != fnID || !slices.Equal(toStrings(ep["FunctionResponseTypes"]), []string{"ReportBatchItemFailures"}) ||
				ep["BisectBatchOnFunctionError"] != true || ep["MaximumRetryAttempts"] != 10.0 || ep["MaximumRecordAgeInSeconds"] != 86400.0 ||
				ep["StartingPosition"] != "TRIM_HORIZON" || ep["ParallelizationFactor"] != 1.0 || ep["BatchSize"] != 100.0 {
				t.Errorf("event source mapping %v", ep)
			}
			dest := resShape(obj(obj(obj(ep["DestinationConfig"])["OnFailure"]))["Destination"])
			if !strings.HasPrefix(dest, base+"Failures") {
				t.Errorf("on-failure destination %s", dest)
			}
			// AND filters keep only the handler's events on its entity's items.
			var pattern map[string]any
			var filters []string
			for _, f := range list(obj(ep["FilterCriteria"])["Filters"]) {
				pattern = nil
				json.Unmarshal([]byte(obj(f)["Pattern"].(string)), &pattern)
				sk, _ := json.Marshal(list(obj(obj(obj(pattern["dynamodb"])["Keys"])["SK"])["S"])[0])
				filters = append(filters, strings.Join(toStrings(pattern["eventName"]), ",")+" "+string(sk))
			}
			if !slices.Equal(filters, tt.filters) {
				t.Errorf("filters %v, want %v", filters, tt.filters)
			}
			if tt.handler == "Archive" {
				if ui := obj(pattern["userIdentity"]); toStrings(ui["principalId"])[0] != patterns.TTLPrincipal {
					t.Errorf("archive filter takes more than TTL removals: %v", pattern)
				}
			}
			// AND the queue is encrypted and refuses plain HTTP.
			qID, q := byPrefix(t, tmpl, "AWS::SQS::Queue", base+"Failures")
			if props(q)["SqsManagedSseEnabled"] != true || props(q)["MessageRetentionPeriod"] != 1209600.0 || q["DeletionPolicy"] != "Retain" {
				t.Errorf("queue %v (want encrypted, 14 days, retained)", q)
			}
			// AND an alarm goes off on the first record given up on.
			_, alarm := byPrefix(t, tmpl, "AWS::CloudWatch::Alarm", base+"FailuresAlarm")
			ap := props(alarm)
			dims := list(ap["Dimensions"])
			if ap["MetricName"] != "ApproximateNumberOfMessagesVisible" || ap["Threshold"] != 1.0 ||
				ap["ComparisonOperator"] != "GreaterThanOrEqualToThreshold" || len(dims) != 1 ||
				obj(obj(dims[0])["Value"])["Fn::GetAtt"] == nil || list(obj(obj(dims[0])["Value"])["Fn::GetAtt"])[0] != qID {
				t.Errorf("failure alarm %v", ap)
			}
			// AND one on the first record skipped as undecodable (never
			// retried: the failure queue does not see it), by the metric
			// the handler's log writes for its function.
			_, ua := byPrefix(t, tmpl, "AWS::CloudWatch::Alarm", base+"UndecodableAlarm")
			up := props(ua)
			udims := list(up["Dimensions"])
			if up["Namespace"] != patterns.MetricNamespace || up["MetricName"] != patterns.MetricUndecodable || up["Statistic"] != "Sum" ||
				up["Threshold"] != 1.0 || up["ComparisonOperator"] != "GreaterThanOrEqualToThreshold" || len(udims) != 1 ||
				obj(udims[0])["Name"] != patterns.MetricDimension || obj(obj(udims[0])["Value"])["Ref"] != fnID {
				t.Errorf("undecodable alarm %v", up)
			}
			_, qp := byPrefix(t, tmpl, "AWS::SQS::QueuePolicy", base+"Failures")
			if !denyInsecure(props(qp)["PolicyDocument"], qID) {
				t.Errorf("queue policy does not enforce TLS: %v", props(qp))
			}
			// AND the role holds exactly what the handler uses.
			_, logs := byPrefix(t, tmpl, "AWS::Logs::LogGroup", base+"Logs")
			if props(logs)["RetentionInDays"] != 30.0 {
				t.Errorf("log retention %v", props(logs)["RetentionInDays"])
			}
			if _, role := byPrefix(t, tmpl, "AWS::IAM::Role", base+"Role"); props(role)["ManagedPolicyArns"] != nil {
				t.Errorf("role has managed policies: %v", props(role)["ManagedPolicyArns"])
			}
			if got := statements(policyOf(t, tmpl, base+"Role")); !slices.Equal(got, tt.statements) {
				t.Errorf("policy:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tt.statements, "\n"))
			}
		})
	}
}

func toStrings(v any) []string {
	var out []string
	for _, x := range list(v) {
		out = append(out, x.(string))
	}
	return out
}

// denyInsecure reports whether a policy denies requests without TLS.
func denyInsecure(doc any, _ string) bool {
	for _, st := range list(obj(doc)["Statement"]) {
		st := obj(st)
		cond := obj(obj(st["Condition"])["Bool"])
		if st["Effect"] == "Deny" && cond["aws:SecureTransport"] == "false" {
			return true
		}
	}
	return false
}

// The archive bucket is private, TLS-only, encrypted, versioned and logged.
func TestArchiveBucket(t *testing.T) {
	tmpl := templates["leaderboard"]
	id, b := byPrefix(t, tmpl, "AWS::S3::Bucket", "LeaderboardArchiveBucketArchive")
	p := props(b)
	pab := obj(p["PublicAccessBlockConfiguration"])
	for _, k := range []string{"BlockPublicAcls", "BlockPublicPolicy", "IgnorePublicAcls", "RestrictPublicBuckets"} {
		if pab[k] != true {
			t.Errorf("%s = %v", k, pab[k])
		}
	}
	sse := obj(list(obj(p["BucketEncryption"])["ServerSideEncryptionConfiguration"])[0])
	if obj(sse["ServerSideEncryptionByDefault"])["SSEAlgorithm"] != "AES256" || obj(p["VersioningConfiguration"])["Status"] != "Enabled" ||
		!strings.HasPrefix(resShape(obj(p["LoggingConfiguration"])["DestinationBucketName"]), "{\"Ref\":\"LeaderboardArchiveBucketAccessLogs") {
		t.Errorf("bucket %v", p)
	}
	if b["DeletionPolicy"] != "Retain" {
		t.Errorf("DeletionPolicy %v", b["DeletionPolicy"])
	}
	// Log delivery by bucket policy, not the deprecated ACL.
	_, logs := byPrefix(t, tmpl, "AWS::S3::Bucket", "LeaderboardArchiveBucketAccessLogs")
	if _, acl := props(logs)["AccessControl"]; acl {
		t.Errorf("the access log bucket uses an ACL: %v", props(logs)["AccessControl"])
	}
	_, pol := byPrefix(t, tmpl, "AWS::S3::BucketPolicy", "LeaderboardArchiveBucketArchivePolicy")
	if !denyInsecure(props(pol)["PolicyDocument"], id) {
		t.Errorf("bucket policy does not enforce TLS")
	}
}

// maxBootstrap bounds each stream handler's binary (linux/arm64, built
// with singletable.HandlerBuildFlags): 11.2 to 11.5 MB today; without
// lambda.norpc they were 14.7 to 17.2 MB, with no flags 21 to 24.6 MB.
// maxBackfill bounds the backfill worker's, which carries the S3 client
// for a phase that moves values into or out of S3: 12.65 MB (11.6 MB
// before it did).
const (
	maxBootstrap = 12_000_000
	maxBackfill  = 13_000_000
)

// Every function keyplan builds (the stream handlers and the backfill
// worker), built as GoFunction builds it, stays under maxBootstrap (the backfill worker under maxBackfill).
func TestHandlerBinariesAreSmall(t *testing.T) {
	if testing.Short() {
		t.Skip("builds every function's binary")
	}
	pkgs := []string{patterns.BackfillWorker}
	for _, h := range patterns.Handlers() {
		pkgs = append(pkgs, h.Package())
	}
	for _, pkg := range pkgs {
		t.Run(filepath.Base(pkg), func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "bootstrap")
			args := append(append([]string{"build"}, singletable.HandlerBuildFlags...), "-o", out, "../"+pkg)
			cmd := exec.Command("go", args...)
			cmd.Env = append(os.Environ(), "GOOS=linux", "GOARCH=arm64", "CGO_ENABLED=0")
			if b, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("%v\n%s", err, b)
			}
			fi, err := os.Stat(out)
			if err != nil {
				t.Fatal(err)
			}
			limit := int64(maxBootstrap)
			if pkg == patterns.BackfillWorker {
				limit = maxBackfill
			}
			if fi.Size() >= limit {
				t.Errorf("%s is %d bytes; the limit is %d", pkg, fi.Size(), limit)
			}
			t.Logf("%s: %.2f MB", pkg, float64(fi.Size())/1e6)
		})
	}
}

// Each bundled handler holds its binary (linux/arm64, under maxBootstrap)
// and nothing else; the model they read is the design layer's one file, a
// byte-for-byte copy of the model.
func TestBundledHandlers(t *testing.T) {
	manifest, err := os.ReadFile(filepath.Join(assemblyDir, "KeyplanLeaderboard.assets.json"))
	if err != nil {
		t.Fatal(err)
	}
	var assets struct {
		Files map[string]struct {
			Source struct{ Path string } `json:"source"`
		} `json:"files"`
	}
	json.Unmarshal(manifest, &assets)
	want, err := os.ReadFile("../examples/leaderboard.lock.json")
	if err != nil {
		t.Fatal(err)
	}
	bundles, layers := 0, 0
	for _, f := range assets.Files {
		dir := filepath.Join(assemblyDir, f.Source.Path)
		entries, _ := os.ReadDir(dir)
		if lock, err := os.ReadFile(filepath.Join(dir, patterns.LayerDir, patterns.DesignFile)); err == nil {
			layers++
			// The layer is the committed lock, byte for byte: what the
			// handlers read is what the repository reviewed.
			if string(lock) != string(want) || len(entries) != 1 {
				t.Errorf("%s: the design layer holds %d entries and a lock of %d bytes, want the lock file alone", dir, len(entries), len(lock))
			}
			continue
		}
		bin, err := os.Stat(filepath.Join(dir, "bootstrap"))
		if err != nil {
			continue
		}
		bundles++
		t.Logf("%s: bootstrap %.2f MB", f.Source.Path, float64(bin.Size())/1e6)
		if bin.Size() >= maxBootstrap || len(entries) != 1 {
			t.Errorf("%s: bootstrap is %d bytes beside %d other entries", dir, bin.Size(), len(entries)-1)
		}
		head := make([]byte, 20)
		fh, _ := os.Open(filepath.Join(dir, "bootstrap"))
		fh.Read(head)
		fh.Close()
		if string(head[:4]) != "\x7fELF" || head[18] != 0xb7 { // EM_AARCH64
			t.Errorf("%s: bootstrap is not a linux/arm64 ELF", dir)
		}
	}
	if bundles != 2 || layers != 1 {
		t.Errorf("%d bundled handlers and %d design layers in the leaderboard stack, want 2 (counters, archive) and 1", bundles, layers)
	}
}

// The synthesized assembly's CloudFormation validation report is empty:
// no deprecated property, no deprecated runtime, nothing suppressed.
func TestValidationReportEmpty(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(assemblyDir, "validation-report.json"))
	if err != nil {
		t.Skipf("no validation report in this assembly: %v", err)
	}
	var report struct {
		PluginReports []any `json:"pluginReports"`
	}
	if err := json.Unmarshal(b, &report); err != nil {
		t.Fatal(err)
	}
	if len(report.PluginReports) != 0 {
		t.Errorf("validation report: %s", b)
	}
}

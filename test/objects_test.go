package test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/assertions"
	"github.com/aws/jsii-runtime-go"
	"github.com/cdklabs/cdk-nag-go/cdknag/v2"

	"github.com/keyplan/keyplan/constructs/singletable"
	"github.com/keyplan/keyplan/internal/testkit/enginepass"
	"github.com/keyplan/keyplan/patterns"
	"github.com/keyplan/keyplan/patterns/model"
)

// The bucket a model's store: s3 attributes are kept in (issue 39 part
// 4): ledger's Account.statement. Encrypted, TLS only (a bucket policy
// denying aws:SecureTransport false), versioned, public access blocked,
// access-logged, retained on delete and on replacement; a read pattern's
// role may get its entity's objects and nothing else of the bucket. A
// model keeping nothing in S3 gets no bucket.
func TestObjectsBucket(t *testing.T) {
	enginepass.Independent(t)
	tmpl := templates["ledger"]
	var id string
	var bucket map[string]any
	for k, b := range resources(tmpl, "AWS::S3::Bucket") {
		if strings.Contains(k, "ObjectsBucketObjects") {
			if id != "" {
				t.Fatalf("two objects buckets: %s, %s", id, k)
			}
			id, bucket = k, b
		}
	}
	if bucket == nil {
		t.Fatalf("no objects bucket among %v", keys(resources(tmpl, "AWS::S3::Bucket")))
	}
	if bucket["DeletionPolicy"] != "Retain" || bucket["UpdateReplacePolicy"] != "Retain" {
		t.Errorf("bucket %s not retained: %v, %v", id, bucket["DeletionPolicy"], bucket["UpdateReplacePolicy"])
	}
	p := props(bucket)
	enc := jsonOf(p["BucketEncryption"])
	if !strings.Contains(enc, `"SSEAlgorithm":"AES256"`) {
		t.Errorf("bucket encryption %s", enc)
	}
	if v := obj(p["VersioningConfiguration"]); v["Status"] != "Enabled" {
		t.Errorf("versioning %v", v)
	}
	pab := obj(p["PublicAccessBlockConfiguration"])
	for _, k := range []string{"BlockPublicAcls", "BlockPublicPolicy", "IgnorePublicAcls", "RestrictPublicBuckets"} {
		if pab[k] != true {
			t.Errorf("public access %s = %v", k, pab[k])
		}
	}
	if l := obj(p["LoggingConfiguration"]); l["LogFilePrefix"] != "objects/" || l["DestinationBucketName"] == nil {
		t.Errorf("access logs %v", l)
	}
	tls := false
	for _, bp := range resources(tmpl, "AWS::S3::BucketPolicy") {
		pp := props(bp)
		if obj(pp["Bucket"])["Ref"] != id {
			continue
		}
		for _, st := range list(obj(pp["PolicyDocument"])["Statement"]) {
			s := jsonOf(st)
			tls = tls || (obj(st)["Effect"] == "Deny" && strings.Contains(s, `"aws:SecureTransport":"false"`))
		}
	}
	if !tls {
		t.Error("no statement denies requests without TLS")
	}
	// LedgerBatchReader (GetAccounts) may get Account's objects only.
	got := false
	for _, pol := range resources(tmpl, "AWS::IAM::Policy") {
		for _, st := range list(obj(props(pol)["PolicyDocument"])["Statement"]) {
			s := jsonOf(st)
			if !strings.Contains(s, "s3:") {
				continue
			}
			if jsonOf(obj(st)["Action"]) != `"s3:GetObject"` || !strings.Contains(s, `"Fn::GetAtt":["`+id+`","Arn"]},"/Account/*"`) {
				t.Errorf("an S3 grant other than GetObject on Account/*: %s", s)
			}
			got = true
		}
	}
	if !got {
		t.Error("GetAccounts's role may not read Account's objects")
	}
	for _, name := range []string{"leaderboard", "shop", "tracker"} {
		for k := range resources(templates[name], "AWS::S3::Bucket") {
			if strings.Contains(k, "Objects") {
				t.Errorf("%s keeps nothing in S3 but has bucket %s", name, k)
			}
		}
	}
}

func jsonOf(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func keys[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// movingModel keeps File's data in S3; v2 moves Doc's body there too.
const movingModel = `table: Library
entities:
  Doc:
    id: [docId]
    attributes:
      docId: {type: string, maxLength: 36}
      body: {type: string, maxLength: 300000}
  File:
    id: [fileId]
    attributes:
      fileId: {type: string, maxLength: 36}
      data: {type: blob, maxLength: 5000000, store: s3}
writes:
  PutDoc: {put: Doc}
  PutFile: {put: File}
patterns:
  GetDoc: {get: Doc}
  GetFile: {get: File}
`

// The backfill job of a phase moving values into S3 (store: s3 added to
// Doc.body) is given the objects bucket: its name in
// $KEYPLAN_OBJECTS_BUCKET, s3:PutObject, s3:DeleteObject and
// s3:GetObject (HeadObject: does a key an item holds name an object) on
// Doc's objects (Doc/*) alone, not File's, and s3:ListBucket on the
// bucket (a missing key's HeadObject is a 404, not a 403); cdk-nag's
// packs clean. A phase moving nothing gets neither.
func TestBackfillJobGetsTheObjectsBucket(t *testing.T) {
	enginepass.Independent(t)
	plan := func(src string, lock *patterns.Lock) *patterns.Design {
		t.Helper()
		m, err := model.Parse("library.yaml", []byte(src))
		if err != nil {
			t.Fatal(err)
		}
		m.IndexKeys = model.IndexKeysSynthetic
		if lock == nil {
			d, err := patterns.Plan(m)
			if err != nil {
				t.Fatal(err)
			}
			return d
		}
		d, err := patterns.PlanLocked(m, lock)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	lock := patterns.NewLock(plan(movingModel, nil))
	v2 := strings.Replace(movingModel, "body: {type: string, maxLength: 300000}", "body: {type: string, maxLength: 300000, store: s3}", 1)
	d2 := plan(v2, lock)
	if err := lock.Apply(d2, patterns.Compare(lock, d2)); err != nil || lock.Migration == nil {
		t.Fatalf("starting the migration: %v", err)
	}
	app := awscdk.NewApp(&awscdk.AppProps{Context: cdkContext()})
	stack := awscdk.NewStack(app, jsii.String("Moving"), &awscdk.StackProps{Env: &awscdk.Environment{Region: jsii.String("us-east-1")}})
	tbl := singletable.New(stack, "Library", &singletable.Props{
		Model: d2.Model(), Lock: lock,
		StreamHandlers: &singletable.StreamHandlers{Disabled: true},
		Backfill:       &singletable.Backfill{Segments: 2},
	})
	if p := validate(tbl); p != "" {
		t.Fatal(p)
	}
	if tbl.Backfill == nil || tbl.ObjectsBucket == nil {
		t.Fatalf("backfill job %v, bucket %v", tbl.Backfill, tbl.ObjectsBucket)
	}
	awscdk.Aspects_Of(app).Add(cdknag.NewAwsSolutionsChecks(&cdknag.NagPackProps{Verbose: jsii.Bool(true)}), nil)
	awscdk.Aspects_Of(app).Add(cdknag.NewServerlessChecks(&cdknag.NagPackProps{Verbose: jsii.Bool(true)}), nil)
	doc := toMap(assertions.Template_FromStack(stack, nil).ToJSON())
	var bucket string
	for k := range resources(doc, "AWS::S3::Bucket") {
		if strings.Contains(k, "ObjectsBucketObjects") {
			bucket = k
		}
	}
	_, fn := byPrefix(t, doc, "AWS::Lambda::Function", "LibraryBackfillFunction")
	env := obj(obj(props(fn)["Environment"])["Variables"])
	if jsonOf(env[patterns.ObjectsBucketEnv]) != `{"Ref":"`+bucket+`"}` {
		t.Errorf("the worker's $%s is %s, want the objects bucket %s", patterns.ObjectsBucketEnv, jsonOf(env[patterns.ObjectsBucketEnv]), bucket)
	}
	_, pol := byPrefix(t, doc, "AWS::IAM::Policy", "LibraryBackfillRoleDefaultPolicy")
	var s3 []string
	for _, s := range statements(pol) {
		if strings.Contains(s, "s3:") {
			s3 = append(s3, s)
		}
	}
	want := []string{"s3:DeleteObject,s3:GetObject,s3:PutObject on " + bucket + ".Arn/Doc/*", "s3:ListBucket on " + bucket + ".Arn"}
	if !slices.Equal(s3, want) {
		t.Errorf("the worker's S3 access: %v\nwant %s", s3, want)
	}
	ann := assertions.Annotations_FromStack(stack)
	for _, a := range *ann.FindError(jsii.String("*"), assertions.Match_AnyValue()) {
		t.Errorf("error: %s", toString(a))
	}
	for _, a := range *ann.FindWarning(jsii.String("*"), assertions.Match_AnyValue()) {
		t.Errorf("warning: %s", toString(a))
	}
}

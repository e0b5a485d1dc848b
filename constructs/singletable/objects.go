package singletable

import (
	"maps"
	"slices"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsiam"
	"github.com/aws/aws-cdk-go/awscdk/v2/awss3"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"

	"github.com/keyplan/keyplan/patterns"
)

// addObjects makes the bucket the model's store: s3 attributes are kept
// in (patterns/objects.go), when it has any: private, TLS only,
// encrypted, versioned (an overwritten or deleted value's versions stay),
// with access logs, retained when the stack goes. The runtime writes an
// object before the item holding its key and deletes it after
// (patterns/dynamo, S3Objects on ObjectsBucket).
func (t *Table) addObjects(d *patterns.Design) {
	if !d.Model().HasObjects() {
		return
	}
	t.ObjectsBucket = retainedBucket(t, "ObjectsBucket", "Objects", "objects/")
	t.grantBackfillObjects()
}

// grantBackfillObjects gives the backfill job what the phase's moves of
// values into or out of S3 need (patterns.Lock.StoreMoves), and the
// bucket's name ($KEYPLAN_OBJECTS_BUCKET, dynamo.ObjectsFromEnv): into
// S3, s3:PutObject (and s3:DeleteObject, for the object of an item a
// racing write changed); out of S3, s3:DeleteObject (the object once its
// item holds the value); both, s3:GetObject (the value read back, and
// the HeadObject with which the backfill and the verifying scan ask
// whether a key an item holds names an object, dynamo.HasObject): each
// on the moving entities' keys only (<entity>/*). And s3:ListBucket on
// the bucket, without which S3 answers such a HeadObject 403 instead of
// 404 for a key it does not hold, so a value shaped like a key stops the
// run instead of being counted failed (a prefix condition does not
// apply: a HeadObject has no s3:prefix). A phase moving nothing gets
// none of it: its rewrites never touch an object (the item keeps its
// key).
func (t *Table) grantBackfillObjects() {
	j := t.Backfill
	if j == nil || t.Lock.Migration == nil {
		return
	}
	mg := t.Lock.Migration
	phase := mg.Phases[mg.Current].Backfill
	actions := map[string]map[string]bool{} // entity → actions
	for _, mv := range t.Lock.StoreMoves() {
		if !slices.Contains(phase, mv.Entity) {
			continue
		}
		if actions[mv.Entity] == nil {
			actions[mv.Entity] = map[string]bool{"s3:DeleteObject": true, "s3:GetObject": true}
		}
		if mv.IntoS3 {
			actions[mv.Entity]["s3:PutObject"] = true
		}
	}
	for _, e := range slices.Sorted(maps.Keys(actions)) {
		awsiam.Grant_AddToPrincipal(&awsiam.GrantOnPrincipalOptions{Grantee: j.Role,
			Actions:      jsii.Strings(slices.Sorted(maps.Keys(actions[e]))...),
			ResourceArns: &[]*string{t.ObjectsBucket.ArnForObjects(jsii.String(e + "/*"))}})
	}
	if len(actions) > 0 {
		awsiam.Grant_AddToPrincipal(&awsiam.GrantOnPrincipalOptions{Grantee: j.Role,
			Actions: jsii.Strings("s3:ListBucket"), ResourceArns: &[]*string{t.ObjectsBucket.BucketArn()}})
		j.Function.AddEnvironment(jsii.String(patterns.ObjectsBucketEnv), t.ObjectsBucket.BucketName(), nil)
		suppress(j.Role, suppression{ID: "AwsSolutions-IAM5",
			Reason:    "the backfill moves values into or out of S3 under the moving entities' prefixes (<entity>/*); each object's key is made when its value moves",
			AppliesTo: []any{map[string]any{"regex": "/^Resource::<.*ObjectsBucketObjects.*\\.Arn>\\/[^/*]+\\/\\*$/"}}})
	}
}

// retainedBucket is a private, TLS-only, encrypted, versioned bucket
// with access logs (a bucket of its own beside it), retained: id names
// it inside a construct scope (whose id stays, so do the logical ids).
// Log delivery is granted by bucket policy, not the deprecated ACL: the
// feature flag is set on this subtree so the construct behaves the same
// in any app.
func retainedBucket(parent constructs.Construct, scopeID, id, logPrefix string) awss3.Bucket {
	scope := constructs.NewConstruct(parent, jsii.String(scopeID))
	scope.Node().SetContext(jsii.String("@aws-cdk/aws-s3:serverAccessLogsUseBucketPolicy"), true)
	logs := awss3.NewBucket(scope, jsii.String("AccessLogs"), &awss3.BucketProps{
		BlockPublicAccess: awss3.BlockPublicAccess_BLOCK_ALL(),
		EnforceSSL:        jsii.Bool(true),
		Encryption:        awss3.BucketEncryption_S3_MANAGED,
		ObjectOwnership:   awss3.ObjectOwnership_BUCKET_OWNER_ENFORCED,
		Versioned:         jsii.Bool(true),
		RemovalPolicy:     awscdk.RemovalPolicy_RETAIN,
	})
	return awss3.NewBucket(scope, jsii.String(id), &awss3.BucketProps{
		BlockPublicAccess:      awss3.BlockPublicAccess_BLOCK_ALL(),
		EnforceSSL:             jsii.Bool(true),
		Encryption:             awss3.BucketEncryption_S3_MANAGED,
		Versioned:              jsii.Bool(true),
		ServerAccessLogsBucket: logs,
		ServerAccessLogsPrefix: jsii.String(logPrefix),
		RemovalPolicy:          awscdk.RemovalPolicy_RETAIN,
	})
}

// grantObjects grants what the named patterns do to the objects of the
// entities they read or write: s3:GetObject for a read pattern,
// s3:PutObject and s3:DeleteObject for a write pattern, each on its
// entities' keys only (<entity>/*).
func (t *Table) grantObjects(grantee awsiam.IGrantable, names []string) {
	if t.ObjectsBucket == nil {
		return
	}
	m := t.Design.Model()
	reads, writes := map[string]bool{}, map[string]bool{}
	for _, n := range names {
		if p := m.Pattern(n); p != nil {
			for _, e := range p.Entities {
				reads[e] = true
			}
		}
		if w := m.Write(n); w != nil {
			for _, s := range w.Items() {
				writes[s.Entity] = true
			}
		}
	}
	grant := func(entities map[string]bool, actions ...string) {
		var resources []*string
		for _, e := range m.Entities {
			if entities[e.Name] && len(e.ObjectAttrs()) > 0 {
				resources = append(resources, t.ObjectsBucket.ArnForObjects(jsii.String(e.Name+"/*")))
			}
		}
		if len(resources) > 0 {
			awsiam.Grant_AddToPrincipal(&awsiam.GrantOnPrincipalOptions{Grantee: grantee, Actions: jsii.Strings(slices.Sorted(slices.Values(actions))...), ResourceArns: &resources})
		}
	}
	grant(reads, "s3:GetObject")
	grant(writes, "s3:PutObject", "s3:DeleteObject")
}

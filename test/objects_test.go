package test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/keyplan/keyplan/internal/testkit/enginepass"
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

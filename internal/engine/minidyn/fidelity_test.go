package minidyn

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"

	"github.com/keyplan/keyplan/internal/engine/sdkhttp"
)

// The fidelity tests: each checks one behaviour the engine shares with
// DynamoDB (issue 21's groups), through the SDK. They were written from
// what DynamoDB Local 1.25.1 does, and run against it too: with
// MINIDYN_REFERENCE_ENDPOINT set (e.g. http://127.0.0.1:8000, a running
// DynamoDB Local), every test runs on both engines, so an assertion that
// only the engine satisfies fails. A case where DynamoDB Local differs
// from AWS DynamoDB (the engine follows AWS: the Alternator suite shows
// what AWS does) says so and skips on the reference.

// EnvReferenceEndpoint names a DynamoDB-compatible endpoint (DynamoDB
// Local) the fidelity tests also run against.
const EnvReferenceEndpoint = "MINIDYN_REFERENCE_ENDPOINT"

type engineUnderTest struct {
	name string
	db   *dynamodb.Client
	ref  bool
}

// engines is the in-process engine, and the reference when one is set.
func engines(t *testing.T) []engineUnderTest {
	t.Helper()

	out := []engineUnderTest{{name: "memory", db: start(t)}}

	if ep := os.Getenv(EnvReferenceEndpoint); ep != "" {
		db := dynamodb.New(dynamodb.Options{Region: "us-east-1", BaseEndpoint: aws.String(ep),
			HTTPClient: sdkhttp.Client(), Credentials: credentials.NewStaticCredentialsProvider("k", "k", "")})
		out = append(out, engineUnderTest{name: "reference", db: db, ref: true})
	}

	return out
}

// each runs f on every engine under test, as a subtest.
func each(t *testing.T, f func(t *testing.T, e engineUnderTest)) {
	for _, e := range engines(t) {
		t.Run(e.name, func(t *testing.T) { f(t, e) })
	}
}

// awsOnly skips a check on the reference: DynamoDB Local differs from AWS
// there (why says how).
func (e engineUnderTest) awsOnly(t *testing.T, why string) {
	t.Helper()

	if e.ref {
		t.Skip("DynamoDB Local differs from AWS: " + why)
	}
}

var ctx = context.Background()

func uniqueName(t *testing.T) string {
	t.Helper()

	b := make([]byte, 6)
	_, _ = rand.Read(b)

	return "fid_" + hex.EncodeToString(b)
}

// schema is a table for a test: hash key p (S), optional sort key c, and
// optional indexes.
type schema struct {
	sortType types.ScalarAttributeType
	attrs    []types.AttributeDefinition
	gsis     []types.GlobalSecondaryIndex
	lsis     []types.LocalSecondaryIndex
}

func makeTable(t *testing.T, db *dynamodb.Client, s schema) string {
	t.Helper()

	name := uniqueName(t)
	in := &dynamodb.CreateTableInput{
		TableName:            aws.String(name),
		BillingMode:          types.BillingModePayPerRequest,
		AttributeDefinitions: append([]types.AttributeDefinition{{AttributeName: aws.String("p"), AttributeType: types.ScalarAttributeTypeS}}, s.attrs...),
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("p"), KeyType: types.KeyTypeHash}},
	}

	if s.sortType != "" {
		in.AttributeDefinitions = append(in.AttributeDefinitions, types.AttributeDefinition{AttributeName: aws.String("c"), AttributeType: s.sortType})
		in.KeySchema = append(in.KeySchema, types.KeySchemaElement{AttributeName: aws.String("c"), KeyType: types.KeyTypeRange})
	}

	if s.gsis != nil {
		in.GlobalSecondaryIndexes = s.gsis
	}

	if s.lsis != nil {
		in.LocalSecondaryIndexes = s.lsis
	}

	if _, err := db.CreateTable(ctx, in); err != nil {
		t.Fatalf("CreateTable: %v", err)
	}

	t.Cleanup(func() {
		_, _ = db.DeleteTable(context.Background(), &dynamodb.DeleteTableInput{TableName: aws.String(name)})
	})

	return name
}

func gsi(name, hash string, projection types.ProjectionType, include ...string) types.GlobalSecondaryIndex {
	p := &types.Projection{ProjectionType: projection}
	if include != nil {
		p.NonKeyAttributes = include
	}

	return types.GlobalSecondaryIndex{IndexName: aws.String(name), Projection: p,
		KeySchema: []types.KeySchemaElement{{AttributeName: aws.String(hash), KeyType: types.KeyTypeHash}}}
}

func attr(name string, typ types.ScalarAttributeType) types.AttributeDefinition {
	return types.AttributeDefinition{AttributeName: aws.String(name), AttributeType: typ}
}

// wantAPIError fails unless err is the DynamoDB error code whose message
// holds every one of parts.
func wantAPIError(t *testing.T, err error, code string, parts ...string) {
	t.Helper()

	var api smithy.APIError
	if !errors.As(err, &api) {
		t.Fatalf("want %s, got %v", code, err)
	}

	if api.ErrorCode() != code {
		t.Fatalf("want %s, got %s: %s", code, api.ErrorCode(), api.ErrorMessage())
	}

	for _, p := range parts {
		if !strings.Contains(api.ErrorMessage(), p) {
			t.Fatalf("want %s mentioning %q, got %q", code, p, api.ErrorMessage())
		}
	}
}

func mustOK(t *testing.T, err error) {
	t.Helper()

	if err != nil {
		t.Fatal(err)
	}
}

func getItem(t *testing.T, db *dynamodb.Client, table string, key map[string]types.AttributeValue) map[string]types.AttributeValue {
	t.Helper()

	out, err := db.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(table), Key: key, ConsistentRead: aws.Bool(true)})
	mustOK(t, err)

	return out.Item
}

func key(p string) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{"p": str(p)}
}

func values(kv ...any) map[string]types.AttributeValue {
	out := map[string]types.AttributeValue{}
	for i := 0; i < len(kv); i += 2 {
		out[kv[i].(string)] = kv[i+1].(types.AttributeValue)
	}

	return out
}

func sOf(t *testing.T, v types.AttributeValue) string {
	t.Helper()

	s, ok := v.(*types.AttributeValueMemberS)
	if !ok {
		t.Fatalf("want a string, got %#v", v)
	}

	return s.Value
}

func nOf(t *testing.T, v types.AttributeValue) string {
	t.Helper()

	n, ok := v.(*types.AttributeValueMemberN)
	if !ok {
		t.Fatalf("want a number, got %#v", v)
	}

	return n.Value
}

func asErr[T error](err error, target *T) bool { return errors.As(err, target) }

// A table name that breaks a rule is refused naming that rule: the
// length (3 to 255) for P1, the characters for a!b, both for a!, as AWS
// DynamoDB's ValidationException words them (issue 34: P1 was refused
// with the character pattern alone). DynamoDB Local names both rules in
// one sentence whatever the name breaks: on it the rule broken must be
// named, in its words.
func TestATableNameIsRefusedNamingTheRuleBroken(t *testing.T) {
	const (
		length = "Member must have length greater than or equal to 3"
		chars  = "Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+"
	)

	each(t, func(t *testing.T, e engineUnderTest) {
		for name, want := range map[string][]string{
			"P1":                     {"1 validation error detected: Value 'P1' at 'tableName' failed to satisfy constraint: " + length},
			"a!b":                    {"1 validation error detected", chars},
			"a!":                     {"2 validation errors detected", chars, length},
			strings.Repeat("x", 256): {"Member must have length less than or equal to 255"},
		} {
			if e.ref {
				want = []string{"between 3 and 255 characters long"}
				if strings.Contains(name, "!") {
					want = []string{"may contain only the characters a-z, A-Z, 0-9, '_', '-', and '.'"}
				}
			}

			_, err := e.db.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(name)})

			var api smithy.APIError
			if !errors.As(err, &api) || api.ErrorCode() != "ValidationException" {
				t.Errorf("%.10s: %v", name, err)
				continue
			}

			for _, w := range want {
				if !strings.Contains(api.ErrorMessage(), w) {
					t.Errorf("%.10s: %q lacks %q", name, api.ErrorMessage(), w)
				}
			}
		}
	})
}

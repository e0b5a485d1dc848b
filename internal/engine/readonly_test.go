package engine

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"

	"github.com/keyplan/keyplan/internal/engine/minidyn"
	"github.com/keyplan/keyplan/internal/engine/usercache"
)

func accessDenied(err error) bool {
	var ae smithy.APIError
	return errors.As(err, &ae) && ae.ErrorCode() == "AccessDeniedException"
}

// createTable is a table a write would make (what the read-only key is
// refused).
func createTable(name string) *dynamodb.CreateTableInput {
	return &dynamodb.CreateTableInput{TableName: aws.String(name), BillingMode: types.BillingModePayPerRequest,
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("PK"), KeyType: types.KeyTypeHash}},
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("PK"), AttributeType: types.ScalarAttributeTypeS}}}
}

// keyplan local --read-only-key: a second key, its secret made for the run
// (or the environment's, or a file's), in the key file as [read-only];
// its requests read and never write; keyplan's own client signs with it
// under AWS_PROFILE=read-only, and so does any AWS client with the key
// file and that profile.
func TestServeLocalReadOnlyKey(t *testing.T) {
	t.Setenv(usercache.Env, t.TempDir())
	t.Setenv(EnvLocalReadOnlySecretAccessKey, "")
	t.Setenv(EnvLocalReadOnlyAccessKeyID, "")
	t.Setenv("AWS_PROFILE", "")
	ctx := context.Background()
	l, err := ServeLocal(LocalOptions{ReadOnlyAccessKeyID: "READER_1"})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	id, secret, err := minidyn.ReadProfile(l.KeyFile, ReadOnlyProfile)
	if err != nil || id != "READER_1" || len(secret) != 40 {
		t.Fatalf("the key file's [read-only]: %q %q %v", id, secret, err)
	}
	if b := l.Banner(); !strings.Contains(b, "read-only key id READER_1") || strings.Contains(b, secret) {
		t.Errorf("the banner: %s", b)
	}
	if _, err := Client(l.Endpoint, 0).CreateTable(ctx, createTable("full")); err != nil {
		t.Fatalf("the full key writes: %v", err)
	}
	ro := withKey(l.Endpoint, "READER_1", secret)
	if _, err := ro.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("full")}); err != nil {
		t.Errorf("the read-only key reads: %v", err)
	}
	if _, err := ro.CreateTable(ctx, createTable("denied")); !accessDenied(err) || !strings.Contains(err.Error(), "dynamodb:CreateTable") {
		t.Errorf("the read-only key writes: %v", err)
	}
	if _, err := withKey(l.Endpoint, "READER_1", "guess").ListTables(ctx, &dynamodb.ListTablesInput{}); !refused(err) {
		t.Errorf("the read-only key id with another secret: %v", err)
	}

	// AWS_PROFILE=read-only: keyplan's client, and an AWS client reading
	// the key file, sign with the read-only key.
	t.Setenv("AWS_PROFILE", ReadOnlyProfile)
	if got := AccessKeyID(l.Endpoint); got != "READER_1" {
		t.Errorf("AccessKeyID under AWS_PROFILE=read-only: %q", got)
	}
	if _, err := Client(l.Endpoint, 0).PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("full"),
		Item: map[string]types.AttributeValue{"PK": &types.AttributeValueMemberS{Value: "x"}}}); !accessDenied(err) {
		t.Errorf("keyplan's client under AWS_PROFILE=read-only writes: %v", err)
	}
	cfg, err := config.LoadDefaultConfig(ctx, config.WithSharedCredentialsFiles([]string{l.KeyFile}), config.WithSharedConfigFiles(nil),
		config.WithSharedConfigProfile(ReadOnlyProfile), config.WithRegion("eu-west-1"))
	if err != nil {
		t.Fatal(err)
	}
	aws := dynamodb.NewFromConfig(cfg, func(o *dynamodb.Options) { o.BaseEndpoint = &l.Endpoint })
	if _, err := aws.ListTables(ctx, &dynamodb.ListTablesInput{}); err != nil {
		t.Errorf("an AWS client with the key file's read-only profile reads: %v", err)
	}
	if _, err := aws.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: &[]string{"full"}[0]}); !accessDenied(err) {
		t.Errorf("an AWS client with the read-only profile deletes: %v", err)
	}
	if out, err := Client(l.Endpoint, 0).ListTables(ctx, &dynamodb.ListTablesInput{}); err != nil || len(out.TableNames) != 1 {
		t.Errorf("after the refusals: %v %v", out, err)
	}

	// A keyplan local without a read-only key refuses what
	// AWS_PROFILE=read-only signs: never the full key in its place.
	other, err := ServeLocal(LocalOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if _, err := Client(other.Endpoint, 0).ListTables(ctx, &dynamodb.ListTablesInput{}); !refused(err) {
		t.Errorf("AWS_PROFILE=read-only on a keyplan local with no read-only key: %v", err)
	}
	// The engine a run starts for itself has no such key and ignores the
	// profile (an AWS profile of the user's that happens to be named so).
	run, err := Start(Memory, ".")
	if err != nil {
		t.Fatal(err)
	}
	defer run.Server.Stop()
	if _, err := Client(run.Endpoint, 0).ListTables(ctx, &dynamodb.ListTablesInput{}); err != nil {
		t.Errorf("a run's engine under AWS_PROFILE=read-only: %v", err)
	}
}

// The read-only key from the environment or a file; what is refused.
func TestServeLocalReadOnlyKeyInput(t *testing.T) {
	t.Setenv(usercache.Env, t.TempDir())
	t.Setenv("AWS_PROFILE", "")
	ctx := context.Background()
	t.Setenv(EnvLocalReadOnlyAccessKeyID, "ENVREADER")
	t.Setenv(EnvLocalReadOnlySecretAccessKey, "env read secret")
	l, err := ServeLocal(LocalOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := withKey(l.Endpoint, "ENVREADER", "env read secret").ListTables(ctx, &dynamodb.ListTablesInput{}); err != nil {
		t.Errorf("the environment's read-only key: %v", err)
	}
	if _, err := withKey(l.Endpoint, "ENVREADER", "env read secret").CreateTable(ctx, createTable("nope")); !accessDenied(err) {
		t.Errorf("the environment's read-only key writes: %v", err)
	}
	l.Close()
	t.Setenv(EnvLocalReadOnlyAccessKeyID, "")
	file := filepath.Join(t.TempDir(), "reader")
	if err := os.WriteFile(file, []byte("[default]\naws_access_key_id = FILEREADER\naws_secret_access_key = file secret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv(EnvLocalReadOnlySecretAccessKey, "")
	l, err = ServeLocal(LocalOptions{ReadOnlyCredentialsFile: file})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := withKey(l.Endpoint, "FILEREADER", "file secret").CreateTable(ctx, createTable("nope")); !accessDenied(err) {
		t.Errorf("the file's read-only key writes: %v", err)
	}
	l.Close()
	t.Setenv(EnvLocalReadOnlySecretAccessKey, "orphan")
	if l, err := ServeLocal(LocalOptions{}); err == nil || !strings.Contains(err.Error(), "without a read-only key id") {
		if l != nil {
			l.Close()
		}
		t.Errorf("a read-only secret without its id: %v", err)
	}
	t.Setenv(EnvLocalReadOnlySecretAccessKey, "")
	for _, tc := range []struct {
		o    LocalOptions
		want string
	}{
		{LocalOptions{AccessKeyID: "SAME", ReadOnlyAccessKeyID: "SAME"}, "the engine's other key"},
		{LocalOptions{ReadOnlyAccessKeyID: "a key"}, "expected 1 to 128"},
		{LocalOptions{ReadOnlyAccessKeyID: "X", ReadOnlyCredentialsFile: file}, "in the file alone"},
		{LocalOptions{ReadOnlyCredentialsFile: filepath.Join(t.TempDir(), "none")}, "no such file"},
	} {
		if l, err := ServeLocal(tc.o); err == nil || !strings.Contains(err.Error(), tc.want) {
			if l != nil {
				l.Close()
			}
			t.Errorf("%+v: %v; want %q", tc.o, err, tc.want)
		}
	}
}

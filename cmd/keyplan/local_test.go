package main

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"

	localengine "github.com/keyplan/keyplan/internal/engine"
	"github.com/keyplan/keyplan/internal/engine/sdkhttp"
	"github.com/keyplan/keyplan/internal/testkit/enginepass"
	"github.com/keyplan/keyplan/internal/testkit/evolvetest"
)

// The acceptance of keyplan local (issue 20): one engine, used by
// separate processes in turn: validate --keep leaves the table, lock and
// migrate --apply-indexes deploy a model edit with a new GSI and backfill
// it, validate --existing proves the new pattern on that table; SIGINT
// stops it with the tables written to --data (a write made just before
// the signal included), and a restart (another port) serves the same
// table, its new index included. keyplan's own
// commands find the engine's key (the key file in the user's cache); a
// client with another key, or the right key id and another secret, is
// refused.
func TestLocalServesSeparateProcesses(t *testing.T) {
	enginepass.Parallel(t)
	p := separateProcesses(t)
	data := filepath.Join(t.TempDir(), "tables")
	run := p.run
	model, src := shopModel(t)
	run(0, "lock", model)

	local := p.local("--port", "0", "--data", data)
	ep := local.endpoint
	if out := run(0, "validate", model, "--keep", "--endpoint", ep, "--table", "shop"); !strings.Contains(out, "kept table shop at "+ep) {
		t.Fatalf("validate --keep: %s", out)
	}
	// The model gains two patterns, one needing a new GSI (and their
	// expectations): a migration, deployed by migrate --apply-indexes.
	os.WriteFile(model, []byte(evolvetest.ShopV2(string(src))), 0o644)
	if out := run(0, "lock", model); !strings.Contains(out, "migration at phase 1 of 1") {
		t.Fatalf("lock: %s", out)
	}
	if out := run(0, "migrate", model, "--table", "shop", "--endpoint", ep, "--apply-indexes"); !strings.Contains(out, "the migration is done") {
		t.Fatalf("migrate: %s", out)
	}
	proved := func(out string) {
		t.Helper()
		for _, w := range []string{"ok   ProductsByPrice(category=electronics): [pr2 pr1]", "ok   CustomerOrdersByTotal(customerId=c1)", ", 0 failed"} {
			if !strings.Contains(out, w) {
				t.Errorf("validate --existing lacks %q:\n%s", w, out)
			}
		}
	}
	proved(run(0, "validate", model, "--existing", "--table", "shop", "--endpoint", ep))
	ctx := context.Background()
	client := func(endpoint, key string) *dynamodb.Client {
		return dynamodb.New(dynamodb.Options{Region: "eu-west-1", BaseEndpoint: aws.String(endpoint), RetryMaxAttempts: 1,
			HTTPClient: sdkhttp.Client(), Credentials: credentials.NewStaticCredentialsProvider(key, "any secret", "")})
	}
	// Written just before the signal: acknowledged, so committed.
	last := map[string]types.AttributeValue{"PK": &types.AttributeValueMemberS{Value: "last"}, "SK": &types.AttributeValueMemberS{Value: "write"}}
	if _, err := local.client().PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("shop"), Item: last}); err != nil {
		t.Fatal(err)
	}
	if code, last := local.stop(t, syscall.SIGINT); code != 0 || !strings.Contains(last, "stopped (tables kept in "+data+")") {
		t.Fatalf("SIGINT: exit %d, %q", code, last)
	}
	if _, err := os.Stat(filepath.Join(data, localengine.DataFile)); err != nil {
		t.Fatalf("no tables written: %v", err)
	}
	if _, err := local.client().ListTables(ctx, &dynamodb.ListTablesInput{}); err == nil || !strings.Contains(err.Error(), "connection refused") {
		t.Errorf("the stopped engine: %v", err)
	}

	again := p.local("--port", "0", "--data", data)
	proved(run(0, "validate", model, "--existing", "--table", "shop", "--endpoint", again.endpoint))
	if out, err := again.client().GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("shop"), Key: last}); err != nil || out.Item == nil {
		t.Errorf("the write made just before SIGINT, after a restart: %v, %v", out, err)
	}
	// Another key id is refused; so is the right one with another secret
	// (as any other user of the machine could sign: the key id is no
	// secret, it is printed).
	for key, code := range map[string]string{"keyplan": "UnrecognizedClientException", again.key: "InvalidSignatureException"} {
		var ae smithy.APIError
		if _, err := client(again.endpoint, key).DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("shop")}); !errors.As(err, &ae) || ae.ErrorCode() != code {
			t.Errorf("a client with key %s and another secret: %v, want %s", key, err, code)
		}
	}
	if code, _ := again.stop(t, syscall.SIGTERM); code != 0 {
		t.Errorf("SIGTERM: exit %d", code)
	}
}

// What keyplan local refuses (exit 2, saying why): flags it does not
// know, an argument, a port in use, a bad key; and validate --keep on an
// engine validate would start (it stops with validate: nothing would be
// kept), pointing at keyplan local.
func TestLocalRefuses(t *testing.T) {
	taken, err := localengine.ServeLocal(localengine.LocalOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	port := strings.TrimPrefix(taken.Endpoint, "http://127.0.0.1:")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"local", "--host", "0.0.0.0"}, "flag provided but not defined: -host"},
		{[]string{"local", "extra"}, "keyplan local: takes no arguments"},
		{[]string{"local", "--port", "x"}, "--port x: not a value of its type"},
		{[]string{"local", "--port", "70000"}, "port 70000: expected 0 to 65535"},
		{[]string{"local", "--port", port}, "127.0.0.1:" + port + " already has a server"},
		{[]string{"local", "--port", "0", "--access-key", "a b"}, `access key "a b"`},
		{[]string{"validate", "--keep", "../../examples/leaderboard.yaml"}, "--existing and --keep need an engine that outlives validate"},
	} {
		t.Setenv(localengine.EnvEndpoint, "")
		code, _, errs := keyplan(tc.args...)
		if code != 2 || !strings.Contains(errs, tc.want) {
			t.Errorf("keyplan %s: exit %d, %q; want 2 and %q", strings.Join(tc.args, " "), code, errs, tc.want)
		}
	}
	if code, out, _ := keyplan("local", "--help"); code != 0 || !strings.Contains(out, "-data") {
		t.Errorf("keyplan local --help: exit %d\n%s", code, out)
	}
}

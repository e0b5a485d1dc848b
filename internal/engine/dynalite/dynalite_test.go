package dynalite

import (
	"context"
	"errors"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/keyplan/keyplan/internal/engine/sdkhttp"
)

func s(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }

// A failed request undoes the ones before it, and the caller sees what
// DynamoDB would send.
func TestEmulatedTransactionRollsBack(t *testing.T) {
	wd, _ := os.Getwd()
	srv, err := Start(wd)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Stop()
	ctx := context.Background()
	c := dynamodb.New(dynamodb.Options{Region: "us-east-1", BaseEndpoint: aws.String(srv.Endpoint),
		Credentials: credentials.NewStaticCredentialsProvider("k", "k", "")})
	if SupportsTransactions(ctx, c) {
		t.Fatal("dynalite 4.0.0 claims TransactWriteItems: the emulation may be unnecessary now")
	}
	_, err = c.CreateTable(ctx, &dynamodb.CreateTableInput{TableName: aws.String("Tbl"), BillingMode: types.BillingModePayPerRequest,
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("PK"), KeyType: types.KeyTypeHash}},
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("PK"), AttributeType: types.ScalarAttributeTypeS}}})
	if err != nil {
		t.Fatal(err)
	}
	put := func(pk, v string) types.TransactWriteItem {
		return types.TransactWriteItem{Put: &types.Put{TableName: aws.String("Tbl"),
			Item:                map[string]types.AttributeValue{"PK": s(pk), "v": s(v)},
			ConditionExpression: aws.String("attribute_not_exists(PK)")}}
	}
	tx := EmulateTransactions(c)
	if _, err := tx.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{put("b", "old")}}); err != nil {
		t.Fatal(err)
	}
	// a is new, b exists: the whole transaction is cancelled, a undone.
	_, err = tx.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{put("a", "new"), put("b", "new")}})
	var tce *types.TransactionCanceledException
	if !errors.As(err, &tce) || len(tce.CancellationReasons) != 2 ||
		aws.ToString(tce.CancellationReasons[0].Code) != "None" || aws.ToString(tce.CancellationReasons[1].Code) != "ConditionalCheckFailed" {
		t.Fatalf("error %v", err)
	}
	for pk, want := range map[string]string{"a": "", "b": "old"} {
		out, err := c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("Tbl"), Key: map[string]types.AttributeValue{"PK": s(pk)}})
		if err != nil {
			t.Fatal(err)
		}
		got := ""
		if v, ok := out.Item["v"].(*types.AttributeValueMemberS); ok {
			got = v.Value
		}
		if got != want {
			t.Errorf("%s = %q after the cancelled transaction, want %q", pk, got, want)
		}
	}
}

func TestStartFailures(t *testing.T) {
	t.Setenv(EnvPath, filepath.Join(t.TempDir(), "missing.js"))
	if _, err := Start("."); !errors.Is(err, ErrNotInstalled) {
		t.Errorf("missing cli.js: %v", err)
	}
	// A dynalite whose module dies as it loads (keyplan runs the module,
	// found beside its cli.js).
	dir := t.TempDir()
	broken := filepath.Join(dir, "cli.js")
	os.WriteFile(broken, []byte("// the command line; keyplan loads index.js\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "index.js"), []byte("console.error('no engine here'); process.exit(3)\n"), 0o644)
	t.Setenv(EnvPath, broken)
	if _, err := Start("."); err == nil || !strings.Contains(err.Error(), "exited before listening: no engine here") {
		t.Errorf("an engine that exits: %v", err)
	}
}

// A client that goes away in the middle of a request (a cancelled
// context, a timeout, a fault proxy) costs that request, never the
// engine: dynalite 4.0.0 alone dies of it (ECONNRESET, an uncaught
// exception), and every later request of the run is refused. Each way
// of going away is tried on the one engine, which then still serves, and
// its log says what was dropped.
func TestSurvivesAbortedRequests(t *testing.T) {
	wd, _ := os.Getwd()
	srv, err := Start(wd)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Stop()
	addr := strings.TrimPrefix(srv.Endpoint, "http://")
	const head = "POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-amz-json-1.0\r\nX-Amz-Target: DynamoDB_20120810.ListTables\r\n" +
		"Authorization: AWS4-HMAC-SHA256 Credential=k/20260101/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=x\r\nX-Amz-Date: 20260101T000000Z\r\n"
	for _, tc := range []struct {
		name, sent string
		reset      bool
	}{
		{"half a body, then a reset", head + "Content-Length: 100\r\n\r\n{\"Limit\":", true},
		{"half a body, then a close", head + "Content-Length: 100\r\n\r\n{\"Limit\":", false},
		{"headers only, then a reset", head + "Content-Length: 10\r\n\r\n", true},
		{"a whole request, then a reset before the answer", head + "Content-Length: 2\r\n\r\n{}", true},
	} {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatalf("%s: %v\n%s", tc.name, err, srv.Log())
		}
		if _, err := io.WriteString(c, tc.sent); err != nil {
			t.Fatal(err)
		}
		time.Sleep(50 * time.Millisecond) // the engine has read what was sent
		if tc.reset {
			c.(*net.TCPConn).SetLinger(0)
		}
		c.Close()
	}
	// Many SDK requests cancelled at random points, as a backfill's
	// segments are when its context ends.
	c := dynamodb.New(dynamodb.Options{Region: "us-east-1", BaseEndpoint: aws.String(srv.Endpoint), RetryMaxAttempts: 1,
		HTTPClient: sdkhttp.Client(), Credentials: credentials.NewStaticCredentialsProvider("k", "k", "")})
	big := strings.Repeat("x", 200<<10)
	var wg sync.WaitGroup
	for i := range 40 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx, cancel := context.WithTimeout(context.Background(), time.Duration(i%8)*time.Millisecond)
			defer cancel()
			_, _ = c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("Missing"), Item: map[string]types.AttributeValue{"PK": s("a"), "v": s(big)}})
		}()
	}
	wg.Wait()
	time.Sleep(100 * time.Millisecond)
	if _, err := c.ListTables(context.Background(), &dynamodb.ListTablesInput{}); err != nil {
		t.Fatalf("the engine is gone after aborted requests: %v\nits log:\n%s", err, srv.Log())
	}
	if !strings.Contains(srv.Log(), DroppedRequest) {
		t.Errorf("the log does not say a request was dropped:\n%s", srv.Log())
	}
}

package dynalite

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
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

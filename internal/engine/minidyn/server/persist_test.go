package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	ddbtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"
	"github.com/keyplan/keyplan/internal/engine/minidyn/internal/require"
	"github.com/keyplan/keyplan/internal/engine/minidyn/store"
)

// faultyStore is a real store whose commits a test can hold back, slow
// down or fail (a full disk, without filling one: the process tests in
// cmd/keyplan fill one).
type faultyStore struct {
	*store.DB
	fail    atomic.Pointer[error]
	hold    chan struct{} // when set, each Commit waits for a receive
	delay   time.Duration
	commits atomic.Int64
	changes atomic.Int64
}

func (f *faultyStore) Commit(changes []store.Change) error {
	if f.hold != nil {
		<-f.hold
	}

	time.Sleep(f.delay)

	if err := f.fail.Load(); err != nil {
		return *err
	}

	f.commits.Add(1)
	f.changes.Add(int64(len(changes)))

	return f.DB.Commit(changes)
}

// persisted is an engine served over HTTP keeping its tables in a store
// in dir.
type persisted struct {
	srv  *Server
	http *httptest.Server
	st   *faultyStore
	cli  *dynamodb.Client
	logs chan string
}

func servePersisted(t *testing.T, dir string, hold bool, delay time.Duration) *persisted {
	t.Helper()

	db, err := store.Open(dir)
	require.NoError(t, err)

	p := &persisted{srv: NewServer(), st: &faultyStore{DB: db, delay: delay}, logs: make(chan string, 100)}
	if hold {
		p.st.hold = make(chan struct{})
	}

	require.NoError(t, p.srv.Persist(p.st, func(s string) { p.logs <- s }))

	p.http = httptest.NewServer(p.srv)
	p.cli = newTestDynamoClient(t, p.http.URL)

	t.Cleanup(p.stop)

	return p
}

func (p *persisted) stop() {
	if p.http == nil {
		return
	}

	p.http.Close()
	p.srv.StopPersisting()
	_ = p.st.DB.Close()
	p.http = nil
}

func putS(t *testing.T, cli *dynamodb.Client, table, id, v string) error {
	t.Helper()

	_, err := cli.PutItem(context.Background(), &dynamodb.PutItemInput{TableName: aws.String(table), Item: map[string]ddbtypes.AttributeValue{
		"id": &ddbtypes.AttributeValueMemberS{Value: id}, "v": &ddbtypes.AttributeValueMemberS{Value: v}}})

	return err
}

func getV(t *testing.T, cli *dynamodb.Client, table, id string) string {
	t.Helper()

	out, err := cli.GetItem(context.Background(), &dynamodb.GetItemInput{TableName: aws.String(table), ConsistentRead: aws.Bool(true),
		Key: map[string]ddbtypes.AttributeValue{"id": &ddbtypes.AttributeValueMemberS{Value: id}}})
	require.NoError(t, err)

	if out.Item == nil {
		return "<none>"
	}

	switch v := out.Item["v"].(type) {
	case *ddbtypes.AttributeValueMemberS:
		return v.Value
	case *ddbtypes.AttributeValueMemberN:
		return v.Value
	}

	return "?"
}

// A write is answered only once the commit holding it has returned: not
// while it is held back.
func TestAWriteIsAnsweredOnlyOnceCommitted(t *testing.T) {
	p := servePersisted(t, t.TempDir(), true, 0)

	done := make(chan error, 1)

	go func() {
		_, err := p.cli.CreateTable(context.Background(), &dynamodb.CreateTableInput{TableName: aws.String("tbl"), BillingMode: ddbtypes.BillingModePayPerRequest,
			KeySchema:            []ddbtypes.KeySchemaElement{{AttributeName: aws.String("id"), KeyType: ddbtypes.KeyTypeHash}},
			AttributeDefinitions: []ddbtypes.AttributeDefinition{{AttributeName: aws.String("id"), AttributeType: ddbtypes.ScalarAttributeTypeS}}})
		done <- err
	}()

	select {
	case err := <-done:
		t.Fatalf("CreateTable was answered before its commit: %v", err)
	case <-time.After(100 * time.Millisecond):
	}

	p.st.hold <- struct{}{}
	require.NoError(t, <-done)

	go func() { done <- putS(t, p.cli, "tbl", "a", "1") }()

	select {
	case err := <-done:
		t.Fatalf("PutItem was answered before its commit: %v", err)
	case <-time.After(100 * time.Millisecond):
	}

	p.st.hold <- struct{}{}
	require.NoError(t, <-done)

	found, err := p.st.ReadTable("tbl", func(tb store.Table) error {
		n := 0
		err := tb.Items(func(k, v []byte) error {
			n++

			if !strings.Contains(string(v), `"S":"1"`) {
				t.Errorf("stored item %q", v)
			}

			return nil
		})
		if n != 1 {
			t.Errorf("%d items stored", n)
		}

		return err
	})
	require.NoError(t, err)
	require.True(t, found)
}

// A commit that fails fails every request that waited on it (500, the
// store's error in the message), is logged at once, and leaves the
// engine as the store holds it: the refused writes are not read back,
// not in the stream, their transaction token forgotten. Once commits
// succeed again, so do writes; a restart holds exactly what was
// acknowledged.
func TestAFailedCommitFailsItsRequestsAndKeepsNothing(t *testing.T) {
	dir := t.TempDir()
	p := servePersisted(t, dir, false, 0)
	ctx := context.Background()

	_, err := p.cli.CreateTable(ctx, &dynamodb.CreateTableInput{TableName: aws.String("tbl"), BillingMode: ddbtypes.BillingModePayPerRequest,
		KeySchema:            []ddbtypes.KeySchemaElement{{AttributeName: aws.String("id"), KeyType: ddbtypes.KeyTypeHash}},
		AttributeDefinitions: []ddbtypes.AttributeDefinition{{AttributeName: aws.String("id"), AttributeType: ddbtypes.ScalarAttributeTypeS}},
		StreamSpecification:  &ddbtypes.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: ddbtypes.StreamViewTypeNewImage}})
	require.NoError(t, err)
	require.NoError(t, putS(t, p.cli, "tbl", "a", "1"))

	full := errors.New("write /data/keyplan-local.db: no space left on device")
	p.st.fail.Store(&full)

	failed := func(what string, err error) {
		t.Helper()

		var re interface{ HTTPStatusCode() int }

		var api smithy.APIError
		if !errors.As(err, &api) || api.ErrorCode() != "InternalServerError" || !strings.Contains(api.ErrorMessage(), "no space left on device") ||
			!errors.As(err, &re) || re.HTTPStatusCode() != 500 {
			t.Fatalf("%s on a full disk: %v", what, err)
		}
	}

	failed("PutItem", putS(t, p.cli, "tbl", "b", "1"))

	select {
	case line := <-p.logs:
		if !strings.Contains(line, "no space left on device") || !strings.Contains(line, "not kept") {
			t.Errorf("logged %q", line)
		}
	default:
		t.Error("the failed commit was not logged at once")
	}

	_, err = p.cli.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String("tbl"), Key: map[string]ddbtypes.AttributeValue{"id": &ddbtypes.AttributeValueMemberS{Value: "a"}},
		UpdateExpression: aws.String("SET v = :v"), ExpressionAttributeValues: map[string]ddbtypes.AttributeValue{":v": &ddbtypes.AttributeValueMemberS{Value: "2"}}})
	failed("UpdateItem", err)

	tx := &dynamodb.TransactWriteItemsInput{ClientRequestToken: aws.String("tok"), TransactItems: []ddbtypes.TransactWriteItem{{Put: &ddbtypes.Put{
		TableName: aws.String("tbl"), Item: map[string]ddbtypes.AttributeValue{"id": &ddbtypes.AttributeValueMemberS{Value: "c"}, "v": &ddbtypes.AttributeValueMemberS{Value: "1"}}}}}}
	_, err = p.cli.TransactWriteItems(ctx, tx)
	failed("TransactWriteItems", err)

	_, err = p.cli.CreateTable(ctx, &dynamodb.CreateTableInput{TableName: aws.String("uuu"), BillingMode: ddbtypes.BillingModePayPerRequest,
		KeySchema:            []ddbtypes.KeySchemaElement{{AttributeName: aws.String("id"), KeyType: ddbtypes.KeyTypeHash}},
		AttributeDefinitions: []ddbtypes.AttributeDefinition{{AttributeName: aws.String("id"), AttributeType: ddbtypes.ScalarAttributeTypeS}}})
	failed("CreateTable", err)

	_, err = p.cli.CreateBackup(ctx, &dynamodb.CreateBackupInput{TableName: aws.String("tbl"), BackupName: aws.String("lost")})
	failed("CreateBackup", err)

	p.st.fail.Store(nil)

	if list, err := p.cli.ListBackups(ctx, &dynamodb.ListBackupsInput{}); err != nil || len(list.BackupSummaries) != 0 {
		t.Errorf("backups after the failed CreateBackup: %+v, %v; want none", list, err)
	}

	for id, want := range map[string]string{"a": "1", "b": "<none>", "c": "<none>"} {
		if got := getV(t, p.cli, "tbl", id); got != want {
			t.Errorf("item %s after the failed commits: %s, want %s", id, got, want)
		}
	}

	if _, err := p.cli.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("uuu")}); err == nil {
		t.Error("the table whose creation failed is there")
	}

	var records []string

	for _, st := range p.srv.client.streams {
		for _, sh := range st.shards {
			for _, r := range sh.records {
				records = append(records, r.eventName+" "+aws.ToString(toWireMap(r.keys)["id"].S))
			}
		}
	}

	if want := []string{"INSERT a"}; !slices.Equal(records, want) {
		t.Errorf("stream records %v, want %v", records, want)
	}

	// The disk has room again.
	_, err = p.cli.TransactWriteItems(ctx, tx)
	require.NoError(t, err)
	require.NoError(t, putS(t, p.cli, "tbl", "b", "2"))

	p.stop()

	again := servePersisted(t, dir, false, 0)
	for id, want := range map[string]string{"a": "1", "b": "2", "c": "1"} {
		if got := getV(t, again.cli, "tbl", id); got != want {
			t.Errorf("item %s after a restart: %s, want %s", id, got, want)
		}
	}
}

// Writers that wait on one commit share the next: 8 clients, commits
// that take 5 ms, far fewer commits than writes; every write answered
// is stored.
func TestConcurrentWritesShareCommits(t *testing.T) {
	dir := t.TempDir()
	p := servePersisted(t, dir, false, 5*time.Millisecond)
	makeBasicTable(t, p.cli, "tbl", "id")

	before := p.st.commits.Load()

	const writers, each = 8, 25

	var wg sync.WaitGroup

	for w := range writers {
		wg.Go(func() {
			for i := range each {
				if err := putS(t, p.cli, "tbl", fmt.Sprintf("w%d-%d", w, i), "x"); err != nil {
					t.Error(err)
				}
			}
		})
	}

	wg.Wait()

	commits := p.st.commits.Load() - before
	if commits > writers*each/2 {
		t.Errorf("%d commits for %d writes", commits, writers*each)
	}

	p.stop()

	again := servePersisted(t, dir, false, 0)

	out, err := again.cli.Scan(context.Background(), &dynamodb.ScanInput{TableName: aws.String("tbl")})
	require.NoError(t, err)

	if len(out.Items) != writers*each {
		t.Errorf("%d items after a restart, %d written", len(out.Items), writers*each)
	}
}

// Table state is stored as a whole record per table: what CreateTable,
// UpdateTable (a GSI, a stream), UpdateTimeToLive and DeleteTable did,
// and ClearTable, outlives a restart; the items keep their indexes.
func TestTableStateOutlivesARestart(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "d")
	p := servePersisted(t, dir, false, 0)
	ctx := context.Background()
	cli := p.cli

	makeBasicTable(t, cli, "tbl", "id")
	makeBasicTable(t, cli, "gone", "id")
	makeBasicTable(t, cli, "cleared", "id")
	require.NoError(t, putS(t, cli, "tbl", "a", "x"))
	require.NoError(t, putS(t, cli, "cleared", "a", "x"))

	_, err := cli.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String("tbl"),
		AttributeDefinitions: []ddbtypes.AttributeDefinition{{AttributeName: aws.String("v"), AttributeType: ddbtypes.ScalarAttributeTypeS}},
		GlobalSecondaryIndexUpdates: []ddbtypes.GlobalSecondaryIndexUpdate{{Create: &ddbtypes.CreateGlobalSecondaryIndexAction{IndexName: aws.String("byV"),
			KeySchema:  []ddbtypes.KeySchemaElement{{AttributeName: aws.String("v"), KeyType: ddbtypes.KeyTypeHash}},
			Projection: &ddbtypes.Projection{ProjectionType: ddbtypes.ProjectionTypeKeysOnly}}}}})
	require.NoError(t, err)

	_, err = cli.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String("tbl"),
		StreamSpecification: &ddbtypes.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: ddbtypes.StreamViewTypeKeysOnly}})
	require.NoError(t, err)

	_, err = cli.UpdateTimeToLive(ctx, &dynamodb.UpdateTimeToLiveInput{TableName: aws.String("tbl"),
		TimeToLiveSpecification: &ddbtypes.TimeToLiveSpecification{AttributeName: aws.String("exp"), Enabled: aws.Bool(true)}})
	require.NoError(t, err)

	_, err = cli.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String("gone")})
	require.NoError(t, err)
	require.NoError(t, p.srv.ClearTable("cleared"))

	// A table restored from a backup, its items written by the restore.
	bk, err := cli.CreateBackup(ctx, &dynamodb.CreateBackupInput{TableName: aws.String("tbl"), BackupName: aws.String("bk1")})
	require.NoError(t, err)
	_, err = cli.RestoreTableFromBackup(ctx, &dynamodb.RestoreTableFromBackupInput{BackupArn: bk.BackupDetails.BackupArn, TargetTableName: aws.String("restored")})
	require.NoError(t, err)

	// Backups: one kept, one deleted.
	bk2, err := cli.CreateBackup(ctx, &dynamodb.CreateBackupInput{TableName: aws.String("tbl"), BackupName: aws.String("bk2")})
	require.NoError(t, err)
	_, err = cli.DeleteBackup(ctx, &dynamodb.DeleteBackupInput{BackupArn: bk2.BackupDetails.BackupArn})
	require.NoError(t, err)

	bkBefore, err := cli.DescribeBackup(ctx, &dynamodb.DescribeBackupInput{BackupArn: bk.BackupDetails.BackupArn})
	require.NoError(t, err)

	before, err := cli.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("tbl")})
	require.NoError(t, err)

	p.stop()

	again := servePersisted(t, dir, false, 0)
	cli = again.cli

	tables, err := cli.ListTables(ctx, &dynamodb.ListTablesInput{})
	require.NoError(t, err)

	if want := []string{"cleared", "restored", "tbl"}; !slices.Equal(tables.TableNames, want) {
		t.Errorf("tables after a restart: %v, want %v", tables.TableNames, want)
	}

	after, err := cli.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("tbl")})
	require.NoError(t, err)

	b, a := before.Table, after.Table
	if len(a.GlobalSecondaryIndexes) != 1 || aws.ToString(a.GlobalSecondaryIndexes[0].IndexName) != "byV" ||
		a.GlobalSecondaryIndexes[0].Projection.ProjectionType != ddbtypes.ProjectionTypeKeysOnly ||
		a.StreamSpecification == nil || !aws.ToBool(a.StreamSpecification.StreamEnabled) || a.StreamSpecification.StreamViewType != ddbtypes.StreamViewTypeKeysOnly ||
		!aws.ToTime(a.CreationDateTime).Equal(aws.ToTime(b.CreationDateTime)) || aws.ToInt64(a.ItemCount) != 1 || len(a.AttributeDefinitions) != len(b.AttributeDefinitions) {
		t.Errorf("after a restart:\n%+v\nbefore:\n%+v", a, b)
	}

	ttl, err := cli.DescribeTimeToLive(ctx, &dynamodb.DescribeTimeToLiveInput{TableName: aws.String("tbl")})
	require.NoError(t, err)

	if ttl.TimeToLiveDescription.TimeToLiveStatus != ddbtypes.TimeToLiveStatusEnabled || aws.ToString(ttl.TimeToLiveDescription.AttributeName) != "exp" {
		t.Errorf("TTL after a restart: %+v", ttl.TimeToLiveDescription)
	}

	q, err := cli.Query(ctx, &dynamodb.QueryInput{TableName: aws.String("tbl"), IndexName: aws.String("byV"), KeyConditionExpression: aws.String("v = :v"),
		ExpressionAttributeValues: map[string]ddbtypes.AttributeValue{":v": &ddbtypes.AttributeValueMemberS{Value: "x"}}})
	require.NoError(t, err)

	if len(q.Items) != 1 {
		t.Errorf("the GSI after a restart: %v", q.Items)
	}

	if got := getV(t, cli, "cleared", "a"); got != "<none>" {
		t.Errorf("the cleared table's item after a restart: %s", got)
	}

	if got := getV(t, cli, "restored", "a"); got != "x" {
		t.Errorf("the restored table's item after a restart: %s", got)
	}

	// The backup kept is the same backup, and restores the table's items;
	// the one deleted stays deleted.
	bkAfter, err := cli.DescribeBackup(ctx, &dynamodb.DescribeBackupInput{BackupArn: bk.BackupDetails.BackupArn})
	require.NoError(t, err)

	bkB, _ := json.Marshal(bkBefore.BackupDescription)
	bkA, _ := json.Marshal(bkAfter.BackupDescription)

	if !bytes.Equal(bkA, bkB) || !bytes.Contains(bkA, []byte(`"TableName":"tbl"`)) {
		t.Errorf("the backup after a restart:\n%s\nbefore:\n%s", bkA, bkB)
	}

	list, err := cli.ListBackups(ctx, &dynamodb.ListBackupsInput{})
	require.NoError(t, err)

	if len(list.BackupSummaries) != 1 || aws.ToString(list.BackupSummaries[0].BackupName) != "bk1" {
		t.Errorf("backups after a restart: %+v, want bk1 alone", list.BackupSummaries)
	}

	_, err = cli.RestoreTableFromBackup(ctx, &dynamodb.RestoreTableFromBackupInput{BackupArn: bk.BackupDetails.BackupArn, TargetTableName: aws.String("again")})
	require.NoError(t, err)

	if got := getV(t, cli, "again", "a"); got != "x" {
		t.Errorf("a table restored after a restart from a backup made before it: item a is %s", got)
	}
}

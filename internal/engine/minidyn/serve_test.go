package minidyn

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"

	"github.com/keyplan/keyplan/internal/engine/minidyn/store"
	"github.com/keyplan/keyplan/internal/engine/sdkhttp"
)

func clientFor(s *Server, accessKey string) *dynamodb.Client {
	return dynamodb.New(dynamodb.Options{Region: "us-east-1", BaseEndpoint: aws.String(s.Endpoint),
		HTTPClient: sdkhttp.Client(), Credentials: credentials.NewStaticCredentialsProvider(accessKey, "secret", "")})
}

func serveFor(t *testing.T, o Options) *Server {
	t.Helper()

	s, err := Serve(o)
	if err != nil {
		t.Fatal(err)
	}

	t.Cleanup(s.Stop)

	return s
}

func TestServeListensOnLoopbackOnly(t *testing.T) {
	for _, addr := range []string{"0.0.0.0:0", "192.0.2.1:0", ":0", "example.com:0"} {
		if s, err := Serve(Options{Addr: addr}); err == nil {
			s.Stop()
			t.Errorf("%s: served", addr)
		}
	}

	for _, addr := range []string{"127.0.0.1:0", "localhost:0"} {
		s := serveFor(t, Options{Addr: addr})
		if !strings.HasPrefix(s.Endpoint, "http://127.0.0.1:") && !strings.HasPrefix(s.Endpoint, "http://[::1]:") {
			t.Errorf("%s: endpoint %s", addr, s.Endpoint)
		}
	}
}

func TestAnAccessKeyKeepsOtherClientsOut(t *testing.T) {
	s := serveFor(t, Options{AccessKeyID: "AKIDRUN123"})

	_, err := clientFor(s, "AKIDRUN123").ListTables(ctx, &dynamodb.ListTablesInput{})
	mustOK(t, err)

	_, err = clientFor(s, "AKIDOTHER").ListTables(ctx, &dynamodb.ListTablesInput{})
	wantAPIError(t, err, "UnrecognizedClientException")

	// An unsigned request.
	req, _ := http.NewRequest(http.MethodPost, s.Endpoint, strings.NewReader(`{}`))
	req.Header.Set("X-Amz-Target", "DynamoDB_20120810.ListTables")

	res, err := http.DefaultClient.Do(req)
	mustOK(t, err)

	defer func() { _ = res.Body.Close() }()

	var body bytes.Buffer
	_, _ = body.ReadFrom(res.Body)

	if res.StatusCode != http.StatusBadRequest || !strings.Contains(body.String(), "MissingAuthenticationTokenException") {
		t.Fatalf("an unsigned request: %d %s", res.StatusCode, body.String())
	}
}

func TestRequestsAreBounded(t *testing.T) {
	s := serveFor(t, Options{MaxRequestBytes: 1 << 20, MaxRequestValues: 1000})
	db := clientFor(s, "k")
	table := makeTable(t, db, schema{})

	big := strings.Repeat("x", 2<<20)
	_, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: values("p", str("a"), "x", str(big))})
	// 413, as DynamoDB answers a request past its size.
	var resp *awshttp.ResponseError
	if !errors.As(err, &resp) || resp.HTTPStatusCode() != http.StatusRequestEntityTooLarge || !strings.Contains(err.Error(), "too large") {
		t.Fatalf("an oversized request: want 413, got %v", err)
	}

	many := make([]types.AttributeValue, 2000)
	for i := range many {
		many[i] = &types.AttributeValueMemberNULL{Value: true}
	}

	_, err = db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: values("p", str("a"), "l", &types.AttributeValueMemberL{Value: many})})
	wantAPIError(t, err, "ValidationException", "more than 1000 attribute values")

	// A deeply nested expression is refused, not parsed into the stack.
	_, err = db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: values("p", str("a")),
		ConditionExpression: aws.String(strings.Repeat("(", 3000) + "p = p" + strings.Repeat(")", 1000))})
	wantAPIError(t, err, "ValidationException")

	_, err = db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: values("p", str("a"))})
	mustOK(t, err)
}

func TestTablesOutliveARestartWithADataDirectory(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")

	s, err := Serve(Options{DataDir: dir})
	mustOK(t, err)

	db := clientFor(s, "k")
	table := makeTable(t, db, schema{sortType: types.ScalarAttributeTypeN, attrs: []types.AttributeDefinition{attr("g", types.ScalarAttributeTypeS)},
		gsis: []types.GlobalSecondaryIndex{gsi("gsi_g", "g", types.ProjectionTypeKeysOnly)}})

	_, err = db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: values("p", str("a"), "c", num("1"), "g", str("G"), "x", str("X"))})
	mustOK(t, err)

	_, err = db.UpdateTimeToLive(ctx, &dynamodb.UpdateTimeToLiveInput{TableName: aws.String(table),
		TimeToLiveSpecification: &types.TimeToLiveSpecification{AttributeName: aws.String("ttl"), Enabled: aws.Bool(true)}})
	mustOK(t, err)
	mustOK(t, s.Close())

	if fi, err := os.Stat(filepath.Join(dir, store.File)); err != nil || fi.Mode().Perm()&0o077 != 0 {
		t.Fatalf("data file: %v %v", fi, err)
	}

	s2 := serveFor(t, Options{DataDir: dir})
	db2 := clientFor(s2, "k")

	got := getItem(t, db2, table, values("p", str("a"), "c", num("1")))
	if sOf(t, got["x"]) != "X" {
		t.Fatalf("after a restart: %v", got)
	}

	q, err := db2.Query(ctx, &dynamodb.QueryInput{TableName: aws.String(table), IndexName: aws.String("gsi_g"),
		KeyConditionExpression: aws.String("g = :g"), ExpressionAttributeValues: values(":g", str("G"))})
	mustOK(t, err)

	if len(q.Items) != 1 || q.Items[0]["x"] != nil {
		t.Fatalf("the KEYS_ONLY index after a restart: %v", q.Items)
	}

	ttl, err := db2.DescribeTimeToLive(ctx, &dynamodb.DescribeTimeToLiveInput{TableName: aws.String(table)})
	mustOK(t, err)

	if ttl.TimeToLiveDescription.TimeToLiveStatus != types.TimeToLiveStatusEnabled {
		t.Fatalf("TTL after a restart: %+v", ttl.TimeToLiveDescription)
	}
}

func TestADataDirectoryNeverFollowsASymlink(t *testing.T) {
	base := t.TempDir()
	dir := filepath.Join(base, "data")
	mustOK(t, os.Mkdir(dir, 0o700))

	// A symlink planted where the data file goes, or where an earlier
	// keyplan's state file was: refused, its target left alone.
	victim := filepath.Join(base, "victim")
	mustOK(t, os.WriteFile(victim, []byte("precious"), 0o600))

	for _, name := range []string{store.File, StateFile} {
		mustOK(t, os.Symlink(victim, filepath.Join(dir, name)))

		if _, err := Serve(Options{DataDir: dir}); !errors.Is(err, ErrUnsafeDataDir) {
			t.Fatalf("a symlinked %s: %v", name, err)
		}

		if b, _ := os.ReadFile(victim); string(b) != "precious" {
			t.Fatalf("the symlink's target was written: %q", b)
		}

		mustOK(t, os.Remove(filepath.Join(dir, name)))
	}

	// The directory itself a symlink, or writable by others: refused.
	link := filepath.Join(base, "link")
	mustOK(t, os.Symlink(dir, link))

	if _, err := Serve(Options{DataDir: link}); !errors.Is(err, ErrUnsafeDataDir) {
		t.Fatalf("a symlinked data directory: %v", err)
	}

	open := filepath.Join(base, "open")
	mustOK(t, os.Mkdir(open, 0o700))
	mustOK(t, os.Chmod(open, 0o777))

	if _, err := Serve(Options{DataDir: open}); !errors.Is(err, ErrUnsafeDataDir) {
		t.Fatalf("a world-writable data directory: %v", err)
	}
}

func TestACorruptStateFileIsAnError(t *testing.T) {
	dir := t.TempDir()
	mustOK(t, os.WriteFile(filepath.Join(dir, StateFile), []byte(`{"version":1,"tables":[{"create":{"TableName":"x"}}]}`), 0o600))

	_, err := Serve(Options{DataDir: dir})

	var api smithy.APIError
	if err == nil || !strings.Contains(err.Error(), "table x") || !errors.As(err, &api) {
		t.Fatalf("a state file with an invalid table: %v", err)
	}
}

// A request with another access key (or none) whose body never comes is
// answered after server.RefusedBodyWait, as DynamoDB answers it, and its
// connection closed: the server does not wait for the body until its
// read timeout (2 minutes).
func TestARefusedKeyIsAnsweredWithoutItsBody(t *testing.T) {
	s := serveFor(t, Options{AccessKeyID: "AKIDRUN123"})

	for _, c := range []struct{ authorization, code string }{
		{"Authorization: AWS4-HMAC-SHA256 Credential=AKIDOTHER/20260101/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=00\r\n", "UnrecognizedClientException"},
		{"", "MissingAuthenticationTokenException"},
	} {
		conn, err := net.Dial("tcp", strings.TrimPrefix(s.Endpoint, "http://"))
		mustOK(t, err)

		start := time.Now()
		_ = conn.SetDeadline(start.Add(10 * time.Second))

		_, err = fmt.Fprintf(conn, "POST / HTTP/1.1\r\nHost: x\r\nX-Amz-Target: DynamoDB_20120810.ListTables\r\n%sContent-Type: application/x-amz-json-1.0\r\nContent-Length: 100\r\n\r\n", c.authorization)
		mustOK(t, err)

		r := bufio.NewReader(conn)

		res, err := http.ReadResponse(r, nil)
		if err != nil {
			t.Fatalf("%s: no answer in %v: %v", c.code, time.Since(start), err)
		}

		body, err := io.ReadAll(res.Body)
		mustOK(t, err)

		if res.StatusCode != http.StatusBadRequest || !strings.Contains(string(body), c.code) || !res.Close {
			t.Errorf("%s: %d %s (closes: %v)", c.code, res.StatusCode, body, res.Close)
		}

		if _, err := r.ReadByte(); !errors.Is(err, io.EOF) {
			t.Errorf("%s: the connection is not closed after the answer: %v", c.code, err)
		}

		if took := time.Since(start); took > 2*time.Second {
			t.Errorf("%s: answered and closed in %v", c.code, took)
		}

		_ = conn.Close()
	}
}

// A client of the engine's key that sends its body slowly holds a slot
// (MaxInFlight) at most BodyTimeout: it is answered, and the request
// waiting behind it runs.
func TestASlowBodyHoldsItsSlotAtMostBodyTimeout(t *testing.T) {
	s := serveFor(t, Options{AccessKeyID: "AKIDRUN123", MaxInFlight: 1, BodyTimeout: 300 * time.Millisecond})

	conn, err := net.Dial("tcp", strings.TrimPrefix(s.Endpoint, "http://"))
	mustOK(t, err)

	defer func() { _ = conn.Close() }()

	start := time.Now()
	_ = conn.SetDeadline(start.Add(10 * time.Second))

	_, err = fmt.Fprintf(conn, "POST / HTTP/1.1\r\nHost: x\r\nX-Amz-Target: DynamoDB_20120810.ListTables\r\nAuthorization: AWS4-HMAC-SHA256 Credential=AKIDRUN123/20260101/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=00\r\nContent-Type: application/x-amz-json-1.0\r\nContent-Length: 100\r\n\r\n{\"Li")
	mustOK(t, err)

	time.Sleep(50 * time.Millisecond) // the slow request takes the slot first

	_, err = clientFor(s, "AKIDRUN123").ListTables(ctx, &dynamodb.ListTablesInput{})
	mustOK(t, err)

	if took := time.Since(start); took > 3*time.Second {
		t.Errorf("the request behind a slow body waited %v", took)
	}

	res, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("the slow body is not answered: %v", err)
	}

	_ = res.Body.Close()

	if res.StatusCode != http.StatusBadRequest {
		t.Errorf("the slow body: %d", res.StatusCode)
	}
}

// A client with another key whose body comes after its headers (Go's
// client flushes the headers first; on a loaded machine the body follows
// late) can send all of it: the engine reads the body it refuses (at
// most server.RefusedBodyWait) before it answers and closes the
// connection. Closed at once, the connection is reset when the body
// comes; Go's client then fails writing the rest, closes the connection
// and loses the answer it has not read yet ("use of closed network
// connection", what TestLocalServesSeparateProcesses met under load).
func TestARefusedKeyWhoseBodyComesIsNotReset(t *testing.T) {
	s := serveFor(t, Options{AccessKeyID: "AKIDRUN123"})

	conn, err := net.Dial("tcp", strings.TrimPrefix(s.Endpoint, "http://"))
	mustOK(t, err)

	defer func() { _ = conn.Close() }()

	_ = conn.SetDeadline(time.Now().Add(10 * time.Second))

	part := strings.Repeat(" ", 1000)
	_, err = fmt.Fprintf(conn, "POST / HTTP/1.1\r\nHost: x\r\nX-Amz-Target: DynamoDB_20120810.ListTables\r\nAuthorization: AWS4-HMAC-SHA256 Credential=AKIDOTHER/20260101/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=00\r\nContent-Type: application/x-amz-json-1.0\r\nContent-Length: %d\r\n\r\n", 3*len(part)+2)
	mustOK(t, err)

	for i, p := range []string{part, part, part, "{}"} {
		time.Sleep(50 * time.Millisecond)

		if _, err := conn.Write([]byte(p)); err != nil {
			t.Fatalf("part %d of the body: %v", i+1, err)
		}
	}

	r := bufio.NewReader(conn)

	res, err := http.ReadResponse(r, nil)
	mustOK(t, err)

	answer, err := io.ReadAll(res.Body)
	if err != nil || res.StatusCode != http.StatusBadRequest || !strings.Contains(string(answer), "UnrecognizedClientException") {
		t.Errorf("the answer: %d %q, %v", res.StatusCode, answer, err)
	}

	if _, err := r.ReadByte(); !errors.Is(err, io.EOF) {
		t.Errorf("the connection is not closed after the body: %v", err)
	}
}

// Go's client (the SDK's) with another key, each request on a new
// connection, reads every answer: UnrecognizedClientException, never a
// connection closed under it (an engine that answers before reading the
// body and then closes loses some).
func TestARefusedKeyIsAnsweredToTheSDK(t *testing.T) {
	s := serveFor(t, Options{AccessKeyID: "AKIDRUN123"})

	for i := range 100 {
		c := dynamodb.New(dynamodb.Options{Region: "us-east-1", BaseEndpoint: aws.String(s.Endpoint), RetryMaxAttempts: 1,
			HTTPClient: sdkhttp.Client(), Credentials: credentials.NewStaticCredentialsProvider("AKIDOTHER", "secret", "")})

		_, err := c.ListTables(ctx, &dynamodb.ListTablesInput{})

		var api smithy.APIError
		if !errors.As(err, &api) || api.ErrorCode() != "UnrecognizedClientException" {
			t.Fatalf("request %d: %v", i+1, err)
		}
	}
}

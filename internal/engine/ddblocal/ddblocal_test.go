package ddblocal

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/keyplan/keyplan/internal/engine/sdkhttp"
)

func client(endpoint string) *dynamodb.Client {
	return dynamodb.New(dynamodb.Options{Region: "us-east-1", BaseEndpoint: aws.String(endpoint), RetryMaxAttempts: 1,
		HTTPClient: sdkhttp.Client(), Credentials: credentials.NewStaticCredentialsProvider("k", "k", "")})
}

// answering reports whether anything answers DynamoDB requests at endpoint.
func answering(endpoint string) bool {
	_, err := client(endpoint).ListTables(context.Background(), &dynamodb.ListTablesInput{})
	return err == nil
}

// The engine starts, serves (one database whatever the credentials: a
// table created with one key is listed with another), and is gone after
// Stop, its working directory with it.
func TestStartServeStop(t *testing.T) {
	s, err := Start()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Stop()
	ctx := context.Background()
	_, err = client(s.Endpoint).CreateTable(ctx, &dynamodb.CreateTableInput{TableName: aws.String("Tbl"), BillingMode: types.BillingModePayPerRequest,
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("PK"), KeyType: types.KeyTypeHash}},
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("PK"), AttributeType: types.ScalarAttributeTypeS}}})
	if err != nil {
		t.Fatal(err)
	}
	other := dynamodb.New(dynamodb.Options{Region: "eu-west-1", BaseEndpoint: aws.String(s.Endpoint),
		Credentials: credentials.NewStaticCredentialsProvider("another", "key", "")})
	out, err := other.ListTables(ctx, &dynamodb.ListTablesInput{})
	if err != nil || len(out.TableNames) != 1 {
		t.Errorf("another client's tables: %v, %v; want [Tbl] (-sharedDb)", out, err)
	}
	if _, err := os.Stat(filepath.Join(s.run, "dynamodb-local-metadata.json")); err != nil {
		t.Logf("the engine wrote no settings file into its directory: %v", err)
	}
	s.Stop()
	if answering(s.Endpoint) {
		t.Errorf("%s still answers after Stop", s.Endpoint)
	}
	if _, err := os.Stat(s.run); !os.IsNotExist(err) {
		t.Errorf("its directory %s is left: %v", s.run, err)
	}
}

// A port taken between the choice and the engine's bind: whatever answers
// there (here an engine that allows every origin, as DynamoDB Local does
// by default) is not taken for the engine started; Start tries another
// port.
func TestPortTakenMeanwhile(t *testing.T) {
	l, err := net.Listen("tcp", ":0")
	if err != nil {
		t.Fatal(err)
	}
	impostor := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Access-Control-Allow-Origin", r.Header.Get("Origin"))
		w.Header().Set("Content-Type", "application/x-amz-json-1.0")
		fmt.Fprint(w, `{"TableNames":["impostor"]}`)
	})}
	go impostor.Serve(l)
	defer impostor.Close()
	taken := l.Addr().(*net.TCPAddr).Port
	real := freePort
	calls := 0
	freePort = func() (int, error) {
		calls++
		if calls == 1 {
			return taken, nil
		}
		return real()
	}
	defer func() { freePort = real }()
	s, err := Start()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Stop()
	if calls < 2 || strings.HasSuffix(s.Endpoint, fmt.Sprintf(":%d", taken)) {
		t.Fatalf("Start took %s (the impostor is on %d), after %d port(s)", s.Endpoint, taken, calls)
	}
	out, err := client(s.Endpoint).ListTables(context.Background(), &dynamodb.ListTablesInput{})
	if err != nil || len(out.TableNames) != 0 {
		t.Errorf("the engine started lists %v, %v", out, err)
	}
}

// Without Java, Start says what is missing.
func TestNoJava(t *testing.T) {
	t.Setenv("JAVA_HOME", t.TempDir())
	if _, err := Start(); !errors.Is(err, ErrNoJava) || !strings.Contains(err.Error(), "JAVA_HOME") {
		t.Errorf("JAVA_HOME without java: %v", err)
	}
	t.Setenv("JAVA_HOME", "")
	t.Setenv("PATH", t.TempDir())
	if _, err := Java(); !errors.Is(err, ErrNoJava) || !strings.Contains(err.Error(), "not on PATH") {
		t.Errorf("no java on PATH: %v", err)
	}
	if !strings.Contains(JavaHint, "openjdk-17-jre-headless") {
		t.Errorf("the hint does not name the package: %s", JavaHint)
	}
}

// An engine directory named explicitly must hold the jar.
func TestExplicitPath(t *testing.T) {
	t.Setenv(EnvPath, t.TempDir())
	if _, err := Find(); !errors.Is(err, ErrNotInstalled) || !strings.Contains(err.Error(), EnvPath) {
		t.Errorf("an empty %s: %v", EnvPath, err)
	}
	if NeedsInstall() {
		t.Error("NeedsInstall with an explicit path")
	}
}

// The engine goes when the process that started it is killed (SIGKILL:
// nothing of it runs to stop the engine).
func TestDiesWithItsStarter(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no watchdog on Windows (docs/engines.md)")
	}
	if os.Getenv("KEYPLAN_DDBLOCAL_STARTER") == "1" {
		s, err := Start()
		if err != nil {
			fmt.Println("error", err)
			os.Exit(1)
		}
		fmt.Println(s.Endpoint, s.run, s.cmd.Process.Pid)
		time.Sleep(time.Minute)
		os.Exit(0)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestDiesWithItsStarter$")
	cmd.Env = append(os.Environ(), "KEYPLAN_DDBLOCAL_STARTER=1")
	out := &logBuffer{max: 4 << 10} // the starter writes it while the loop reads it
	cmd.Stdout = out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(StartTimeout + 10*time.Second)
	for !strings.Contains(out.String(), "\n") && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	f := strings.Fields(out.String())
	if len(f) != 3 || f[0] == "error" {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("the starter said %q", out.String())
	}
	endpoint, run := f[0], f[1]
	if !answering(endpoint) {
		t.Fatalf("nothing answers at %s", endpoint)
	}
	cmd.Process.Kill()
	cmd.Wait()
	for wait := time.Now().Add(20 * time.Second); time.Now().Before(wait); time.Sleep(100 * time.Millisecond) {
		if _, err := os.Stat(run); os.IsNotExist(err) && !answering(endpoint) {
			return
		}
	}
	t.Errorf("the engine at %s (directory %s) outlived its starter", endpoint, run)
	var group int
	fmt.Sscan(f[2], &group)
	kill(&os.Process{Pid: group})
	os.RemoveAll(run)
}

// An engine that cannot run says why, in the JVM's words.
func TestStartFailure(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, Jar), []byte("not a jar"), 0o644)
	t.Setenv(EnvPath, dir)
	s, err := Start()
	if err == nil {
		s.Stop()
		t.Fatal("a corrupt jar started")
	}
	if !strings.Contains(err.Error(), "exited before listening") || !strings.Contains(err.Error(), "jarfile") {
		t.Errorf("a corrupt jar: %v", err)
	}
}

// The JVM writes a dying main thread's trace in pieces: `Exception in
// thread "main" ` first, what it died of after. A port taken is read
// from the whole trace, not from its first piece (CI once failed
// TestPortTakenMeanwhile so: "failed to start", for a BindException
// written a moment later).
func TestPortTakenReadFromTheWholeTrace(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the stand-in for java is a shell script")
	}
	java := filepath.Join(t.TempDir(), "java")
	script := "#!/bin/sh\nprintf 'Exception in thread \"main\" ' >&2\nsleep 0.08\n" +
		"printf 'java.io.IOException: Failed to bind to 0.0.0.0/0.0.0.0:1\\n\\tat org.eclipse.jetty.server.ServerConnector.openAcceptChannel\\n' >&2\n" +
		"sleep 0.08\nprintf 'Caused by: java.net.BindException: Address already in use\\n' >&2\nexec sleep 30\n"
	if err := os.WriteFile(java, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		s, err := start(java, t.TempDir())
		if s != nil {
			s.Stop()
		}
		if !errors.Is(err, errPortTaken) {
			t.Fatalf("a trace of a BindException written in pieces: %v; want errPortTaken", err)
		}
	}
	// A pause longer than the quiet settle waits for, before the line
	// naming the exception (a loaded machine).
	script = "#!/bin/sh\nprintf 'Exception in thread \"main\" ' >&2\nsleep 0.3\n" +
		"printf 'java.io.IOException: Failed to bind to 0.0.0.0/0.0.0.0:1\\n' >&2\nexec sleep 30\n"
	if err := os.WriteFile(java, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	{
		s, err := start(java, t.TempDir())
		if s != nil {
			s.Stop()
		}
		if !errors.Is(err, errPortTaken) {
			t.Fatalf("a trace of a BindException written in pieces: %v; want errPortTaken", err)
		}
	}
	// Another death is not a port taken.
	script = "#!/bin/sh\nprintf 'Exception in thread \"main\" ' >&2\nsleep 0.08\nprintf 'java.lang.UnsatisfiedLinkError: no sqlite4java\\n' >&2\nexec sleep 30\n"
	if err := os.WriteFile(java, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := start(java, t.TempDir()); err == nil || errors.Is(err, errPortTaken) || !strings.Contains(err.Error(), "UnsatisfiedLinkError") {
		t.Errorf("another death: %v; want its trace named", err)
	}
}

// settle waits while the output grows, a full log buffer included: its
// length stops at max, the count of bytes written does not.
func TestSettleWaitsOnAFullBuffer(t *testing.T) {
	s := &Server{log: &logBuffer{max: 8}, done: make(chan struct{})}
	s.log.Write([]byte("12345678"))
	stop := make(chan struct{})
	go func() {
		for {
			select {
			case <-stop:
				return
			case <-time.After(10 * time.Millisecond):
				s.log.Write([]byte("x"))
			}
		}
	}()
	start := time.Now()
	time.AfterFunc(400*time.Millisecond, func() { close(stop) })
	s.settle()
	if waited := time.Since(start); waited < 300*time.Millisecond {
		t.Errorf("settle returned after %s while the output still grew (a full buffer taken as quiet)", waited)
	}
	if got := s.log.Written(); got < 9 || len(s.log.String()) != 8 {
		t.Errorf("written %d, kept %q: want every byte counted and the last 8 kept", got, s.log.String())
	}
}

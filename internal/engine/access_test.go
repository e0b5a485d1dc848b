package engine

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/smithy-go"

	"github.com/keyplan/keyplan/internal/usercache"
)

// refused reports whether err is the engine refusing the request's access
// key.
func refused(err error) bool {
	var ae smithy.APIError
	return errors.As(err, &ae) && ae.ErrorCode() == "UnrecognizedClientException"
}

// withKey is a client of endpoint signing with key.
func withKey(endpoint, key string) *dynamodb.Client {
	return dynamodb.New(dynamodb.Options{Region: "us-east-1", BaseEndpoint: aws.String(endpoint), RetryMaxAttempts: 1,
		Credentials: credentials.NewStaticCredentialsProvider(key, "secret", "")})
}

// The in-process engine a run starts accepts the run's own key only: the
// run's clients (Client, Conn.Raw, a proxy's shared endpoint) get in,
// another local user's (any other key, the placeholder the clients used
// to sign with, the environment's) is refused. Each run has a key of its
// own.
func TestARunsEngineRefusesOtherKeys(t *testing.T) {
	t.Setenv("AWS_ACCESS_KEY_ID", "AKIAENVIRONMENT00000")
	ctx := context.Background()
	c, err := Connect(ctx, Options{Name: Memory})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Stop()
	if !strings.HasPrefix(c.AccessKeyID, accessKeyPrefix) || len(c.AccessKeyID) != 20 {
		t.Fatalf("the run's key: %q", c.AccessKeyID)
	}
	if _, err := c.Raw.ListTables(ctx, &dynamodb.ListTablesInput{}); err != nil {
		t.Fatalf("the run's client: %v", err)
	}
	if _, err := Client(c.Endpoint, 0).ListTables(ctx, &dynamodb.ListTablesInput{}); err != nil {
		t.Fatalf("another client of the run: %v", err)
	}
	for _, key := range []string{"keyplan", "AKIAENVIRONMENT00000", NewAccessKeyID(), strings.ToLower(c.AccessKeyID)} {
		if _, err := withKey(c.Endpoint, key).ListTables(ctx, &dynamodb.ListTablesInput{}); !refused(err) {
			t.Errorf("key %s: %v, want UnrecognizedClientException", key, err)
		}
	}
	if env := c.Environ(); !slices.Contains(env, "AWS_ACCESS_KEY_ID="+c.AccessKeyID) || !slices.Contains(env, EnvEndpoint+"="+c.Endpoint) {
		t.Errorf("Environ: %v", env)
	}
	// A proxy in front of the engine signs with the engine's key once
	// shared, and takes the engine's probe.
	alias := "http://127.0.0.1:1"
	unshare := Share(alias, c.Endpoint)
	if AccessKeyID(alias) != c.AccessKeyID || Transactions(ctx, alias, Client(alias, 0)).Emulated() {
		t.Errorf("shared: key %q, emulated %v", AccessKeyID(alias), Transactions(ctx, alias, Client(alias, 0)).Emulated())
	}
	unshare()
	if AccessKeyID(alias) == c.AccessKeyID {
		t.Error("the alias outlives its unsharing")
	}
	other, err := Connect(ctx, Options{Name: Memory})
	if err != nil {
		t.Fatal(err)
	}
	other.Stop()
	if other.AccessKeyID == c.AccessKeyID {
		t.Error("two runs share a key")
	}
	// A stopped engine's key is forgotten: an endpoint of the same port
	// later is another engine.
	if AccessKeyID(other.Endpoint) == other.AccessKeyID {
		t.Error("the stopped engine's key is still used")
	}
}

// keyplan local serves on the port asked (0: a free one), accepts its key only, and
// leaves it where this user's keyplan commands find it (and nobody else
// can read it); a second one on the port is refused, saying so; Close
// takes the key file away.
func TestServeLocal(t *testing.T) {
	cache := t.TempDir()
	t.Setenv(usercache.Env, cache)
	ctx := context.Background()
	l, err := ServeLocal(LocalOptions{Port: 0, AccessKeyID: "MYOWNKEY_1"})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if l.KeyFileErr != nil || !strings.HasPrefix(l.KeyFile, filepath.Join(cache, "local")) {
		t.Fatalf("key file %s: %v", l.KeyFile, l.KeyFileErr)
	}
	if fi, err := os.Stat(l.KeyFile); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("key file: %v, %v", fi, err)
	}
	for _, ep := range []string{l.Endpoint, strings.Replace(l.Endpoint, "127.0.0.1", "localhost", 1)} {
		if got := localKey(ep); got != "MYOWNKEY_1" {
			t.Errorf("localKey(%s) = %q", ep, got)
		}
	}
	if _, err := withKey(l.Endpoint, "MYOWNKEY_1").ListTables(ctx, &dynamodb.ListTablesInput{}); err != nil {
		t.Errorf("its key: %v", err)
	}
	if _, err := withKey(l.Endpoint, "keyplan").ListTables(ctx, &dynamodb.ListTablesInput{}); !refused(err) {
		t.Errorf("another key: %v", err)
	}
	// A key file open to others is not read.
	os.Chmod(l.KeyFile, 0o644)
	if got := localKey(l.Endpoint); got != "" {
		t.Errorf("a key file others can read gave %q", got)
	}
	os.Chmod(l.KeyFile, 0o600)
	port := strings.TrimPrefix(l.Endpoint, "http://127.0.0.1:")
	var n int
	for _, c := range port {
		n = n*10 + int(c-'0')
	}
	if _, err := ServeLocal(LocalOptions{Port: n}); !errors.Is(err, ErrPortInUse) || !strings.Contains(err.Error(), "--port 0") {
		t.Errorf("a second engine on the port: %v", err)
	}
	for _, bad := range []LocalOptions{{Port: -1}, {Port: 65536}, {AccessKeyID: "a key"}, {AccessKeyID: strings.Repeat("K", 129)}} {
		if l, err := ServeLocal(bad); err == nil {
			l.Close()
			t.Errorf("%+v: served", bad)
		}
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(l.KeyFile); !os.IsNotExist(err) {
		t.Errorf("the key file outlives the engine: %v", err)
	}
	if localKey(l.Endpoint) != "" {
		t.Error("a key for a port nothing serves")
	}
}

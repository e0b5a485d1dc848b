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
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/smithy-go"

	"github.com/keyplan/keyplan/internal/engine/sdkhttp"
	"github.com/keyplan/keyplan/internal/engine/usercache"
)

// refused reports whether err is the engine refusing the request's access
// key (an unknown key id, or the right one with a wrong secret).
func refused(err error) bool {
	var ae smithy.APIError
	return errors.As(err, &ae) && (ae.ErrorCode() == "UnrecognizedClientException" || ae.ErrorCode() == "InvalidSignatureException")
}

// withKey is a client of endpoint signing with key and secret (default:
// the engine's, when key is its key, else another).
func withKey(endpoint, key string, secret ...string) *dynamodb.Client {
	s := "secret"
	if id, engines := keyFor(endpoint); id == key && engines != "" {
		s = engines
	}
	if len(secret) > 0 {
		s = secret[0]
	}
	return dynamodb.New(dynamodb.Options{Region: "us-east-1", BaseEndpoint: aws.String(endpoint), RetryMaxAttempts: 1,
		HTTPClient: sdkhttp.Client(), Credentials: credentials.NewStaticCredentialsProvider(key, s, "")})
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
	// Another key id, or the run's with another secret (the key id
	// alone, as the engine once took it).
	for _, key := range []string{"keyplan", "AKIAENVIRONMENT00000", NewAccessKeyID(), strings.ToLower(c.AccessKeyID), c.AccessKeyID} {
		if _, err := withKey(c.Endpoint, key, placeholderSecret).ListTables(ctx, &dynamodb.ListTablesInput{}); !refused(err) {
			t.Errorf("key %s: %v, want UnrecognizedClientException or InvalidSignatureException", key, err)
		}
	}
	if env := c.Environ(); !slices.Contains(env, "AWS_ACCESS_KEY_ID="+c.AccessKeyID) || !slices.Contains(env, EnvEndpoint+"="+c.Endpoint) ||
		!slices.ContainsFunc(env, func(s string) bool { return strings.HasPrefix(s, "AWS_SECRET_ACCESS_KEY=") && len(s) > 40 }) {
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

// keyplan local serves on the port asked (0: a free one), accepts its key only,
// checked by signature, and leaves it where this user's keyplan commands
// find it (and nobody else can read it), as an AWS credentials file; a
// second one on the port is refused, saying so; Close takes the key file
// away. A key id given in argv (--access-key) is accepted with a
// warning, and a secret of the run's: the id alone lets no one in.
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
	if b := l.Banner(); !strings.Contains(b, "warning: --access-key puts the key id in this process's command line") || strings.Contains(b, l.secret) {
		t.Errorf("the banner: %s", b)
	}
	for _, ep := range []string{l.Endpoint, strings.Replace(l.Endpoint, "127.0.0.1", "localhost", 1)} {
		if id, secret := localKey(ep); id != "MYOWNKEY_1" || secret != l.secret || len(secret) != 40 {
			t.Errorf("localKey(%s) = %q, %q", ep, id, secret)
		}
	}
	if _, err := withKey(l.Endpoint, "MYOWNKEY_1", l.secret).ListTables(ctx, &dynamodb.ListTablesInput{}); err != nil {
		t.Errorf("its key: %v", err)
	}
	if _, err := Client(l.Endpoint, 0).ListTables(ctx, &dynamodb.ListTablesInput{}); err != nil {
		t.Errorf("keyplan's client: %v", err)
	}
	for _, k := range [][2]string{{"keyplan", l.secret}, {"MYOWNKEY_1", "any secret"}} {
		if _, err := withKey(l.Endpoint, k[0], k[1]).ListTables(ctx, &dynamodb.ListTablesInput{}); !refused(err) {
			t.Errorf("key %s with another secret: %v", k[0], err)
		}
	}
	// An AWS client reads the key file (AWS_SHARED_CREDENTIALS_FILE).
	cfg, err := config.LoadDefaultConfig(ctx, config.WithSharedCredentialsFiles([]string{l.KeyFile}), config.WithSharedConfigFiles(nil), config.WithRegion("eu-west-1"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := dynamodb.NewFromConfig(cfg, func(o *dynamodb.Options) { o.BaseEndpoint = aws.String(l.Endpoint) }).ListTables(ctx, &dynamodb.ListTablesInput{}); err != nil {
		t.Errorf("an AWS client with the key file: %v", err)
	}
	// A key file open to others is not read.
	os.Chmod(l.KeyFile, 0o644)
	if got, _ := localKey(l.Endpoint); got != "" {
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
	if id, _ := localKey(l.Endpoint); id != "" {
		t.Error("a key for a port nothing serves")
	}
}

// keyplan local takes a key of the user's own from a credentials file
// only they can read (--credentials-file), or from the environment:
// ScyllaDB's Alternator suite signs with its own key, and runs so.
func TestServeLocalWithTheUsersKey(t *testing.T) {
	t.Setenv(usercache.Env, t.TempDir())
	ctx := context.Background()
	file := filepath.Join(t.TempDir(), "creds")
	if err := os.WriteFile(file, []byte("# the suite's key\n[other]\naws_access_key_id = NOTTHIS\n[default]\naws_access_key_id = alternator\naws_secret_access_key = secret_pass\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	l, err := ServeLocal(LocalOptions{CredentialsFile: file})
	if err != nil {
		t.Fatal(err)
	}
	if l.AccessKeyID != "alternator" || len(l.Warnings) != 0 {
		t.Errorf("from the file: %q %v", l.AccessKeyID, l.Warnings)
	}
	if _, err := withKey(l.Endpoint, "alternator", "secret_pass").ListTables(ctx, &dynamodb.ListTablesInput{}); err != nil {
		t.Errorf("the file's key: %v", err)
	}
	if _, err := withKey(l.Endpoint, "alternator", "secret_pas").ListTables(ctx, &dynamodb.ListTablesInput{}); !refused(err) {
		t.Errorf("a wrong secret: %v", err)
	}
	l.Close()
	t.Setenv(EnvLocalAccessKeyID, "ENVKEY")
	t.Setenv(EnvLocalSecretAccessKey, "env secret")
	l, err = ServeLocal(LocalOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := withKey(l.Endpoint, "ENVKEY", "env secret").ListTables(ctx, &dynamodb.ListTablesInput{}); err != nil {
		t.Errorf("the environment's key: %v", err)
	}
	l.Close()
	t.Setenv(EnvLocalSecretAccessKey, "")
	os.Chmod(file, 0o644)
	for _, tc := range []struct {
		o    LocalOptions
		want string
	}{
		{LocalOptions{}, "go together"},
		{LocalOptions{CredentialsFile: file}, "others may read it"},
		{LocalOptions{CredentialsFile: filepath.Join(t.TempDir(), "none")}, "no such file"},
		{LocalOptions{CredentialsFile: file, AccessKeyID: "X"}, "give the key in the file alone"},
	} {
		if l, err := ServeLocal(tc.o); err == nil || !strings.Contains(err.Error(), tc.want) {
			if l != nil {
				l.Close()
			}
			t.Errorf("%+v: %v; want %q", tc.o, err, tc.want)
		}
	}
}

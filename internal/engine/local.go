package engine

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"syscall"

	"github.com/keyplan/keyplan/internal/atomicfile"
	"github.com/keyplan/keyplan/internal/minidyn"
	"github.com/keyplan/keyplan/internal/minidyn/store"
	"github.com/keyplan/keyplan/internal/usercache"
)

// DefaultLocalPort is the port keyplan local serves on unless told
// (DynamoDB Local's).
const DefaultLocalPort = 8000

// DataFile is the file in keyplan local's --data directory that holds the
// tables (a bbolt file: internal/minidyn/store).
const DataFile = store.File

// LocalOptions say how keyplan local serves the in-process engine.
type LocalOptions struct {
	// Port is the port on 127.0.0.1 (0: one the system chooses).
	Port int
	// DataDir, when set, keeps the tables across restarts (minidyn's
	// data directory: a bbolt file, every request answered once what it
	// changed is committed there; one server at a time).
	DataDir string
	// CredentialsFile names the key the engine accepts: an AWS shared
	// credentials file ([default] aws_access_key_id and
	// aws_secret_access_key) only its user may read. Else
	// $KEYPLAN_LOCAL_ACCESS_KEY_ID and $KEYPLAN_LOCAL_SECRET_ACCESS_KEY;
	// else a key random to this run.
	CredentialsFile string
	// AccessKeyID is the key id to accept (keyplan local --access-key):
	// it is in argv, which every user reads, so it is no secret; the
	// secret is made for the run (NewSecret). "": a random id.
	AccessKeyID string
}

// The environment variables that give keyplan local its key (the secret
// never in argv).
const (
	EnvLocalAccessKeyID     = "KEYPLAN_LOCAL_ACCESS_KEY_ID"
	EnvLocalSecretAccessKey = "KEYPLAN_LOCAL_SECRET_ACCESS_KEY"
)

// Local is the in-process engine served for other processes (keyplan
// local).
type Local struct {
	// Endpoint is its URL, http://127.0.0.1:PORT.
	Endpoint string
	// AccessKeyID is the key id it accepts; requests must be signed with
	// its secret, which is in KeyFile.
	AccessKeyID string
	// KeyFile is where keyplan's own commands (and any AWS client, with
	// AWS_SHARED_CREDENTIALS_FILE) find the key (LocalKeyFile);
	// KeyFileErr says why it could not be written (nil when it was).
	KeyFile    string
	KeyFileErr error
	// Warnings are what the banner warns of (an access key in argv).
	Warnings []string
	dataDir  string
	secret   string
	srv      *minidyn.Server
}

// Tables says where the tables are kept.
func (l *Local) Tables() string {
	if l.dataDir == "" {
		return "in memory: gone when it stops"
	}
	return "kept in " + l.dataDir
}

// Banner is what keyplan local prints once it serves: the endpoint, where
// the tables are, the key id and where its secret is.
func (l *Local) Banner() string {
	s := fmt.Sprintf("keyplan local: the in-process engine at %s (this machine only; tables %s), until interrupted\n", l.Endpoint, l.Tables())
	s += fmt.Sprintf("  access key id %s: requests are checked by signature; keyplan's commands find the key (--endpoint %s)", l.AccessKeyID, l.Endpoint)
	if l.KeyFileErr != nil {
		s += fmt.Sprintf("\n  the key file could not be written (%v): give other clients the key yourself (%s, %s)\n", l.KeyFileErr, EnvLocalAccessKeyID, EnvLocalSecretAccessKey)
	} else {
		s += fmt.Sprintf("; other clients sign with the key in %s (AWS_SHARED_CREDENTIALS_FILE=%s; any region)\n", l.KeyFile, l.KeyFile)
	}
	for _, w := range l.Warnings {
		s += "  warning: " + w + "\n"
	}
	return s
}

// ErrPortInUse is ServeLocal's error when something already listens on
// the port.
var ErrPortInUse = errors.New("the port is in use")

// accessKeyRule is what an access key id may be (IAM's AccessKeyId: word
// characters, at most 128).
var accessKeyRule = regexp.MustCompile(`^\w{1,128}$`)

// argvKeyWarning is the banner's warning for --access-key.
const argvKeyWarning = "--access-key puts the key id in this process's command line, which every user of the machine can read (ps, /proc/PID/cmdline): it is no secret, and no longer lets anyone in by itself, since every request must be signed with the key's secret, made for this run and kept in the key file; to give the engine a key of your own, use --credentials-file FILE (or $" + EnvLocalAccessKeyID + " and $" + EnvLocalSecretAccessKey + ")"

// localCredentials is the key keyplan local accepts (LocalOptions).
func localCredentials(o LocalOptions) (id, secret string, warnings []string, err error) {
	envID, envSecret := os.Getenv(EnvLocalAccessKeyID), os.Getenv(EnvLocalSecretAccessKey)
	switch {
	case o.CredentialsFile != "" && o.AccessKeyID != "":
		return "", "", nil, errors.New("--access-key and --credentials-file: give the key in the file alone")
	case o.CredentialsFile != "":
		id, secret, err = minidyn.ReadCredentials(o.CredentialsFile)
	case envID != "" || envSecret != "":
		if envID == "" || envSecret == "" {
			return "", "", nil, fmt.Errorf("$%s and $%s go together: set both, or neither", EnvLocalAccessKeyID, EnvLocalSecretAccessKey)
		}
		id, secret = envID, envSecret
	case o.AccessKeyID != "":
		id, secret, warnings = o.AccessKeyID, NewSecret(), []string{argvKeyWarning}
	default:
		id, secret = NewAccessKeyID(), NewSecret()
	}
	if err == nil && !accessKeyRule.MatchString(id) {
		err = fmt.Errorf("access key %q: expected 1 to 128 letters, digits or _", id)
	}
	return id, secret, warnings, err
}

// ServeLocal serves the in-process engine on 127.0.0.1:o.Port until
// Close, accepting one access key, checked by signature, and writes that
// key where keyplan's commands on this machine, run by this user, find it
// (LocalKeyFile): they use the engine with --endpoint alone.
func ServeLocal(o LocalOptions) (*Local, error) {
	if o.Port < 0 || o.Port > 65535 {
		return nil, fmt.Errorf("port %d: expected 0 to 65535", o.Port)
	}
	id, secret, warnings, err := localCredentials(o)
	if err != nil {
		return nil, err
	}
	srv, err := minidyn.Serve(minidyn.Options{Addr: "127.0.0.1:" + strconv.Itoa(o.Port), AccessKeyID: id, SecretAccessKey: secret, DataDir: o.DataDir})
	if errors.Is(err, syscall.EADDRINUSE) {
		return nil, fmt.Errorf("%w: 127.0.0.1:%d already has a server (another keyplan local or engine?): stop it, or pick another port (--port 0: a free one)", ErrPortInUse, o.Port)
	}
	if err != nil {
		return nil, err
	}
	l := &Local{Endpoint: srv.Endpoint, AccessKeyID: id, Warnings: warnings, dataDir: o.DataDir, secret: secret, srv: srv}
	set(l.Endpoint, known{key: id, secret: secret})
	l.KeyFile, l.KeyFileErr = writeLocalKey(loopbackPort(l.Endpoint), id, secret)
	return l, nil
}

// RunLocal serves as ServeLocal does, writes the Banner to w, serves until
// ctx ends, then stops (Close) and says so: keyplan local.
func RunLocal(ctx context.Context, o LocalOptions, w io.Writer) error {
	l, err := ServeLocal(o)
	if err != nil {
		return err
	}
	fmt.Fprint(w, l.Banner())
	<-ctx.Done()
	if err := l.Close(); err != nil {
		return fmt.Errorf("stopped, but the data directory %s could not be closed: %w", o.DataDir, err)
	}
	fmt.Fprintf(w, "keyplan local: stopped (tables %s)\n", l.Tables())
	return nil
}

// Close stops the engine once the requests in progress are answered
// (everything acknowledged is stored already). The key file goes with
// it.
func (l *Local) Close() error {
	err := l.srv.Close()
	forget(l.Endpoint)
	if l.KeyFileErr == nil {
		if id, secret, rerr := minidyn.ReadCredentials(l.KeyFile); rerr == nil && id == l.AccessKeyID && secret == l.secret {
			_ = os.Remove(l.KeyFile)
		}
	}
	return err
}

// LocalKeyFile is where keyplan local on port writes its key for
// keyplan's commands of the same user, and for any AWS client: the
// user's cache directory (usercache.Dir, $KEYPLAN_CACHE),
// local/PORT.credentials, an AWS shared credentials file readable by the
// user alone.
func LocalKeyFile(port string) (string, error) {
	dir, err := usercache.Dir()
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, "local", port+".credentials"), nil
}

func writeLocalKey(port, id, secret string) (string, error) {
	path, err := LocalKeyFile(port)
	if err != nil {
		return "", err
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return path, err
	}
	if err := private(dir); err != nil {
		return path, err
	}
	text := minidyn.CredentialsText(fmt.Sprintf("keyplan local on 127.0.0.1:%s (process %d): its key; AWS_SHARED_CREDENTIALS_FILE=%s", port, os.Getpid(), path), id, secret)
	return path, atomicfile.WriteFile(path, text, 0o600)
}

// localKey is the key of the keyplan local on a loopback endpoint's port,
// from its key file; "" when there is none, or the file (or its
// directory) is not this user's alone.
func localKey(endpoint string) (id, secret string) {
	port := loopbackPort(endpoint)
	if port == "" {
		return "", ""
	}
	path, err := LocalKeyFile(port)
	if err != nil || private(filepath.Dir(path)) != nil || private(path) != nil {
		return "", ""
	}
	id, secret, err = minidyn.ReadCredentials(path)
	if err != nil || !accessKeyRule.MatchString(id) {
		return "", ""
	}
	return id, secret
}

// ReadKeyFile reads a keyplan local key file (or any AWS credentials
// file only its user can read): its [default] key id and secret.
func ReadKeyFile(path string) (id, secret string, err error) { return minidyn.ReadCredentials(path) }

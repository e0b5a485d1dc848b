package engine

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"syscall"

	"github.com/keyplan/keyplan/internal/atomicfile"
	"github.com/keyplan/keyplan/internal/engine/minidyn"
	"github.com/keyplan/keyplan/internal/engine/minidyn/store"
	"github.com/keyplan/keyplan/internal/engine/usercache"
)

// DefaultLocalPort is the port keyplan local serves on unless told
// (DynamoDB Local's).
const DefaultLocalPort = 8000

// DataFile is the file in keyplan local's --data directory that holds the
// tables (a bbolt file: internal/engine/minidyn/store).
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
	// ReadOnlyAccessKeyID is the id of a second key the engine accepts,
	// whose requests may read and nothing else (keyplan local
	// --read-only-key; else $KEYPLAN_LOCAL_READ_ONLY_ACCESS_KEY_ID): a
	// request of it that would write is refused with DynamoDB's
	// AccessDeniedException, naming the action. Its secret is
	// $KEYPLAN_LOCAL_READ_ONLY_SECRET_ACCESS_KEY, else made for the run;
	// never in argv. "" (and no ReadOnlyCredentialsFile): no such key.
	ReadOnlyAccessKeyID string
	// ReadOnlyCredentialsFile names the read-only key in a credentials
	// file as CredentialsFile does the other.
	ReadOnlyCredentialsFile string
}

// The environment variables that give keyplan local its keys (the
// secrets never in argv).
const (
	EnvLocalAccessKeyID             = "KEYPLAN_LOCAL_ACCESS_KEY_ID"
	EnvLocalSecretAccessKey         = "KEYPLAN_LOCAL_SECRET_ACCESS_KEY"
	EnvLocalReadOnlyAccessKeyID     = "KEYPLAN_LOCAL_READ_ONLY_ACCESS_KEY_ID"
	EnvLocalReadOnlySecretAccessKey = "KEYPLAN_LOCAL_READ_ONLY_SECRET_ACCESS_KEY"
)

// ReadOnlyProfile is the profile of keyplan local's key file that holds
// its read-only key: keyplan's commands sign with it when $AWS_PROFILE
// names it (AWS_PROFILE=read-only), as any AWS client does with the key
// file.
const ReadOnlyProfile = "read-only"

// Flags defines keyplan local's flags on fs, into o.
func (o *LocalOptions) Flags(fs *flag.FlagSet) {
	fs.IntVar(&o.Port, "port", DefaultLocalPort, "serve on 127.0.0.1:`PORT` (0: a free one)")
	fs.StringVar(&o.DataDir, "data", "", "keep the tables in `DIR` across restarts, every write committed before it is answered; one server per DIR (default: in memory only)")
	fs.StringVar(&o.CredentialsFile, "credentials-file", "", "accept the key in `FILE`, an AWS credentials file only you can read ([default] aws_access_key_id, aws_secret_access_key; default: $"+EnvLocalAccessKeyID+" and $"+EnvLocalSecretAccessKey+", else a key made for the run)")
	fs.StringVar(&o.AccessKeyID, "access-key", "", "accept `KEY` as the key id, with a secret made for the run (warned: argv is no secret; prefer --credentials-file)")
	fs.StringVar(&o.ReadOnlyAccessKeyID, "read-only-key", "", "accept a second key, `ID`, that may only read (writes refused: AccessDeniedException); its secret $"+EnvLocalReadOnlySecretAccessKey+", else made for the run; in the key file as [read-only] (AWS_PROFILE=read-only)")
	fs.StringVar(&o.ReadOnlyCredentialsFile, "read-only-credentials-file", "", "the read-only key in `FILE`'s [default], as --credentials-file")
}

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
	// ReadOnlyAccessKeyID is the read-only key's id ("": none); its
	// secret is in KeyFile's [read-only] profile.
	ReadOnlyAccessKeyID string
	dataDir             string
	secret              string
	srv                 *minidyn.Server
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
	if l.ReadOnlyAccessKeyID != "" {
		s += fmt.Sprintf("  read-only key id %s: it may read, never write; its secret is the key file's [%s] profile (AWS_PROFILE=%s, for keyplan's commands too)\n", l.ReadOnlyAccessKeyID, ReadOnlyProfile, ReadOnlyProfile)
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

// readOnlyCredentials is the read-only key keyplan local accepts
// (LocalOptions), "" when none.
func readOnlyCredentials(o LocalOptions, full string) (id, secret string, err error) {
	envID, envSecret := os.Getenv(EnvLocalReadOnlyAccessKeyID), os.Getenv(EnvLocalReadOnlySecretAccessKey)
	switch {
	case o.ReadOnlyCredentialsFile != "" && o.ReadOnlyAccessKeyID != "":
		return "", "", errors.New("--read-only-key and --read-only-credentials-file: give the read-only key in the file alone")
	case o.ReadOnlyCredentialsFile != "":
		id, secret, err = minidyn.ReadCredentials(o.ReadOnlyCredentialsFile)
	case o.ReadOnlyAccessKeyID != "" || envID != "":
		id, secret = o.ReadOnlyAccessKeyID, envSecret
		if id == "" {
			id = envID
		}
		if secret == "" {
			secret = NewSecret()
		}
	case envSecret != "":
		return "", "", fmt.Errorf("$%s without a read-only key id: give it with --read-only-key ID (or $%s)", EnvLocalReadOnlySecretAccessKey, EnvLocalReadOnlyAccessKeyID)
	default:
		return "", "", nil
	}
	switch {
	case err != nil:
	case !accessKeyRule.MatchString(id):
		err = fmt.Errorf("read-only access key %q: expected 1 to 128 letters, digits or _", id)
	case id == full:
		err = fmt.Errorf("read-only access key %q is the engine's other key: give it a key id of its own", id)
	}
	return id, secret, err
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
	roID, roSecret, err := readOnlyCredentials(o, id)
	if err != nil {
		return nil, err
	}
	srv, err := minidyn.Serve(minidyn.Options{Addr: "127.0.0.1:" + strconv.Itoa(o.Port), AccessKeyID: id, SecretAccessKey: secret,
		ReadOnlyAccessKeyID: roID, ReadOnlySecretAccessKey: roSecret, DataDir: o.DataDir})
	if errors.Is(err, syscall.EADDRINUSE) {
		return nil, fmt.Errorf("%w: 127.0.0.1:%d already has a server (another keyplan local or engine?): stop it, or pick another port (--port 0: a free one)", ErrPortInUse, o.Port)
	}
	if err != nil {
		return nil, err
	}
	l := &Local{Endpoint: srv.Endpoint, AccessKeyID: id, ReadOnlyAccessKeyID: roID, Warnings: warnings, dataDir: o.DataDir, secret: secret, srv: srv}
	k := known{key: id, secret: secret, roKey: roID, roSecret: roSecret, local: true}
	set(l.Endpoint, k)
	l.KeyFile, l.KeyFileErr = writeLocalKey(loopbackPort(l.Endpoint), k)
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

func writeLocalKey(port string, k known) (string, error) {
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
	var more []minidyn.Profile
	if k.roKey != "" {
		more = append(more, minidyn.Profile{Name: ReadOnlyProfile, ID: k.roKey, Secret: k.roSecret})
	}
	text := minidyn.CredentialsText(fmt.Sprintf("keyplan local on 127.0.0.1:%s (process %d): its key; AWS_SHARED_CREDENTIALS_FILE=%s", port, os.Getpid(), path), k.key, k.secret, more...)
	return path, atomicfile.WriteFile(path, text, 0o600)
}

// localKey is the key of the keyplan local on a loopback endpoint's port,
// from its key file; "" when there is none, or the file (or its
// directory) is not this user's alone.
func localKey(endpoint string) (id, secret string) {
	k, _ := localKeys(endpoint)
	return k.key, k.secret
}

// localKeys are the keys of the keyplan local on a loopback endpoint's
// port, from its key file (its read-only key "" when it has none); false
// when there is no such file of this user's alone.
func localKeys(endpoint string) (known, bool) {
	port := loopbackPort(endpoint)
	if port == "" {
		return known{}, false
	}
	path, err := LocalKeyFile(port)
	if err != nil || private(filepath.Dir(path)) != nil || private(path) != nil {
		return known{}, false
	}
	id, secret, err := minidyn.ReadCredentials(path)
	if err != nil || !accessKeyRule.MatchString(id) {
		return known{}, false
	}
	k := known{key: id, secret: secret, local: true}
	if id, secret, err := minidyn.ReadProfile(path, ReadOnlyProfile); err == nil && accessKeyRule.MatchString(id) {
		k.roKey, k.roSecret = id, secret
	}
	return k, true
}

// ReadKeyFile reads a keyplan local key file (or any AWS credentials
// file only its user can read): its [default] key id and secret.
func ReadKeyFile(path string) (id, secret string, err error) { return minidyn.ReadCredentials(path) }

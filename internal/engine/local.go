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
	"strings"
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
	// data directory: loaded at start, written within a second of a
	// change and when the engine stops, atomically).
	DataDir string
	// AccessKeyID is the one key id the engine accepts ("": a random one,
	// NewAccessKeyID).
	AccessKeyID string
}

// Local is the in-process engine served for other processes (keyplan
// local).
type Local struct {
	// Endpoint is its URL, http://127.0.0.1:PORT.
	Endpoint string
	// AccessKeyID is the key id it accepts: other clients sign with it
	// ($AWS_ACCESS_KEY_ID, any secret, any region).
	AccessKeyID string
	// KeyFile is where keyplan's own commands find the key (LocalKeyFile);
	// KeyFileErr says why it could not be written ("" when it was).
	KeyFile    string
	KeyFileErr error
	dataDir    string
	srv        *minidyn.Server
}

// Tables says where the tables are kept.
func (l *Local) Tables() string {
	if l.dataDir == "" {
		return "in memory: gone when it stops"
	}
	return "kept in " + l.dataDir
}

// Banner is what keyplan local prints once it serves: the endpoint, where
// the tables are, the key and who finds it.
func (l *Local) Banner() string {
	s := fmt.Sprintf("keyplan local: the in-process engine at %s (this machine only; tables %s), until interrupted\n", l.Endpoint, l.Tables())
	s += fmt.Sprintf("  access key id %s: keyplan's commands find it (--endpoint %s); other clients sign with it (AWS_ACCESS_KEY_ID, any secret and region)\n", l.AccessKeyID, l.Endpoint)
	if l.KeyFileErr != nil {
		s += fmt.Sprintf("  keyplan's commands will not find it (%v): give them AWS_ACCESS_KEY_ID=%s\n", l.KeyFileErr, l.AccessKeyID)
	}
	return s
}

// ErrPortInUse is ServeLocal's error when something already listens on
// the port.
var ErrPortInUse = errors.New("the port is in use")

// accessKeyRule is what an access key id may be (IAM's AccessKeyId: word
// characters, at most 128).
var accessKeyRule = regexp.MustCompile(`^\w{1,128}$`)

// ServeLocal serves the in-process engine on 127.0.0.1:o.Port until
// Close, accepting one access key id, and writes that key where
// keyplan's commands on this machine, run by this user, find it
// (LocalKeyFile): they use the engine with --endpoint alone.
func ServeLocal(o LocalOptions) (*Local, error) {
	if o.Port < 0 || o.Port > 65535 {
		return nil, fmt.Errorf("port %d: expected 0 to 65535", o.Port)
	}
	if o.AccessKeyID == "" {
		o.AccessKeyID = NewAccessKeyID()
	} else if !accessKeyRule.MatchString(o.AccessKeyID) {
		return nil, fmt.Errorf("access key %q: expected 1 to 128 letters, digits or _", o.AccessKeyID)
	}
	srv, err := minidyn.Serve(minidyn.Options{Addr: "127.0.0.1:" + strconv.Itoa(o.Port), AccessKeyID: o.AccessKeyID, DataDir: o.DataDir})
	if errors.Is(err, syscall.EADDRINUSE) {
		return nil, fmt.Errorf("%w: 127.0.0.1:%d already has a server (another keyplan local or engine?): stop it, or pick another port (--port 0: a free one)", ErrPortInUse, o.Port)
	}
	if err != nil {
		return nil, err
	}
	l := &Local{Endpoint: srv.Endpoint, AccessKeyID: o.AccessKeyID, dataDir: o.DataDir, srv: srv}
	set(l.Endpoint, known{key: l.AccessKeyID})
	l.KeyFile, l.KeyFileErr = writeLocalKey(loopbackPort(l.Endpoint), l.AccessKeyID)
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
		return fmt.Errorf("stopped, but the tables could not be written to %s: %w", o.DataDir, err)
	}
	fmt.Fprintf(w, "keyplan local: stopped (tables %s)\n", l.Tables())
	return nil
}

// Close stops the engine: requests in progress finish, and with a data
// directory the tables are written to it (the error is that write's).
// The key file goes with it.
func (l *Local) Close() error {
	err := l.srv.Close()
	forget(l.Endpoint)
	if l.KeyFileErr == nil {
		if b, rerr := os.ReadFile(l.KeyFile); rerr == nil && strings.TrimSpace(string(b)) == l.AccessKeyID {
			_ = os.Remove(l.KeyFile)
		}
	}
	return err
}

// LocalKeyFile is where keyplan local on port writes its access key for
// keyplan's commands of the same user: the user's cache directory
// (usercache.Dir, $KEYPLAN_CACHE), local/PORT.key, readable by the user
// alone.
func LocalKeyFile(port string) (string, error) {
	dir, err := usercache.Dir()
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, "local", port+".key"), nil
}

func writeLocalKey(port, key string) (string, error) {
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
	return path, atomicfile.WriteFile(path, []byte(key+"\n"), 0o600)
}

// localKey is the key of the keyplan local on a loopback endpoint's port,
// from its key file; "" when there is none, or the file (or its
// directory) is not this user's alone.
func localKey(endpoint string) string {
	port := loopbackPort(endpoint)
	if port == "" {
		return ""
	}
	path, err := LocalKeyFile(port)
	if err != nil || private(filepath.Dir(path)) != nil || private(path) != nil {
		return ""
	}
	b, err := os.ReadFile(path)
	if key := strings.TrimSpace(string(b)); err == nil && accessKeyRule.MatchString(key) {
		return key
	}
	return ""
}

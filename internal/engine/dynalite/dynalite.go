package dynalite

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

// EnvPath names dynalite's cli.js explicitly; EnvEndpoint, read by callers,
// points them at DynamoDB Local or real DynamoDB instead.
const (
	EnvPath     = "KEYPLAN_DYNALITE"
	EnvEndpoint = "KEYPLAN_DYNAMODB_ENDPOINT"
)

// DroppedRequest starts the line the engine writes to its log for a
// request whose client went away before sending all of it.
const DroppedRequest = "dynalite: a request's connection closed before its body arrived; dropped, not run"

// StartTimeout bounds how long Start waits for the engine to listen.
const StartTimeout = 15 * time.Second

// ErrNotInstalled means node or dynalite could not be found.
var ErrNotInstalled = errors.New("dynalite is not installed")

// InstallHint says how keyplan finds an engine, for when it could not.
const InstallHint = "keyplan installs dynalite@4.0.0 into its cache with npm when Node.js is on PATH (" + EnvCache + " moves the cache); or set " + EnvPath + " to dynalite's cli.js, or pass --endpoint"

// cliIn is dynalite's cli.js under dir's node_modules.
func cliIn(dir string) string { return filepath.Join(dir, "node_modules", "dynalite", "cli.js") }

// Server is a running engine.
type Server struct {
	stdin io.WriteCloser
	// Endpoint is its URL, e.g. http://127.0.0.1:40123.
	Endpoint string
	cmd      *exec.Cmd
	stderr   *logBuffer
	done     chan struct{}
	once     sync.Once
}

// Find locates dynalite's cli.js: $KEYPLAN_DYNALITE, else
// node_modules/dynalite/cli.js at the root of the Go module dir is in
// (ProjectRoot: the project's own, pinned by its package-lock.json), else
// the pinned install in the user's cache (made by Install when it is not
// there yet). Nothing else is looked at: a node_modules in a parent
// directory or beside the executable (go run builds into the temporary
// directory) may be another user's, and would run as this one.
func Find(dir string) (string, error) {
	cli, err := find(dir)
	if err == nil || os.Getenv(EnvPath) != "" {
		return cli, err
	}
	return Install()
}

// NeedsInstall reports whether Find would install dynalite first (to
// say so before the wait).
func NeedsInstall(dir string) bool {
	if _, err := find(dir); err == nil || os.Getenv(EnvPath) != "" {
		return false
	}
	cache, err := CacheDir()
	if err != nil {
		return false
	}
	_, err = os.Stat(cliIn(cache))
	return err != nil
}

func find(dir string) (string, error) {
	if p := os.Getenv(EnvPath); p != "" {
		if _, err := os.Stat(p); err != nil {
			return "", fmt.Errorf("%w: %s=%s: %v", ErrNotInstalled, EnvPath, p, err)
		}
		return p, nil
	}
	root, err := ProjectRoot(dir)
	if err != nil {
		return "", fmt.Errorf("%w: %v", ErrNotInstalled, err)
	}
	cli := cliIn(root)
	if _, err := os.Stat(cli); err != nil {
		return "", fmt.Errorf("%w: no %s", ErrNotInstalled, cli)
	}
	// The project's files must be its user's: one another local user
	// could write would run as this one.
	for p := cli; ; p = filepath.Dir(p) {
		if err := trusted(p); err != nil {
			return "", fmt.Errorf("%w: %s is not used: %v", ErrNotInstalled, cli, err)
		}
		if p == root {
			break
		}
	}
	return cli, nil
}

// ProjectRoot is the root of the Go module dir is in: the nearest
// directory at or above dir holding a go.mod, as the go command finds it
// (and, like it, never the system's temporary directory itself), whose
// go.mod is the user's own.
func ProjectRoot(dir string) (string, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	tmp, _ := filepath.Abs(os.TempDir())
	for d := dir; ; d = filepath.Dir(d) {
		mod := filepath.Join(d, "go.mod")
		if fi, err := os.Stat(mod); err == nil && !fi.IsDir() && d != tmp {
			if err := trusted(mod); err != nil {
				return "", fmt.Errorf("%s is not used: %v", mod, err)
			}
			return d, nil
		}
		if filepath.Dir(d) == d {
			return "", fmt.Errorf("%s is in no Go module (no go.mod above it)", dir)
		}
	}
}

// Start runs dynalite (found from dir: Find) on a free loopback port and waits,
// at most StartTimeout, until it accepts connections. Tables are ACTIVE
// as soon as they are created.
func Start(dir string) (*Server, error) { return StartSlow(dir, 0) }

// StartSlow is Start with tables that stay CREATING for createTable
// (to test code that waits for them).
func StartSlow(dir string, createTable time.Duration) (*Server, error) {
	cli, err := Find(dir)
	if err != nil {
		return nil, err
	}
	node, err := exec.LookPath("node")
	if err != nil {
		return nil, fmt.Errorf("%w: node is not on PATH", ErrNotInstalled)
	}
	s := &Server{stderr: &logBuffer{}, done: make(chan struct{})}
	// The engine picks its own port (0) and says which. A port found free
	// here and handed over could be taken meanwhile (by another test
	// binary's engine): this engine would then die on it unseen, and its
	// caller talk to the other one until that one stopped.
	s.cmd = exec.Command(node, "-e", serve, filepath.Dir(cli), strconv.Itoa(int(createTable.Milliseconds())))
	s.cmd.Stderr = s.stderr
	s.cmd.SysProcAttr = procAttr()
	// The engine reads nothing from its stdin but its end: keyplan holds
	// the pipe's other end, and when keyplan goes, however it goes (a
	// SIGKILL included), the system closes it and the engine exits.
	stdin, err := s.cmd.StdinPipe()
	if err != nil {
		return nil, fmt.Errorf("dynalite: %w", err)
	}
	s.stdin = stdin
	stdout, err := s.cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("dynalite: %w", err)
	}
	if err := s.cmd.Start(); err != nil {
		return nil, fmt.Errorf("dynalite: starting %s %s: %w", node, cli, err)
	}
	ports := make(chan string, 1)
	go func() {
		r := bufio.NewReader(stdout)
		line, _ := r.ReadString('\n')
		ports <- strings.TrimSpace(line)
		_, _ = io.Copy(io.Discard, r) // nothing more is expected; Wait after the last read
		_ = s.cmd.Wait()
		close(s.done)
	}()
	select {
	case port := <-ports:
		if _, err := strconv.Atoi(port); err != nil {
			s.Stop()
			return nil, fmt.Errorf("dynalite exited before listening: %s", strings.TrimSpace(s.stderr.String()))
		}
		s.Endpoint = "http://127.0.0.1:" + port
		return s, nil
	case <-time.After(StartTimeout):
		s.Stop()
		return nil, fmt.Errorf("dynalite did not listen within %s", StartTimeout)
	}
}

// serve runs dynalite on a port of its choosing on loopback, prints the
// port, and exits when its stdin ends (keyplan, which holds the other
// end, is gone). Arguments: dynalite's directory, the CREATING time.
//
// dynalite 4.0.0 rethrows a request stream's error (index.js:
// req.on('error', function (err) { throw err })): a client that closes
// its connection before the request's body has arrived (a cancelled
// context, a timeout, a fault proxy giving up) is an uncaught exception,
// and the engine dies with every table of the run. The request it was
// reading cannot be answered and was not run (its body never arrived
// whole), so the listener dynalite adds for it is replaced by one that
// says so on stderr (DroppedRequest) and drops it.
const serve = `const [dir, createMs] = process.argv.slice(1);
const server = require(dir)({createTableMs: Number(createMs), deleteTableMs: 0, updateTableMs: 0});
server.prependListener("request", (req) => {
  const on = req.on;
  req.on = function (event, listener) {
    if (event === "error") listener = (err) => console.error("` + DroppedRequest + ` (" + (err.code || err.message) + ")");
    return on.call(this, event, listener);
  };
});
server.listen(0, "127.0.0.1", () => console.log(server.address().port));
process.stdin.on("end", () => process.exit(0));
process.stdin.resume();`

// Log is what the engine has written to stderr (why it died, when it
// did). It may be read while the engine runs.
func (s *Server) Log() string { return s.stderr.String() }

// logBuffer is the engine's stderr: exec's copying goroutine writes it
// while Log reads it.
type logBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// Stop ends the engine and everything it started.
func (s *Server) Stop() {
	s.once.Do(func() {
		if s.stdin != nil {
			s.stdin.Close()
		}
		if s.cmd.Process != nil {
			terminate(s.cmd.Process)
			select {
			case <-s.done:
			case <-time.After(3 * time.Second):
				kill(s.cmd.Process)
				<-s.done
			}
		}
	})
}

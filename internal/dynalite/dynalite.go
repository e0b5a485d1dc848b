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
	stderr   *bytes.Buffer
	done     chan struct{}
	once     sync.Once
}

// Find locates dynalite's cli.js: $KEYPLAN_DYNALITE, else
// node_modules/dynalite/cli.js in dir or one of its parents, else beside
// the running executable's parents, else the pinned install in the
// user's cache (made by Install when it is not there yet).
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
	starts := []string{dir}
	if exe, err := os.Executable(); err == nil {
		starts = append(starts, filepath.Dir(exe))
	}
	for _, start := range starts {
		for d := start; ; d = filepath.Dir(d) {
			p := cliIn(d)
			if _, err := os.Stat(p); err == nil {
				return p, nil
			}
			if filepath.Dir(d) == d {
				break
			}
		}
	}
	return "", fmt.Errorf("%w: no node_modules/dynalite/cli.js above %s", ErrNotInstalled, dir)
}

// Start runs dynalite (found from dir) on a free loopback port and waits,
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
	s := &Server{stderr: &bytes.Buffer{}, done: make(chan struct{})}
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
			return nil, fmt.Errorf("dynalite exited before listening: %s", bytes.TrimSpace(s.stderr.Bytes()))
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
const serve = `const [dir, createMs] = process.argv.slice(1);
const server = require(dir)({createTableMs: Number(createMs), deleteTableMs: 0, updateTableMs: 0});
server.listen(0, "127.0.0.1", () => console.log(server.address().port));
process.stdin.on("end", () => process.exit(0));
process.stdin.resume();`

// Log is what the engine has written to stderr (why it died, when it
// did).
func (s *Server) Log() string { return s.stderr.String() }

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

package dynalite

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
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

// Install is what to run when it is not.
const Install = "run `npm ci` in the keyplan repository (package-lock.json pins dynalite@4.0.0), set " + EnvPath + " to dynalite's cli.js, or pass --endpoint"

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
// the running executable's parents.
func Find(dir string) (string, error) {
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
			p := filepath.Join(d, "node_modules", "dynalite", "cli.js")
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
	port, err := freePort()
	if err != nil {
		return nil, fmt.Errorf("dynalite: finding a free port: %w", err)
	}
	s := &Server{Endpoint: "http://127.0.0.1:" + strconv.Itoa(port), stderr: &bytes.Buffer{}, done: make(chan struct{})}
	s.cmd = exec.Command(node, "--import", exitWithParent, cli, "--host", "127.0.0.1", "--port", strconv.Itoa(port),
		"--createTableMs", strconv.Itoa(int(createTable.Milliseconds())), "--deleteTableMs", "0", "--updateTableMs", "0")
	s.cmd.Stdout = nil
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
	if err := s.cmd.Start(); err != nil {
		return nil, fmt.Errorf("dynalite: starting %s %s: %w", node, cli, err)
	}
	go func() { _ = s.cmd.Wait(); close(s.done) }()
	deadline := time.Now().Add(StartTimeout)
	for time.Now().Before(deadline) {
		select {
		case <-s.done:
			return nil, fmt.Errorf("dynalite exited before listening: %s", bytes.TrimSpace(s.stderr.Bytes()))
		default:
		}
		if c, err := net.DialTimeout("tcp", "127.0.0.1:"+strconv.Itoa(port), 200*time.Millisecond); err == nil {
			c.Close()
			return s, nil
		}
		time.Sleep(50 * time.Millisecond)
	}
	s.Stop()
	return nil, fmt.Errorf("dynalite did not listen on port %d within %s", port, StartTimeout)
}

// exitWithParent is loaded into the engine's node before dynalite: it
// exits when its stdin ends (keyplan, which holds the other end, is gone).
const exitWithParent = `data:text/javascript,process.stdin.on("end",()=>process.exit(0));process.stdin.resume()`

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

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

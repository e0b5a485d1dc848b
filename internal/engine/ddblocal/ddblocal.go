package ddblocal

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"
)

// StartTimeout bounds how long Start waits for the engine to answer. A
// JVM on a loaded 2-core machine took up to 28 s (docs/engines.md).
const StartTimeout = 120 * time.Second

// StopTimeout bounds how long Stop waits before it kills the engine.
const StopTimeout = 10 * time.Second

// JVMFlags are the JVM options keyplan starts the engine with: the
// client compiler only. Measured with BenchmarkStart (2 cores, load 3): a
// start takes 2.2 s and 2.1 s of CPU with it, 2.8 s and 3.9 s without;
// the engine suite's run time does not change measurably (its requests
// are few and short). -XX:+UseSerialGC saved nothing and grew the
// resident size from 150 to 195 MB; -Xshare:auto (class data sharing of
// the JDK) is the default; an application class-data archive is refused
// (the jar's manifest puts "." on the class path).
var JVMFlags = []string{"-XX:TieredStopAtLevel=1"}

// ErrNoJava means no Java runtime was found to run the engine.
var ErrNoJava = errors.New("DynamoDB Local needs a Java runtime, and none was found")

// JavaHint says how to get one.
const JavaHint = "install Java 17 (on Debian or Ubuntu: apt-get install openjdk-17-jre-headless; elsewhere a Java 17 runtime such as https://adoptium.net) and put java on PATH, or set JAVA_HOME; or pick another engine: --engine memory or dynalite"

// Server is a running DynamoDB Local.
type Server struct {
	// Endpoint is its URL, e.g. http://127.0.0.1:40123.
	Endpoint string
	cmd      *exec.Cmd
	stdin    io.WriteCloser
	run      string // the engine's working directory, removed by Stop
	log      *logBuffer
	done     chan struct{}
	once     sync.Once
}

// errPortTaken: the port chosen was taken before the engine bound it.
var errPortTaken = errors.New("the port was taken")

// Start runs DynamoDB Local (Find's) in memory on a free port and waits,
// at most StartTimeout, until it answers, proven to be this engine (not
// another that took the port first).
func Start() (*Server, error) {
	java, err := Java() // before a download that could not run
	if err != nil {
		return nil, err
	}
	home, err := Find()
	if err != nil {
		return nil, err
	}
	for range 5 {
		s, err := start(java, home)
		if !errors.Is(err, errPortTaken) {
			return s, err
		}
	}
	return nil, fmt.Errorf("DynamoDB Local: 5 ports in a row were taken before it could listen")
}

// Java is the java command: $JAVA_HOME/bin/java, else java on PATH.
func Java() (string, error) {
	exe := "java"
	if runtime.GOOS == "windows" {
		exe = "java.exe"
	}
	if home := os.Getenv("JAVA_HOME"); home != "" {
		p := filepath.Join(home, "bin", exe)
		if _, err := os.Stat(p); err != nil {
			return "", fmt.Errorf("%w: JAVA_HOME=%s has no bin/%s", ErrNoJava, home, exe)
		}
		return p, nil
	}
	p, err := exec.LookPath("java")
	if err != nil {
		return "", fmt.Errorf("%w: java is not on PATH (and JAVA_HOME is not set)", ErrNoJava)
	}
	return p, nil
}

func start(java, home string) (*Server, error) {
	port, err := freePort()
	if err != nil {
		return nil, fmt.Errorf("DynamoDB Local: no free port: %w", err)
	}
	// The port is only free as this is written: another engine (another
	// test binary's) may take it before this one binds it, and this one
	// then fails while the other answers on the port. So what answers
	// must prove it is this engine: it was started allowing one origin,
	// a random one, for CORS, and it alone echoes that origin and no
	// other (DynamoDB Local's default allows every origin).
	origin := "https://" + randomHex() + ".keyplan.invalid"
	run, err := os.MkdirTemp("", "keyplan-dynamodb-local-")
	if err != nil {
		return nil, fmt.Errorf("DynamoDB Local: %w", err)
	}
	args := append(append([]string{}, JVMFlags...),
		"-Djava.library.path="+filepath.Join(home, Lib), "-jar", filepath.Join(home, Jar),
		"-inMemory", "-sharedDb", "-disableTelemetry", "-port", strconv.Itoa(port), "-cors", origin)
	s := &Server{run: run, log: &logBuffer{max: 64 << 10}, done: make(chan struct{})}
	// The engine writes its settings file (dynamodb-local-metadata.json)
	// into its working directory: one of its own, not the install's.
	s.cmd = command(java, args, run)
	s.cmd.Dir = run
	s.cmd.Stdout, s.cmd.Stderr = s.log, s.log
	s.cmd.SysProcAttr = procAttr()
	// The watchdog reads nothing from its stdin but its end: keyplan
	// holds the pipe's other end, and when keyplan goes, however it goes
	// (a SIGKILL included), the system closes it and the watchdog stops
	// the JVM (proc_unix.go).
	if s.stdin, err = s.cmd.StdinPipe(); err != nil {
		os.RemoveAll(run)
		return nil, fmt.Errorf("DynamoDB Local: %w", err)
	}
	if err := s.cmd.Start(); err != nil {
		os.RemoveAll(run)
		return nil, fmt.Errorf("DynamoDB Local: starting %s: %w", java, err)
	}
	go func() {
		_ = s.cmd.Wait()
		close(s.done)
	}()
	s.Endpoint = "http://127.0.0.1:" + strconv.Itoa(port)
	probe := &http.Client{Timeout: 2 * time.Second, Transport: &http.Transport{DisableKeepAlives: true, Proxy: nil}}
	deadline := time.Now().Add(StartTimeout)
	for {
		select {
		case <-s.done:
			s.Stop()
			return nil, fmt.Errorf("DynamoDB Local exited before listening: %s", s.tail())
		default:
		}
		if strings.Contains(s.log.String(), `Exception in thread "main"`) {
			// The engine's main thread died; its other threads keep the
			// JVM up, serving nothing. Its stack trace is still being
			// written (the line naming the BindException comes after the
			// first), so what it died of is read once the trace is whole.
			s.settle()
			s.Stop()
			if portTaken(s.log.String()) {
				return nil, errPortTaken
			}
			return nil, fmt.Errorf("DynamoDB Local failed to start: %s", s.tail())
		}
		if portTaken(s.log.String()) {
			s.Stop()
			return nil, errPortTaken
		}
		if answers(probe, s.Endpoint, origin) && !answers(probe, s.Endpoint, "https://"+randomHex()+".keyplan.invalid") {
			return s, nil
		}
		if time.Now().After(deadline) {
			s.Stop()
			return nil, fmt.Errorf("DynamoDB Local did not answer on %s within %s: %s", s.Endpoint, StartTimeout, s.tail())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// portTaken reports whether the engine's output says its port was taken
// (Jetty's "Failed to bind to", caused by java.net.BindException).
func portTaken(out string) bool {
	return strings.Contains(out, "BindException") || strings.Contains(out, "Failed to bind to")
}

// settle waits, at most a second, until the engine's output stops
// growing for 100 ms with the dying thread's first line whole (what it
// died of: a loaded machine can pause longer than that between the
// trace's pieces), or the engine exits.
func (s *Server) settle() {
	n, quiet := s.log.Written(), time.Now()
	for deadline := time.Now().Add(time.Second); time.Now().Before(deadline); {
		select {
		case <-s.done:
			return
		case <-time.After(20 * time.Millisecond):
		}
		if m := s.log.Written(); m != n {
			n, quiet = m, time.Now()
		} else if time.Since(quiet) >= 100*time.Millisecond && diedOfWhole(s.log.String()) {
			return
		}
	}
}

// diedOfWhole reports whether the line of a dying main thread's trace
// that names what it died of is whole: `Exception in thread "main" `
// is written first, the exception and its message after.
func diedOfWhole(out string) bool {
	_, after, died := strings.Cut(out, `Exception in thread "main"`)
	return !died || strings.Contains(after, "\n")
}

// answers reports whether the engine at endpoint answers a request from
// origin as one that allows it.
func answers(c *http.Client, endpoint, origin string) bool {
	req, err := http.NewRequest(http.MethodPost, endpoint, strings.NewReader("{}"))
	if err != nil {
		return false
	}
	req.Header.Set("Origin", origin)
	req.Header.Set("Content-Type", "application/x-amz-json-1.0")
	req.Header.Set("X-Amz-Target", "DynamoDB_20120810.ListTables")
	req.Header.Set("Authorization", "AWS4-HMAC-SHA256 Credential=keyplan/20240101/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=0")
	resp, err := c.Do(req)
	if err != nil {
		return false
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16))
	resp.Body.Close()
	return resp.Header.Get("Access-Control-Allow-Origin") == origin
}

// freePort is a port free on every interface (DynamoDB Local binds them
// all) at the time of asking.
var freePort = func() (int, error) {
	l, err := net.Listen("tcp", ":0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

func randomHex() string {
	b := make([]byte, 12)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// tail is the end of the engine's output, for an error.
func (s *Server) tail() string {
	out := strings.TrimSpace(s.log.String())
	if len(out) > 2000 {
		out = "…" + out[len(out)-2000:]
	}
	if out == "" {
		return "(it printed nothing)"
	}
	return out
}

// Log is what the engine has printed (the last 64 KB).
func (s *Server) Log() string { return s.log.String() }

// Stop ends the engine and everything it started, and removes its
// working directory.
func (s *Server) Stop() {
	s.once.Do(func() {
		s.stdin.Close()
		if s.cmd.Process != nil {
			terminate(s.cmd.Process)
			select {
			case <-s.done:
			case <-time.After(StopTimeout):
				kill(s.cmd.Process)
				<-s.done
			}
		}
		os.RemoveAll(s.run)
	})
}

// logBuffer keeps the last max bytes written to it, and counts them all.
type logBuffer struct {
	mu      sync.Mutex
	b       []byte
	max     int
	written int64
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.b, l.written = append(l.b, p...), l.written+int64(len(p))
	if over := len(l.b) - l.max; over > 0 {
		l.b = append(l.b[:0], l.b[over:]...)
	}
	return len(p), nil
}

// Written is the count of bytes ever written: it grows while the output
// does, a full buffer included (its length stops at max).
func (l *logBuffer) Written() int64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.written
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return string(l.b)
}

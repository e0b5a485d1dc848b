package main

import (
	"bufio"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	localengine "github.com/keyplan/keyplan/internal/engine"
	"github.com/keyplan/keyplan/internal/engine/sdkhttp"
	"github.com/keyplan/keyplan/internal/engine/usercache"
	"github.com/keyplan/keyplan/internal/testkit/evolvetest"
)

// processes is keyplan run as separate processes, as a user runs it: the
// built binary, each command a process of its own, in an environment of
// the test's (a fresh user cache; no engine, endpoint or AWS key taken
// from the caller's), and keyplan local serving the engine they share.
type processes struct {
	t   *testing.T
	bin string
	env []string
}

// separateProcesses builds keyplan (the test skips under -short) and
// returns the environment its processes run in.
func separateProcesses(t *testing.T) *processes {
	t.Helper()
	if testing.Short() {
		t.Skip("builds keyplan")
	}
	return &processes{t: t, bin: buildKeyplan(t), env: append(os.Environ(),
		usercache.Env+"="+t.TempDir(), localengine.EnvEndpoint+"=", localengine.EnvEngine+"=",
		"AWS_ACCESS_KEY_ID=", "AWS_SECRET_ACCESS_KEY=")}
}

// run runs keyplan args and returns what it printed (stdout and stderr);
// the test fails unless it exits with want.
func (p *processes) run(want int, args ...string) string {
	p.t.Helper()
	cmd := exec.Command(p.bin, args...)
	cmd.Env = p.env
	out, err := cmd.CombinedOutput()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		p.t.Fatal(err)
	}
	if code != want {
		p.t.Fatalf("keyplan %s: exit %d, want %d\n%s", strings.Join(args, " "), code, want, out)
	}
	return string(out)
}

// local starts keyplan local with args and waits for its endpoint and
// key (it is killed when the test ends, unless stopped before).
func (p *processes) local(args ...string) *served {
	p.t.Helper()
	return serveLocal(p.t, p.bin, p.env, args...)
}

// shopModel writes the shop example into a directory of the test's and
// returns its path and content.
func shopModel(t *testing.T) (path string, src []byte) {
	t.Helper()
	src, err := os.ReadFile("../../" + evolvetest.ShopModel)
	if err != nil {
		t.Fatal(err)
	}
	path = filepath.Join(t.TempDir(), "shop.yaml")
	if err := os.WriteFile(path, src, 0o644); err != nil {
		t.Fatal(err)
	}
	return path, src
}

// served is a keyplan local running as a process of its own.
type served struct {
	cmd      *exec.Cmd
	endpoint string
	key      string
	out      chan string // the lines it prints after the first two
	stderr   *lockedBuffer
	// secret is the key's, from the key file the banner names.
	secret string
}

// lockedBuffer is a process's standard error, read while it runs.
type lockedBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// client is an SDK client of the served engine, signing with the key in
// its key file as keyplan's own commands do, that never retries (a test
// counts what was acknowledged).
func (s *served) client() *dynamodb.Client {
	return dynamodb.New(dynamodb.Options{Region: "eu-west-1", BaseEndpoint: aws.String(s.endpoint), RetryMaxAttempts: 1,
		HTTPClient: sdkhttp.Client(), Credentials: credentials.NewStaticCredentialsProvider(s.key, s.secret, "")})
}

var localLine = regexp.MustCompile(`the in-process engine at (http://127\.0\.0\.1:\d+) .*\n  access key id (\w+):.* sign with the key in (\S+) `)

// serveLocal starts keyplan local with args in env and waits for its
// endpoint and key.
func serveLocal(t *testing.T, bin string, env []string, args ...string) *served {
	t.Helper()
	return serveCommand(t, exec.Command(bin, append([]string{"local"}, args...)...), env)
}

// serveCommand starts cmd, a keyplan local, in env and waits for its
// endpoint and key.
func serveCommand(t *testing.T, cmd *exec.Cmd, env []string) *served {
	t.Helper()
	s := &served{cmd: cmd, out: make(chan string, 16), stderr: &lockedBuffer{}}
	s.cmd.Env = env
	stderr := s.stderr
	s.cmd.Stderr = stderr
	stdout, err := s.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.cmd.Process.Kill(); _ = s.cmd.Wait() })
	head := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		var first string
		for n := 0; sc.Scan(); n++ {
			switch {
			case n == 0:
				first = sc.Text() + "\n"
			case n == 1:
				head <- first + sc.Text()
			default:
				s.out <- sc.Text()
			}
		}
		close(s.out)
	}()
	select {
	case h := <-head:
		m := localLine.FindStringSubmatch(h)
		if m == nil {
			t.Fatalf("keyplan local printed %q", h)
		}
		s.endpoint, s.key = m[1], m[2]
		id, secret, err := localengine.ReadKeyFile(m[3])
		if err != nil || id != s.key {
			t.Fatalf("the key file %s: %v (key id %q)", m[3], err, id)
		}
		s.secret = secret
	case <-time.After(20 * time.Second):
		t.Fatalf("keyplan local did not start: %s", stderr.String())
	}
	return s
}

// stop interrupts it and returns its exit code and last line.
func (s *served) stop(t *testing.T, sig syscall.Signal) (int, string) {
	t.Helper()
	if err := s.cmd.Process.Signal(sig); err != nil {
		t.Fatal(err)
	}
	var last string
	for l := range s.out {
		last = l
	}
	err := s.cmd.Wait()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode(), last
	}
	if err != nil {
		t.Fatal(err)
	}
	return 0, last
}

package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/keyplan/keyplan/internal/cli"
	localengine "github.com/keyplan/keyplan/internal/engine"
	"github.com/keyplan/keyplan/internal/testkit/enginepass"
	"github.com/keyplan/keyplan/patterns/prove"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/keyplan/keyplan/internal/engine/dynalite"
)

// keyplan validate does not trust its endpoint: a reply that says
// nothing, one that never ends, and one that never comes each end the run
// with exit 2 and a reason, in bounded time and memory, never a panic.
// Each run names its endpoint (--endpoint), so it runs beside the other
// tests in process (enginepass.Parallel: on the in-process pass, whose
// $KEYPLAN_ENGINE is memory or unset, the name validate checks even with
// --endpoint); it waits on its endpoint for most of its 10-30 s.
func TestValidateDistrustsTheEndpoint(t *testing.T) {
	enginepass.Parallel(t)
	tests := []struct {
		name    string
		handler http.HandlerFunc
		args    []string
		want    string
	}{
		{"an empty reply", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/x-amz-json-1.0")
			fmt.Fprint(w, "{}")
		}, nil, "the engine"},
		{"an endless reply", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/x-amz-json-1.0")
			fmt.Fprint(w, `{"Table": {"TableName": "`)
			chunk := []byte(strings.Repeat("x", 1<<20))
			for {
				if _, err := w.Write(chunk); err != nil {
					return
				}
			}
		}, nil, "larger than"},
		{"no reply", func(w http.ResponseWriter, r *http.Request) {
			io.Copy(io.Discard, r.Body) // then the server notices the client going
			select {
			case <-r.Context().Done():
			case <-time.After(10 * time.Second):
			}
		}, []string{"--timeout", "300ms"}, "timeout|exceeded"}, // the header timeout, Client.Timeout, or the request's deadline
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(tt.handler)
			defer srv.Close()
			defer srv.CloseClientConnections()
			start := time.Now()
			args := append([]string{"validate", "--endpoint", srv.URL}, tt.args...)
			code, out, errs := keyplan(append(args, "../../examples/leaderboard.yaml")...)
			said := slices.ContainsFunc(strings.Split(tt.want, "|"), func(w string) bool { return strings.Contains(strings.ToLower(errs), strings.ToLower(w)) })
			if code != cli.Usage || !said || strings.Contains(errs, "interrupted") {
				t.Errorf("exit %d, want 2 and %q:\n%s%.2000s", code, tt.want, out, errs)
			}
			if d := time.Since(start); d > 20*time.Second {
				t.Errorf("took %v", d)
			}
		})
	}
}

// The table validate makes has a short name whatever the model's table is
// called (255 characters is valid), and is gone afterwards, also when the
// run fails.
func TestValidateNamesAndCleansUp(t *testing.T) {
	src, err := os.ReadFile("../../examples/leaderboard.yaml")
	if err != nil {
		t.Fatal(err)
	}
	long := strings.Repeat("L", 250)
	model := write(t, "long.yaml", strings.Replace(string(src), "table: Leaderboard", "table: "+long, 1))
	failing := write(t, "failing.yaml", strings.Replace(string(src), "items: [p1, p3, p4, p2]", "items: [p2, p1, p3, p4]", 1))
	c := localengine.Client(engine(t), 0)
	before := tableCount(t, c)
	for _, f := range []string{model, failing} {
		t.Setenv(dynalite.EnvEndpoint, engine(t))
		code, out, errs := keyplan(append([]string{"validate", f}, keyedHere(t)...)...)
		if f == model && code != cli.Clean {
			t.Errorf("a 250-character table name: exit %d\n%s%s", code, out, errs)
		}
		if f == failing && code != cli.Findings {
			t.Errorf("a failing expectation: exit %d\n%s%s", code, out, errs)
		}
	}
	if after := settled(t, c, before); after != before {
		t.Errorf("%d tables before, %d after: validate left tables behind", before, after)
	}
	if n := prove.ScratchTable(long, time.Now()); len(n) > 60 {
		t.Errorf("validation table name %q is %d characters", n, len(n))
	}
}

// settled is the number of tables once it is down to want, or after 5
// seconds: a table being deleted is listed for a moment.
func settled(t *testing.T, c *dynamodb.Client, want int) int {
	t.Helper()
	n := tableCount(t, c)
	for wait := time.Now().Add(5 * time.Second); n > want && time.Now().Before(wait); n = tableCount(t, c) {
		time.Sleep(50 * time.Millisecond)
	}
	return n
}

func tableCount(t *testing.T, c *dynamodb.Client) int {
	t.Helper()
	out, err := c.ListTables(context.Background(), &dynamodb.ListTablesInput{Limit: aws.Int32(100)})
	if err != nil {
		t.Fatal(err)
	}
	return len(out.TableNames)
}

// creating is a proxy to the engine at target that describes every table
// as CREATING: a table that takes long to be created, for as long as the
// proxy runs (keyplan waits for it), and whose deletion goes through.
// describes counts the DescribeTable answers it rewrote.
func creating(t *testing.T, target string) (string, *atomic.Int64) {
	t.Helper()
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	var describes atomic.Int64
	rp := httputil.NewSingleHostReverseProxy(u)
	rp.ModifyResponse = func(r *http.Response) error {
		if !strings.HasSuffix(r.Request.Header.Get("X-Amz-Target"), ".DescribeTable") {
			return nil
		}
		b, err := io.ReadAll(r.Body)
		r.Body.Close()
		if err != nil {
			return err
		}
		b = bytes.ReplaceAll(b, []byte(`"TableStatus":"ACTIVE"`), []byte(`"TableStatus":"CREATING"`))
		r.Body, r.ContentLength = io.NopCloser(bytes.NewReader(b)), int64(len(b))
		r.Header.Set("Content-Length", strconv.Itoa(len(b)))
		r.Header.Del("X-Amz-Crc32") // the body's checksum: the SDK would refuse the new body
		describes.Add(1)
		return nil
	}
	srv := httptest.NewServer(rp)
	t.Cleanup(srv.Close)
	return srv.URL, &describes
}

// SIGINT (or SIGTERM) while validate waits for the table it created: the
// table goes and the process exits, saying it was interrupted. The
// signal comes once validate has asked for the table's status (the
// table stays CREATING behind the proxy until then, however loaded the
// machine: the wait no longer races a timer).
func TestValidateCleansUpOnSignal(t *testing.T) {
	env := append(enginepass.Parallel(t), localengine.EnvEngine+"="+localengine.Memory) // validate checks the name even with --endpoint, which it uses
	if testing.Short() {
		t.Skip("builds keyplan")
	}
	bin := buildKeyplan(t)
	wd, _ := os.Getwd()
	engine, err := dynalite.Start(wd)
	if err != nil {
		t.Fatal(err)
	}
	defer engine.Stop()
	c := localengine.Client(engine.Endpoint, 0)
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		endpoint, describes := creating(t, engine.Endpoint)
		cmd := exec.Command(bin, "validate", "--endpoint", endpoint, "../../examples/leaderboard.yaml")
		cmd.Env = env
		var stderr strings.Builder
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		for describes.Load() == 0 {
			select {
			case <-done:
				t.Fatalf("%v: validate ended before waiting for its table: %s", sig, stderr.String())
			case <-time.After(20 * time.Millisecond):
			}
		}
		if tableCount(t, c) == 0 {
			t.Fatalf("%v: validate waits for a table it did not create", sig)
		}
		cmd.Process.Signal(sig)
		select {
		case <-done:
		case <-time.After(60 * time.Second):
			cmd.Process.Kill()
			t.Fatalf("%v: validate did not exit", sig)
		}
		if n := settled(t, c, 0); n != 0 {
			t.Errorf("%v: %d table(s) left behind\n%s", sig, n, stderr.String())
		}
		if !strings.Contains(stderr.String(), "interrupted") {
			t.Errorf("%v: stderr %q", sig, stderr.String())
		}
	}
}

// dynalite, a child process, dies with keyplan, even when keyplan is
// killed (the in-process engine has no process of its own to leave).
func TestEmbeddedEngineDiesWithKeyplan(t *testing.T) {
	enginepass.Independent(t)
	if testing.Short() {
		t.Skip("builds keyplan")
	}
	bin := buildKeyplan(t)
	cmd := exec.Command(bin, "validate", "--engine", "dynalite", "--timeout", "1s", "../../examples/leaderboard.yaml")
	cmd.Env = append(os.Environ(), dynalite.EnvEndpoint+"=")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var engines []int
	deadline := time.Now().Add(20 * time.Second)
	for len(engines) == 0 && time.Now().Before(deadline) {
		engines = children(cmd.Process.Pid)
		time.Sleep(20 * time.Millisecond)
	}
	if len(engines) == 0 {
		cmd.Process.Kill()
		t.Skip("validate finished before its engine could be seen")
	}
	cmd.Process.Kill()
	cmd.Wait()
	deadline = time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		if !anyAlive(engines) {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Errorf("the embedded engine %v outlived keyplan (SIGKILL)", engines)
}

// children lists the processes whose parent is pid.
func children(pid int) []int {
	var out []int
	procs, _ := os.ReadDir("/proc")
	for _, p := range procs {
		stat, err := os.ReadFile(filepath.Join("/proc", p.Name(), "stat"))
		if err != nil {
			continue
		}
		s := string(stat)
		i := strings.LastIndexByte(s, ')')
		if f := strings.Fields(s[i+1:]); i > 0 && len(f) > 1 && f[1] == fmt.Sprint(pid) {
			var child int
			fmt.Sscan(p.Name(), &child)
			out = append(out, child)
		}
	}
	return out
}

// anyAlive reports whether one of the processes still runs (a zombie
// counts as gone).
func anyAlive(pids []int) bool {
	for _, p := range pids {
		stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", p))
		if err == nil {
			s := string(stat)
			if i := strings.LastIndexByte(s, ')'); i > 0 && !strings.HasPrefix(strings.TrimSpace(s[i+1:]), "Z") {
				return true
			}
		}
	}
	return false
}

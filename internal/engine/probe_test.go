package engine

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/keyplan/keyplan/internal/engine/minidyn"
)

// probeClient is the client TestEngineDifferences probes with: the
// engine's own (Client), whose retries take a transient failure, with
// its backoff kept short (a local engine).
func probeClient(endpoint string) *dynamodb.Client {
	return dynamodb.New(Client(endpoint, 0).Options(), func(o *dynamodb.Options) {
		o.Retryer = retry.NewStandard(func(s *retry.StandardOptions) { s.MaxBackoff = 100 * time.Millisecond })
	})
}

// faulty is a proxy in front of an engine that answers a 500
// InternalFailure (what DynamoDB Local answers now and then under load)
// to the requests fail picks, by operation and the operation's count.
func faulty(t *testing.T, fail func(op string, n int) bool) string {
	t.Helper()
	srv, err := minidyn.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Stop)
	u, _ := url.Parse(srv.Endpoint)
	proxy := httputil.NewSingleHostReverseProxy(u)
	var mu sync.Mutex
	seen := map[string]int{}
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		op := r.Header.Get("X-Amz-Target")
		op = op[strings.LastIndex(op, ".")+1:]
		mu.Lock()
		seen[op]++
		n := seen[op]
		mu.Unlock()
		if fail(op, n) {
			w.Header().Set("Content-Type", "application/x-amz-json-1.0")
			w.WriteHeader(http.StatusInternalServerError)
			_, _ = w.Write([]byte(`{"__type":"com.amazonaws.dynamodb.v20120810#InternalFailure","message":"injected"}`))
			return
		}
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(front.Close)
	return front.URL
}

// The probes of TestEngineDifferences and Lacks outlast a transient
// failure of every operation they use (the engine's client retries it),
// and find what the engine does.
func TestProbesOutlastATransientFailure(t *testing.T) {
	once := func(op string, n int) bool { return n == 1 }
	got, err := probe(probeClient(faulty(t, once)))
	if err != nil {
		t.Fatal(err)
	}
	for what, by := range documented {
		if got[what] != by[Memory] {
			t.Errorf("%s: %s, the engine does %s", what, got[what], by[Memory])
		}
	}
	for _, f := range []Feature{MultiAttributeKeys, OldItemOnConditionFailure} {
		if why, err := probeFeature(context.Background(), probeClient(faulty(t, once)), f); why != "" || err != nil {
			t.Errorf("probing for %s: %q, %v", f, why, err)
		}
	}
}

// A probe that keeps failing concludes nothing: an error, neither "has"
// nor "lacks"; Lacks says the probe failed and probes again next time.
func TestAFailedProbeConcludesNothing(t *testing.T) {
	for _, op := range []string{"UpdateTable", "DescribeTable", "TransactWriteItems", "PutItem", "CreateTable"} {
		always := func(o string, n int) bool { return o == op }
		if got, err := probe(probeClient(faulty(t, always))); err == nil {
			t.Errorf("%s failing: the probe concluded %v", op, got)
		}
	}
	var broken atomic.Bool
	broken.Store(true)
	ep := faulty(t, func(op string, n int) bool { return broken.Load() && op == "CreateTable" })
	for _, f := range []Feature{MultiAttributeKeys, OldItemOnConditionFailure} {
		if why, err := probeFeature(context.Background(), probeClient(ep), f); why != "" || err == nil {
			t.Errorf("probing for %s with CreateTable failing: %q, %v", f, why, err)
		}
	}
	ctx := context.Background()
	c, err := Connect(ctx, Options{Endpoint: ep})
	if err != nil {
		t.Fatal(err)
	}
	if why := c.Lacks(ctx, MultiAttributeKeys); !strings.Contains(why, "probing the engine for") {
		t.Errorf("Lacks with CreateTable failing: %q", why)
	}
	broken.Store(false)
	if why := c.Lacks(ctx, MultiAttributeKeys); why != "" {
		t.Errorf("Lacks once CreateTable works: %q (the failed probe was kept)", why)
	}
}

package faults

import (
	"io"
	"log"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws/ratelimit"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/keyplan/keyplan/internal/engine"
)

// Faults is a loopback proxy in front of an engine that fails a share of
// requests (drawn from a seeded source, so a run repeats), alternating a
// ThrottlingException and a 500. By default a failed request never
// reaches the engine (it has no effect); with AfterForwarding one failure
// in four is a lost response instead: the engine applied the request, the
// client sees a 500.
type Faults struct {
	URL    string
	failed atomic.Int64
	lost   atomic.Int64
	srv    *httptest.Server
	mu     sync.Mutex
	rand   *rand.Rand
	share  float64
	after  bool
	delay  time.Duration
	// unshare ends the proxy's standing as its engine (engine.Share).
	unshare func()
}

// Option configures a proxy.
type Option func(*Faults)

// AfterForwarding makes one failure in four a lost response.
func AfterForwarding() Option { return func(f *Faults) { f.after = true } }

// Latency delays every request by d before it is forwarded: a network
// between client and engine, as DynamoDB has one (loopback has none).
func Latency(d time.Duration) Option { return func(f *Faults) { f.delay = d } }

// New starts the proxy failing share (0..1) of requests to the engine at
// target; Close stops it. A client of the proxy (engine.Client) signs
// with the engine's access key, as a client of the engine does.
func New(target string, share float64, seed uint64, opts ...Option) (*Faults, error) {
	u, err := url.Parse(target)
	if err != nil {
		return nil, err
	}
	f := &Faults{share: share, rand: rand.New(rand.NewPCG(seed, seed+1))}
	for _, o := range opts {
		o(f)
	}
	proxy := httputil.NewSingleHostReverseProxy(u)
	proxy.ErrorLog = log.New(io.Discard, "", 0) // a client giving up is expected here
	f.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if f.delay > 0 {
			time.Sleep(f.delay)
		}
		f.mu.Lock()
		fail := f.rand.Float64() < f.share
		f.mu.Unlock()
		if fail {
			n := f.failed.Add(1)
			if f.after && n%4 == 1 {
				// Forwarded and applied; the response is lost.
				proxy.ServeHTTP(httptest.NewRecorder(), r)
				f.lost.Add(1)
			}
			w.Header().Set("Content-Type", "application/x-amz-json-1.0")
			if n%2 == 0 {
				w.WriteHeader(http.StatusBadRequest)
				io.WriteString(w, `{"__type":"com.amazonaws.dynamodb.v20120810#ThrottlingException","message":"Rate of requests exceeds the allowed throughput."}`)
			} else {
				w.WriteHeader(http.StatusInternalServerError)
				io.WriteString(w, `{"__type":"com.amazonaws.dynamodb.v20120810#InternalServerError","message":"Internal server error"}`)
			}
			return
		}
		proxy.ServeHTTP(w, r)
	}))
	f.URL = f.srv.URL
	// Clients of the proxy sign with the engine's key, and take the
	// engine's transaction probe rather than one the proxy could fail.
	f.unshare = engine.Share(f.URL, target)
	return f, nil
}

// FastRetries configures a client for tests behind the proxy: ten
// attempts per request, a millisecond apart, no retry quota (as
// migrate.PatientRetries, without its real-world pauses).
func FastRetries(o *dynamodb.Options) {
	o.Retryer = retry.NewStandard(func(s *retry.StandardOptions) {
		s.MaxAttempts = 10
		s.RateLimiter = ratelimit.None
		s.Backoff = retry.BackoffDelayerFunc(func(int, error) (time.Duration, error) { return time.Millisecond, nil })
	})
}

// Failed counts the requests it failed.
func (f *Faults) Failed() int64 { return f.failed.Load() }

// Lost counts the failed requests the engine applied.
func (f *Faults) Lost() int64 { return f.lost.Load() }

// Close stops the proxy.
func (f *Faults) Close() {
	f.srv.Close()
	f.unshare()
}

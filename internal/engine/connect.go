package engine

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"

	"github.com/keyplan/keyplan/internal/engine/dynalite"
	"github.com/keyplan/keyplan/internal/engine/sdkhttp"
)

// An engine keyplan talks to is not trusted: every request has a time
// limit and every response a size limit, so an endpoint that hangs or
// streams without end costs a bounded time and memory.
const (
	// DefaultRequestTimeout bounds one request, the response body read
	// included.
	DefaultRequestTimeout = 30 * time.Second
	// MaxResponseBytes bounds one response: DynamoDB's largest (a
	// BatchGetItem) is 16 MB.
	MaxResponseBytes = 32 << 20
)

// Client is a DynamoDB client for an endpoint: the access key the engine
// accepts (AccessKeyID: the run's key of an engine this process started,
// a keyplan local's, the environment's, or a placeholder), the region
// from the environment (default us-east-1); each request bounded by
// timeout (DefaultRequestTimeout when 0) and MaxResponseBytes.
func Client(endpoint string, timeout time.Duration) *dynamodb.Client {
	return dynamodb.New(dynamodb.Options{Region: region(), BaseEndpoint: aws.String(endpoint),
		Credentials: credentialsFor(endpoint), HTTPClient: httpClient(timeout)})
}

// Remote is a client for long work on a table (a backfill): Client(endpoint)
// with opts, or with no endpoint AWS's DynamoDB, with the SDK's default
// credential chain and region (an error when there is no region).
func Remote(ctx context.Context, endpoint string, opts ...func(*dynamodb.Options)) (*dynamodb.Client, error) {
	if endpoint != "" {
		return dynamodb.New(Client(endpoint, 0).Options(), opts...), nil
	}
	cfg, err := config.LoadDefaultConfig(ctx)
	if err != nil {
		return nil, fmt.Errorf("AWS configuration: %w", err)
	}
	if cfg.Region == "" {
		return nil, errors.New("no AWS region: set AWS_REGION, or --endpoint for a local engine")
	}
	return dynamodb.NewFromConfig(cfg, opts...), nil
}

// Streams is Client for the engine's Streams API (the in-process engine
// and DynamoDB Local serve it on the same endpoint).
func Streams(endpoint string, timeout time.Duration) *dynamodbstreams.Client {
	return dynamodbstreams.New(dynamodbstreams.Options{Region: region(), BaseEndpoint: aws.String(endpoint),
		Credentials: credentialsFor(endpoint), HTTPClient: httpClient(timeout)})
}

// region is $AWS_REGION, else us-east-1.
func region() string {
	if r := os.Getenv("AWS_REGION"); r != "" {
		return r
	}
	return "us-east-1"
}

// httpClient bounds each request by timeout (DefaultRequestTimeout when
// 0) and each response by MaxResponseBytes, and reads an answer that
// comes before the transport is done with its request (sdkhttp.Wrap).
func httpClient(timeout time.Duration) *http.Client {
	return httpClientOver(http.DefaultTransport.(*http.Transport).Clone(), timeout)
}

// httpClientOver is httpClient over transport (tests give it a fault's).
func httpClientOver(transport *http.Transport, timeout time.Duration) *http.Client {
	if timeout <= 0 {
		timeout = DefaultRequestTimeout
	}
	transport.ResponseHeaderTimeout = timeout
	return &http.Client{Timeout: timeout, Transport: capped{sdkhttp.Wrap(transport)}}
}

// capped limits the bodies of the responses it returns.
type capped struct{ http.RoundTripper }

func (c capped) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := c.RoundTripper.RoundTrip(r)
	if err == nil {
		if resp.ContentLength > MaxResponseBytes {
			resp.Body.Close()
			return nil, fmt.Errorf("the engine's response is %d bytes; keyplan reads at most %d", resp.ContentLength, MaxResponseBytes)
		}
		resp.Body = &cappedBody{ReadCloser: resp.Body, left: MaxResponseBytes}
	}
	return resp, err
}

type cappedBody struct {
	io.ReadCloser
	left int64
}

func (b *cappedBody) Read(p []byte) (int, error) {
	if b.left <= 0 {
		return 0, fmt.Errorf("the engine's response is larger than %d bytes", MaxResponseBytes)
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.ReadCloser.Read(p)
	b.left -= int64(n)
	return n, err
}

// Options say what Connect connects to.
type Options struct {
	// Endpoint is an engine already running (a URL); "": start Name.
	Endpoint string
	// Name is the engine to start when there is no Endpoint. Default:
	// Default() ($KEYPLAN_ENGINE, else memory).
	Name string
	// Dir is the directory whose Go module may hold the project's own
	// dynalite (Start). Default: the working directory.
	Dir string
	// Timeout bounds each request (Client). Default: DefaultRequestTimeout.
	Timeout time.Duration
	// Notify, when set, is told what starting the engine installs first,
	// before the wait (Installing).
	Notify func(string)
}

// StartError is Connect's error when the engine it was to start did not
// start; its text ends with how to get the engine (Hint), if that helps.
type StartError struct {
	Name string
	Err  error
}

func (e *StartError) Error() string {
	msg := fmt.Sprintf("the local engine (%s) did not start: %v", e.Name, e.Err)
	if hint := Hint(e.Err); hint != "" {
		msg += "\n  " + hint
	}
	return msg
}

func (e *StartError) Unwrap() error { return e.Err }

// Conn is a connection to a DynamoDB engine: one Connect started, or an
// endpoint's.
type Conn struct {
	// Name is the engine started (memory, dynalite, dynamodb-local), or
	// "endpoint".
	Name     string
	Endpoint string
	// Raw is the SDK client (Client: bounded requests and responses).
	Raw *dynamodb.Client
	// DB is the client to hand keyplan's runtime (a dynamo.Client): Raw,
	// with TransactWriteItems emulated when the engine lacks it
	// (dynalite; DB.Emulated says so).
	DB *dynalite.Transactions
	// AccessKeyID is the key id Raw signs with (AccessKeyID): the run's
	// own when Connect started the in-process engine. Another process
	// using the engine needs it (Environ).
	AccessKeyID string
	srv         *Running
	// probed holds what Lacks found on an endpoint, by feature.
	probeMu sync.Mutex
	probed  map[Feature]string
}

// Notes is what a run on the engine should say of it (lines; "" when
// nothing): that it emulates TransactWriteItems.
func (c *Conn) Notes() string {
	if c.DB.Emulated() {
		return "note: the engine has no TransactWriteItems; keyplan emulates it with conditional writes (all-or-nothing, not isolated)\n"
	}
	return ""
}

// Environ is what another process needs in its environment to use the
// engine: its endpoint ($KEYPLAN_DYNAMODB_ENDPOINT) and, when the engine
// checks one, its access key ($AWS_ACCESS_KEY_ID, $AWS_SECRET_ACCESS_KEY:
// the environment, never argv).
func (c *Conn) Environ() []string {
	env := []string{EnvEndpoint + "=" + c.Endpoint}
	if k, ok := lookup(c.Endpoint); ok && k.key != "" {
		env = append(env, "AWS_ACCESS_KEY_ID="+k.key, "AWS_SECRET_ACCESS_KEY="+orPlaceholder(k.secret))
	}
	return env
}

// TTL is the engine's TTL process, for tests that expire items: the
// in-process engine's clock (which its sweeper and its stream records
// read) and a sweep at once. Only an engine Connect started in process
// has one (dynalite and DynamoDB Local never expire items).
type TTL interface {
	// SetClock sets the clock (time.Now by default); the sweeper, every
	// second, deletes what has expired on it.
	SetClock(now func() time.Time)
	// ExpireTTL deletes what has expired at once, and says how many.
	ExpireTTL() int
}

// TTL returns the engine's TTL process, if it has one a test can drive.
func (c *Conn) TTL() (TTL, bool) {
	if c.srv == nil {
		return nil, false
	}
	t, ok := c.srv.Server.(TTL)
	return t, ok
}

// Connect starts the engine (or takes the endpoint; a *StartError when it
// does not start), makes its client, and probes it for transactions: what keyplan validate, dynamotest and
// the engine tests each need before the first request. Stop stops an
// engine it started.
func Connect(ctx context.Context, o Options) (*Conn, error) {
	c := &Conn{Name: "endpoint", Endpoint: o.Endpoint}
	if c.Endpoint == "" {
		if o.Name == "" {
			o.Name = Default()
		}
		if o.Dir == "" {
			o.Dir, _ = os.Getwd()
		}
		if o.Notify != nil && NeedsInstall(o.Name, o.Dir) {
			o.Notify(Installing(o.Name))
		}
		srv, err := Start(o.Name, o.Dir)
		if err != nil {
			return nil, &StartError{Name: o.Name, Err: err}
		}
		c.srv, c.Name, c.Endpoint = srv, srv.Name, srv.Endpoint
	}
	c.Raw = Client(c.Endpoint, o.Timeout)
	c.DB = Transactions(ctx, c.Endpoint, c.Raw)
	c.DB.LacksOldItem = func(ctx context.Context) bool { return c.Lacks(ctx, OldItemOnConditionFailure) != "" }
	c.AccessKeyID = AccessKeyID(c.Endpoint)
	return c, nil
}

// Stop stops the engine Connect started (an endpoint's is left running).
func (c *Conn) Stop() {
	if c.srv != nil {
		c.srv.Stop()
	}
}

// Log is what a started engine reported on the side (why it died, when
// it did); "" for an endpoint's.
func (c *Conn) Log() string {
	if c.srv == nil {
		return ""
	}
	return c.srv.Log()
}

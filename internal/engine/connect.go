package engine

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/keyplan/keyplan/internal/dynalite"
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

// Client is a DynamoDB client for an endpoint: credentials and region
// from the environment when set (for DynamoDB itself), placeholders
// otherwise (local engines accept any); each request bounded by timeout
// (DefaultRequestTimeout when 0) and MaxResponseBytes.
func Client(endpoint string, timeout time.Duration) *dynamodb.Client {
	region := os.Getenv("AWS_REGION")
	if region == "" {
		region = "us-east-1"
	}
	id, secret := os.Getenv("AWS_ACCESS_KEY_ID"), os.Getenv("AWS_SECRET_ACCESS_KEY")
	if id == "" {
		id, secret = "keyplan", "keyplan"
	}
	if timeout <= 0 {
		timeout = DefaultRequestTimeout
	}
	transport := http.DefaultTransport.(*http.Transport).Clone()
	transport.ResponseHeaderTimeout = timeout
	return dynamodb.New(dynamodb.Options{
		Region:       region,
		BaseEndpoint: aws.String(endpoint),
		Credentials:  credentials.NewStaticCredentialsProvider(id, secret, os.Getenv("AWS_SESSION_TOKEN")),
		HTTPClient:   &http.Client{Timeout: timeout, Transport: capped{transport}},
	})
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
}

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
	DB  *dynalite.Transactions
	srv *Running
	// probed holds what Lacks found on an endpoint, by feature.
	probeMu sync.Mutex
	probed  map[Feature]string
}

// Connect starts the engine (or takes the endpoint), makes its client,
// and probes it for transactions: what keyplan validate, dynamotest and
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
		srv, err := Start(o.Name, o.Dir)
		if err != nil {
			return nil, err
		}
		c.srv, c.Name, c.Endpoint = srv, srv.Name, srv.Endpoint
	}
	c.Raw = Client(c.Endpoint, o.Timeout)
	c.DB = dynalite.Probe(ctx, c.Raw)
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

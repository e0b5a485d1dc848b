package main

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
)

// An engine keyplan talks to is not trusted: every request has a time
// limit and every response a size limit, so an endpoint that hangs or
// streams without end costs a bounded time and memory.
const (
	// defaultRequestTimeout bounds one request, the response body read
	// included (--timeout).
	defaultRequestTimeout = 30 * time.Second
	// maxResponseBytes bounds one response: DynamoDB's largest (a
	// BatchGetItem) is 16 MB.
	maxResponseBytes = 32 << 20
)

// newClient is a DynamoDB client for an endpoint: credentials from the
// environment when set (for real DynamoDB), placeholders otherwise (local
// engines accept any); each request bounded by timeout and
// maxResponseBytes.
func newClient(endpoint string, timeout time.Duration) *dynamodb.Client {
	region := os.Getenv("AWS_REGION")
	if region == "" {
		region = "us-east-1"
	}
	id, secret := os.Getenv("AWS_ACCESS_KEY_ID"), os.Getenv("AWS_SECRET_ACCESS_KEY")
	if id == "" {
		id, secret = "keyplan", "keyplan"
	}
	if timeout <= 0 {
		timeout = defaultRequestTimeout
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
		if resp.ContentLength > maxResponseBytes {
			resp.Body.Close()
			return nil, fmt.Errorf("the engine's response is %d bytes; keyplan reads at most %d", resp.ContentLength, maxResponseBytes)
		}
		resp.Body = &cappedBody{ReadCloser: resp.Body, left: maxResponseBytes}
	}
	return resp, err
}

type cappedBody struct {
	io.ReadCloser
	left int64
}

func (b *cappedBody) Read(p []byte) (int, error) {
	if b.left <= 0 {
		return 0, fmt.Errorf("the engine's response is larger than %d bytes", maxResponseBytes)
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.ReadCloser.Read(p)
	b.left -= int64(n)
	return n, err
}

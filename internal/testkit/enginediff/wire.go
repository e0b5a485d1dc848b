package enginediff

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
)

// Client sends DynamoDB requests to one engine as they go on the wire
// (JSON over HTTP, DynamoDB_20120810 targets), so what is compared is
// what the engine answers, not what an SDK makes of it: a key left out
// of a response, a number's spelling, a set's type.
type Client struct {
	// Endpoint is the engine's URL, e.g. http://127.0.0.1:8000.
	Endpoint string
	// AccessKeyID and SecretAccessKey are the key requests are signed
	// with (SigV4; "": "keyplan", a placeholder); the in-process engine
	// keyplan starts accepts its run's key alone, and checks the
	// signature (engine.Running.AccessKeyID, SecretAccessKey).
	AccessKeyID, SecretAccessKey string
	// HTTP is the client requests go through; nil means one with
	// keep-alive and a RequestTimeout.
	HTTP *http.Client
}

// RequestTimeout bounds one request: an engine that hangs is an answer
// too (a transport error), not a stalled test.
const RequestTimeout = 30 * time.Second

var defaultHTTP = &http.Client{Timeout: RequestTimeout, Transport: &http.Transport{Proxy: nil, MaxIdleConnsPerHost: 4}}

// Response is one answer: its HTTP status and body, or the transport
// error that took its place (a dropped connection: an engine that
// panicked).
type Response struct {
	Status int
	Body   map[string]any
	// Transport is set when no HTTP answer came.
	Transport string
}

// ErrorType is the name of the error the response carries (the part of
// __type after '#', e.g. ConditionalCheckFailedException), "" for a
// success, "transport" for no answer and "http <status>" for an error
// without a type.
func (r Response) ErrorType() string {
	if r.Transport != "" {
		return "transport"
	}
	if r.Status == http.StatusOK {
		return ""
	}
	t, _ := r.Body["__type"].(string)
	if t == "" {
		return fmt.Sprintf("http %d", r.Status)
	}
	return t[strings.LastIndexByte(t, '#')+1:]
}

// Message is the error's message ("" for a success): DynamoDB spells
// its key message or Message.
func (r Response) Message() string {
	if r.Transport != "" {
		return r.Transport
	}
	if r.Status == http.StatusOK {
		return ""
	}
	for _, k := range []string{"message", "Message"} {
		if s, ok := r.Body[k].(string); ok {
			return s
		}
	}
	return ""
}

// Do sends one request (op is the operation, e.g. PutItem; req its JSON
// body) and returns the answer. Numbers in the answer are json.Number.
func (c *Client) Do(ctx context.Context, op string, req []byte) Response {
	hc := c.HTTP
	if hc == nil {
		hc = defaultHTTP
	}
	hr, err := http.NewRequestWithContext(ctx, http.MethodPost, c.Endpoint, bytes.NewReader(req))
	if err != nil {
		return Response{Transport: err.Error()}
	}
	hr.Header.Set("Content-Type", "application/x-amz-json-1.0")
	hr.Header.Set("X-Amz-Target", "DynamoDB_20120810."+op)
	// Signed as the SDK signs (the in-process engine checks the
	// signature; the others a signature's shape).
	key, secret := c.AccessKeyID, c.SecretAccessKey
	if key == "" {
		key, secret = "keyplan", "keyplan"
	}
	sum := sha256.Sum256(req)
	if err := v4.NewSigner().SignHTTP(ctx, aws.Credentials{AccessKeyID: key, SecretAccessKey: secret}, hr, hex.EncodeToString(sum[:]),
		"dynamodb", "us-east-1", time.Now()); err != nil {
		return Response{Transport: err.Error()}
	}
	resp, err := hc.Do(hr)
	if err != nil {
		return Response{Transport: err.Error()}
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return Response{Transport: err.Error()}
	}
	out := Response{Status: resp.StatusCode, Body: map[string]any{}}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&out.Body); err != nil {
		out.Body = map[string]any{"__unparsed": string(raw)}
	}
	return out
}

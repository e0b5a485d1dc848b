package server

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// readCounter counts the bytes read from a request body.
type readCounter struct {
	r *strings.Reader
	n int
}

func (c *readCounter) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += n

	return n, err
}

// A request past MaxInFlight waits, its body unread; a request whose
// client gives up while it waits is dropped without being read.
func TestRequestsBeyondMaxInFlightWaitUnread(t *testing.T) {
	s := NewServerWith(Options{MaxInFlight: 2})

	for range 2 {
		s.slots <- struct{}{} // two requests in flight
	}

	body := &readCounter{r: strings.NewReader(`{}`)}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()

	req := httptest.NewRequest(http.MethodPost, "/", body).WithContext(ctx)
	req.Header.Set("X-Amz-Target", "DynamoDB_20120810.ListTables")
	rec := httptest.NewRecorder()
	s.ServeHTTP(rec, req)

	if body.n != 0 || rec.Body.Len() != 0 {
		t.Fatalf("a waiting request was read (%d bytes) or answered (%q)", body.n, rec.Body.String())
	}

	<-s.slots // one finishes

	body = &readCounter{r: strings.NewReader(`{}`)}
	req = httptest.NewRequest(http.MethodPost, "/", body)
	req.Header.Set("X-Amz-Target", "DynamoDB_20120810.ListTables")
	rec = httptest.NewRecorder()
	s.ServeHTTP(rec, req)

	if rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), "TableNames") {
		t.Fatalf("with a slot free: %d %q", rec.Code, rec.Body.String())
	}

	if len(s.slots) != 1 {
		t.Fatalf("%d slots taken after the request, want 1", len(s.slots))
	}
}

func TestAccessKeyOfAnAuthorizationHeader(t *testing.T) {
	for h, want := range map[string]string{
		"AWS4-HMAC-SHA256 Credential=AKID1/20260101/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=abc": "AKID1",
		"AWS4-HMAC-SHA256 Credential=/20260101/us-east-1/dynamodb/aws4_request":                                         "",
		"Bearer xyz": "",
		"":           "",
	} {
		if got := accessKeyOf(h); got != want {
			t.Errorf("%q: %q, want %q", h, got, want)
		}
	}
}

func TestCountValuesSkipsStrings(t *testing.T) {
	if n := countValues([]byte(`{"a":{"S":"{[{["},"b":{"L":[{"N":"1"}]}}`), 100); n != 5 {
		t.Fatalf("counted %d values, want 5", n)
	}

	if n := countValues([]byte(`{"a":"\"{"}`), 100); n != 1 {
		t.Fatalf("an escaped quote: counted %d, want 1", n)
	}
}

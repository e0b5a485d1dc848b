package engine

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/keyplan/keyplan/internal/engine/minidyn/server"
	"github.com/keyplan/keyplan/internal/engine/usercache"
)

// authorization is a SigV4 Authorization header naming key (the engine
// reads the key id; the signature is DynamoDB's business).
func authorization(key string) string {
	return "AWS4-HMAC-SHA256 Credential=" + key + "/20260101/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=00"
}

// stalled sends a request's headers and the first byte of its body, and
// no more: a client that holds the request open.
func stalled(t *testing.T, endpoint, key string) net.Conn {
	t.Helper()
	host := strings.TrimPrefix(endpoint, "http://")
	c, err := net.Dial("tcp", host)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	fmt.Fprintf(c, "POST / HTTP/1.1\r\nHost: %s\r\nX-Amz-Target: DynamoDB_20120810.ListTables\r\nContent-Type: application/x-amz-json-1.0\r\nAuthorization: %s\r\nContent-Length: 100\r\n\r\n{", host, authorization(key))
	return c
}

// post sends body as one request signed with key (with its secret, when
// it is the engine's) and returns the answer's status and body.
func post(t *testing.T, endpoint, key, target string, body io.Reader) (int, string) {
	t.Helper()
	raw, err := io.ReadAll(body)
	if err != nil {
		t.Fatal(err)
	}
	req, err := http.NewRequest(http.MethodPost, endpoint, bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("X-Amz-Target", "DynamoDB_20120810."+target)
	req.Header.Set("Content-Type", "application/x-amz-json-1.0")
	secret := "not the engine's"
	if id, s := keyFor(endpoint); id == key {
		secret = s
	}
	sum := sha256.Sum256(raw)
	if err := v4.NewSigner().SignHTTP(context.Background(), aws.Credentials{AccessKeyID: key, SecretAccessKey: secret}, req,
		hex.EncodeToString(sum[:]), "dynamodb", "us-east-1", time.Now()); err != nil {
		t.Fatal(err)
	}
	resp, err := (&http.Client{Timeout: 30 * time.Second}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// The in-process engines keyplan serves (validate's, Start; keyplan
// local's, ServeLocal) bound what their clients can make them hold
// (issue 28.6): a request past server.DefaultMaxRequestBytes or with more
// than server.DefaultMaxRequestValues values is refused, saying so; at
// most server.DefaultMaxInFlight requests are worked on at once, the next
// waiting until one ends; a request signed with another key is refused at
// once, even while the run's own requests fill every slot, so another
// local user can neither use the engine nor hold it up. And they listen
// on loopback alone: the machine's other addresses do not answer.
func TestServedEnginesAreBounded(t *testing.T) {
	t.Setenv(usercache.Env, t.TempDir())
	ctx := context.Background()
	c, err := Connect(ctx, Options{Name: Memory})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Stop()
	l, err := ServeLocal(LocalOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	for _, e := range []struct{ name, endpoint, key string }{{"validate's", c.Endpoint, c.AccessKeyID}, {"keyplan local's", l.Endpoint, l.AccessKeyID}} {
		t.Run(e.name, func(t *testing.T) {
			// Too large, too many values: refused before anything runs.
			big := io.MultiReader(strings.NewReader(`{"TableName":"t","Item":{"p":{"S":"`), bytes.NewReader(bytes.Repeat([]byte("a"), server.DefaultMaxRequestBytes)), strings.NewReader(`"}}}`))
			if code, body := post(t, e.endpoint, e.key, "PutItem", big); code != http.StatusRequestEntityTooLarge || !strings.Contains(body, "too large") {
				t.Errorf("a request of %d bytes: %d %s", server.DefaultMaxRequestBytes+40, code, body)
			}
			wide := `{"TableName":"t","Item":{"p":{"S":"a"},"l":{"L":[` + strings.Repeat(`{"NULL":true},`, server.DefaultMaxRequestValues) + `{"NULL":true}]}}}`
			if code, body := post(t, e.endpoint, e.key, "PutItem", strings.NewReader(wide)); code != http.StatusBadRequest || !strings.Contains(body, fmt.Sprintf("more than %d attribute values", server.DefaultMaxRequestValues)) {
				t.Errorf("a request of %d values: %d %s", server.DefaultMaxRequestValues+4, code, body)
			}

			// The run's own clients hold every slot: the next request
			// waits. Polled (the held requests take their slots once the
			// engine reads their headers), and a wait counts when two
			// requests in a row wait 750 ms: one slow answer of a loaded
			// machine is not a queue.
			var held []net.Conn
			for range server.DefaultMaxInFlight {
				held = append(held, stalled(t, e.endpoint, e.key))
			}
			own := withKey(e.endpoint, e.key)
			waits := func() bool {
				wait, cancel := context.WithTimeout(ctx, 750*time.Millisecond)
				defer cancel()
				_, err := own.ListTables(wait, &dynamodb.ListTablesInput{})
				return errors.Is(err, context.DeadlineExceeded)
			}
			full := false
			for deadline := time.Now().Add(10 * time.Second); !full && time.Now().Before(deadline); {
				first := waits()
				if full = first && waits(); !full {
					time.Sleep(50 * time.Millisecond)
				}
			}
			if !full {
				t.Fatalf("%d requests held open, and another is still answered: the requests worked on at once are not bounded", server.DefaultMaxInFlight)
			}
			// Another key is refused at once all the same: it never
			// queues for a slot.
			for range 2 * server.DefaultMaxInFlight {
				wait, cancel := context.WithTimeout(ctx, 10*time.Second)
				_, err := withKey(e.endpoint, NewAccessKeyID()).ListTables(wait, &dynamodb.ListTablesInput{})
				cancel()
				if !refused(err) {
					t.Errorf("another key while the slots are full: %v, want UnrecognizedClientException at once", err)
				}
			}
			// One held request goes away: the next one is worked on.
			held[0].Close()
			wait, cancel := context.WithTimeout(ctx, 10*time.Second)
			defer cancel()
			if _, err := withKey(e.endpoint, e.key).ListTables(wait, &dynamodb.ListTablesInput{}); err != nil {
				t.Errorf("with a slot free again: %v", err)
			}
			for _, h := range held[1:] {
				h.Close()
			}

			// Loopback alone: the machine's other addresses refuse it.
			_, port, _ := net.SplitHostPort(strings.TrimPrefix(e.endpoint, "http://"))
			for _, ip := range otherAddresses(t) {
				if conn, err := net.DialTimeout("tcp", net.JoinHostPort(ip, port), 2*time.Second); err == nil {
					conn.Close()
					t.Errorf("the engine answers on %s:%s", ip, port)
				}
			}
		})
	}
}

// otherAddresses are this machine's addresses that are not loopback ones
// (none: the check has nothing to dial, said in the log).
func otherAddresses(t *testing.T) []string {
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok && !n.IP.IsLoopback() && !n.IP.IsLinkLocalUnicast() {
			out = append(out, n.IP.String())
		}
	}
	if len(out) == 0 {
		t.Log("no address but loopback: nothing else to dial")
	}
	return out
}

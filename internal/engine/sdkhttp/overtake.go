package sdkhttp

import (
	"bytes"
	"context"
	"net"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// Overtaking is a transport (a copy of http.DefaultTransport keeping up
// to 100 idle connections a host) whose
// connections order every request and its answer as a loaded machine
// may, for tests: once a request's body is sent, the transport's writer
// is held until the answer has begun to come and the client has had
// OvertakeLag to take its headers (the SDK then closes the request's
// body); the rest of the answer is read only once the writer is done,
// and OvertakeLag later (so whatever the writer did to the connection is
// done). A client whose transport mistakes that order for a failure (the
// SDK's own, unwrapped) loses every answer longer than 4 KB.
type Overtaking struct {
	*http.Transport
	dials, closed atomic.Int64
}

// OvertakeLag is how long each side of an Overtaking connection waits for
// the other's next step; a request costs about twice that.
const OvertakeLag = 20 * time.Millisecond

// overtakeWait bounds each wait for the other side (an answer that never
// comes, a request that is never sent).
const overtakeWait = 5 * time.Second

// NewOvertaking is a new Overtaking transport.
func NewOvertaking() *Overtaking {
	o := &Overtaking{Transport: http.DefaultTransport.(*http.Transport).Clone()}
	// Idle connections are kept (not 2 a host), so a connection closed
	// is one the client gave up on.
	o.MaxIdleConnsPerHost = 100
	dialer := &net.Dialer{}
	o.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		conn, err := dialer.DialContext(ctx, network, addr)
		if err != nil {
			return nil, err
		}

		o.dials.Add(1)

		return &overtaken{Conn: conn, closed: &o.closed}, nil
	}

	return o
}

// Dials counts the connections it has opened.
func (o *Overtaking) Dials() int64 { return o.dials.Load() }

// Closed counts the connections the client has closed (a client that
// keeps its connections alive closes none until it is done).
func (o *Overtaking) Closed() int64 { return o.closed.Load() }

// overtaken is one of Overtaking's connections.
type overtaken struct {
	net.Conn
	mu     sync.Mutex
	r      *round // the request being sent or answered; nil before the first
	closed *atomic.Int64
	once   sync.Once
}

func (c *overtaken) Close() error {
	c.once.Do(func() { c.closed.Add(1) })

	return c.Conn.Close()
}

// round is one request and its answer on a connection.
type round struct {
	left     int64         // body bytes not yet written
	reads    int           // reads that returned bytes
	held     bool          // the reader has waited for the writer
	answered chan struct{} // closed by the first read that returns bytes
	written  chan struct{} // closed once the writer has been held
}

// bodyLength is the Content-Length of the request whose headers p begins
// with, less the body bytes p holds past them; ok is false when p holds
// no whole request head.
func bodyLength(p []byte) (left int64, ok bool) {
	head, body, found := bytes.Cut(p, []byte("\r\n\r\n"))
	if !found {
		return 0, false
	}

	for _, line := range bytes.Split(head, []byte("\r\n")) {
		name, value, _ := bytes.Cut(line, []byte(":"))
		if bytes.EqualFold(bytes.TrimSpace(name), []byte("Content-Length")) {
			n, err := strconv.ParseInt(string(bytes.TrimSpace(value)), 10, 64)
			if err != nil {
				return 0, false
			}

			return n - int64(len(body)), true
		}
	}

	return -int64(len(body)), true
}

func (c *overtaken) Write(p []byte) (int, error) {
	c.mu.Lock()
	r := c.r

	if r == nil || r.left <= 0 { // not sending a body: p begins a request
		if left, ok := bodyLength(p); ok && left > 0 {
			r = &round{left: left + int64(len(p)), answered: make(chan struct{}), written: make(chan struct{})}
			c.r = r
		} else {
			r = nil
		}
	}
	c.mu.Unlock()

	n, err := c.Conn.Write(p)
	if r == nil {
		return n, err
	}

	c.mu.Lock()
	r.left -= int64(n)
	done := r.left <= 0
	c.mu.Unlock()

	if done {
		wait(r.answered)
		time.Sleep(OvertakeLag)
		close(r.written)
	}

	return n, err
}

func (c *overtaken) Read(p []byte) (int, error) {
	c.mu.Lock()
	r := c.r
	hold := r != nil && r.reads > 0 && !r.held

	if hold {
		r.held = true
	}
	c.mu.Unlock()

	if hold {
		wait(r.written)
		time.Sleep(OvertakeLag)
	}

	// A read begun before its request was sent (the transport always
	// has one waiting) counts for the request it returns the answer of.
	n, err := c.Conn.Read(p)
	if n > 0 {
		c.mu.Lock()
		if r := c.r; r != nil {
			if r.reads++; r.reads == 1 {
				close(r.answered)
			}
		}
		c.mu.Unlock()
	}

	return n, err
}

// wait waits until ch is closed, at most overtakeWait.
func wait(ch chan struct{}) {
	select {
	case <-ch:
	case <-time.After(overtakeWait):
	}
}

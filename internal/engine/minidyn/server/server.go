package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"sync"
	"time"
)

// Server implements http.Handler for the DynamoDB JSON API.
type Server struct {
	client *Client
	opts   Options
	// slots holds a token per request being worked on (MaxInFlight).
	slots chan struct{}
	// gate lets reads and item writes run together (read-locked) and
	// every other operation alone (locked), so a table's record is
	// journaled in the same order as the writes to its items, and no
	// rollback runs while a request has not yet read what it waits on
	// (persist.go).
	gate sync.RWMutex
	// durable is the committer of the store the tables are kept in (nil:
	// memory only; Persist).
	durable *durability
	// signedAt is the clock signatures are dated against (nil: the wall
	// clock; tests set it).
	signedAt func() time.Time
}

// journalTables journals the tables whose records changed (persist.go),
// when there is a store.
func (s *Server) journalTables() error {
	if s.client.journal == nil {
		return nil
	}

	return s.client.journalTables()
}

// lockFor takes the gate as op needs it (persist.go) and returns what
// releases it: after journaling the records of the tables a table
// operation changed (its error becomes the request's), it reads the
// journal's sequence number the request is answered after, before any
// failed commit's rollback can run.
func (s *Server) lockFor(op string) func(*error) (target uint64) {
	j := s.client.journal

	switch {
	case j == nil:
		return func(*error) uint64 { return 0 }
	case readOp(op) || itemOps[op]:
		s.gate.RLock()

		return func(*error) uint64 {
			defer s.gate.RUnlock()

			return j.seq.Load()
		}
	}

	s.gate.Lock()

	return func(err *error) uint64 {
		defer s.gate.Unlock()

		if jerr := s.journalTables(); *err == nil && jerr != nil {
			*err = &apiError{Code: "InternalServerError", Message: jerr.Error()}
		}

		return j.seq.Load()
	}
}

// NewServer creates an HTTP handler serving a fresh, empty engine with
// the default bounds and no access key.
func NewServer() *Server { return NewServerWith(Options{}) }

// NewServerWith creates an HTTP handler serving a fresh, empty engine.
func NewServerWith(o Options) *Server {
	o = o.withDefaults()

	return &Server{client: NewClient(), opts: o, slots: make(chan struct{}, o.MaxInFlight)}
}

// decodeAndRun decodes a request body into a new In and runs op on it.
func decodeAndRun[In any, Out any](raw []byte, op func(context.Context, *In) (Out, error)) (any, error) {
	var in In

	if err := checkObject(raw); err != nil {
		return nil, err
	}

	dec := json.NewDecoder(bytes.NewReader(raw))
	if err := dec.Decode(&in); err != nil {
		return nil, jsonError(err)
	}

	if off := dec.InputOffset(); len(bytes.TrimLeft(raw[off:], " \t\r\n")) > 0 {
		return nil, serializationError("Unexpected data after the JSON object at %d", off)
	}

	return op(context.Background(), &in)
}

// ServeHTTP dispatches DynamoDB JSON API requests by X-Amz-Target.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		// A health check (GET /) is answered as DynamoDB answers it.
		w.Header().Set("Content-Type", "text/plain")
		_, _ = w.Write([]byte("healthy: dynamodb.local"))

		return
	}

	defer func() { _ = r.Body.Close() }()

	if err := checkRequestSize(r); err != nil {
		refuse(w, r, err)
		return
	}

	if err := s.checkSignatureDate(r); err != nil {
		refuse(w, r, err)
		return
	}

	readOnly, err := s.checkAccessKey(r.Header.Get("Authorization"))
	if err != nil {
		refuse(w, r, err)
		return
	}

	// At most MaxInFlight requests are read and run at once; the others
	// wait here, their bodies unread. A request whose changes are being
	// committed gives its slot up while it waits (persist.go).
	select {
	case s.slots <- struct{}{}:
	case <-r.Context().Done():
		return
	}

	holding := true
	release := func() {
		if holding {
			holding = false
			<-s.slots
		}
	}

	defer release()

	op := operation(r.Header.Get("X-Amz-Target"))

	// The body is read to its end (at most MaxRequestBytes) before anything
	// runs, so the connection stays reusable after any answer.
	// A body that comes slowly, or never, holds the slot at most
	// BodyTimeout.
	_ = http.NewResponseController(w).SetReadDeadline(time.Now().Add(s.opts.BodyTimeout))
	raw, err := io.ReadAll(http.MaxBytesReader(w, r.Body, s.opts.MaxRequestBytes))

	var tooBig *http.MaxBytesError

	switch {
	case errors.As(err, &tooBig):
		writeError(w, tooLarge(s.opts.MaxRequestBytes))
		return
	case err != nil:
		writeError(w, &apiError{Code: "ValidationException", Message: "Request body unreadable: " + err.Error()})
		return
	}

	// The signature is of the body as sent (compressed or not).
	if err := s.verifySignature(r, raw, readOnly); err != nil {
		writeError(w, err)
		return
	}

	if raw, err = decodeBody(r.Header.Get("Content-Encoding"), raw, s.opts.MaxRequestBytes); err != nil {
		writeError(w, err)
		return
	}

	if n := countValues(raw, s.opts.MaxRequestValues); n > s.opts.MaxRequestValues {
		writeError(w, validation("The request holds more than %d attribute values", s.opts.MaxRequestValues))
		return
	}

	if readOnly {
		if err := readOnlyRefusal(s.opts.ReadOnlyAccessKeyID, op, raw); err != nil {
			writeError(w, err)
			return
		}
	}

	c := s.client

	var resp any

	unlock := s.lockFor(op)

	switch op {
	case "CreateTable":
		resp, err = decodeAndRun(raw, c.CreateTable)
	case "UpdateTable":
		resp, err = decodeAndRun(raw, c.UpdateTable)
	case "DeleteTable":
		resp, err = decodeAndRun(raw, c.DeleteTable)
	case "DescribeTable":
		resp, err = decodeAndRun(raw, c.DescribeTable)
	case "ListTables":
		resp, err = decodeAndRun(raw, c.ListTables)
	case "DescribeTimeToLive":
		resp, err = decodeAndRun(raw, c.DescribeTimeToLive)
	case "UpdateTimeToLive":
		resp, err = decodeAndRun(raw, c.UpdateTimeToLive)
	case "PutItem":
		resp, err = decodeAndRun(raw, c.PutItem)
	case "DeleteItem":
		resp, err = decodeAndRun(raw, c.DeleteItem)
	case "UpdateItem":
		resp, err = decodeAndRun(raw, c.UpdateItem)
	case "GetItem":
		resp, err = decodeAndRun(raw, c.getItem)
	case "Query":
		resp, err = decodeAndRun(raw, c.query)
	case "Scan":
		resp, err = decodeAndRun(raw, c.scan)
	case "BatchWriteItem":
		resp, err = decodeAndRun(raw, c.BatchWriteItem)
	case "BatchGetItem":
		resp, err = decodeAndRun(raw, c.BatchGetItem)
	case "TransactWriteItems":
		resp, err = decodeAndRun(raw, c.TransactWriteItems)
	case "TransactGetItems":
		resp, err = decodeAndRun(raw, c.TransactGetItems)
	case "ListStreams":
		resp, err = decodeAndRun(raw, c.ListStreams)
	case "DescribeStream":
		resp, err = decodeAndRun(raw, c.DescribeStream)
	case "GetShardIterator":
		resp, err = decodeAndRun(raw, c.GetShardIterator)
	case "GetRecords":
		resp, err = decodeAndRun(raw, c.GetRecords)
	default:
		resp, err = s.serveMore(r, op, raw)
	}

	target := unlock(&err)

	// The whole response is encoded before any of it is written, so an
	// encoding failure is still a clean error (and a client gone midway is
	// only a failed write).
	buf := bodies.Get().(*[]byte)
	defer bodies.Put(buf)

	var body []byte

	if err == nil {
		if body, err = encodeResponse((*buf)[:0], resp); err != nil {
			err = &apiError{Code: "InternalServerError", Message: err.Error()}
		} else if cap(body) <= maxPooledBody {
			*buf = body
		}
	}

	// Answered, even with an error (a failed condition tells of an item),
	// only once what it changed or read is committed.
	if d := s.durable; d != nil {
		release()

		if werr := d.wait(target); werr != nil {
			err = werr
		}
	}

	if err != nil {
		writeError(w, err)
		return
	}

	writeBody(w, http.StatusOK, responseEncoding(r.Header.Get("Accept-Encoding")), body)
}

// bodies are response buffers, reused (up to maxPooledBody bytes each).
var bodies = sync.Pool{New: func() any { return new([]byte) }}

const maxPooledBody = 1 << 20

// encodeResponse appends resp's JSON and a newline to b: by hand for the
// responses that encode themselves, else with encoding/json.
func encodeResponse(b []byte, resp any) ([]byte, error) {
	if _, ok := resp.(emptyResponse); ok {
		return b, nil
	}

	if a, ok := resp.(appender); ok {
		b, err := a.appendJSON(b)
		return append(b, '\n'), err
	}

	body := bytes.NewBuffer(b)

	enc := json.NewEncoder(body)
	enc.SetEscapeHTML(false)

	err := enc.Encode(resp)

	return body.Bytes(), err
}

// errorBody is DynamoDB's error response.
type errorBody struct {
	Type                string                     `json:"__type,omitempty"`
	Message             string                     `json:"message"`
	Item                map[string]*AttributeValue `json:"Item,omitempty"`
	CancellationReasons []cancellationReasonJSON   `json:"CancellationReasons,omitempty"`
}

type cancellationReasonJSON struct {
	Code    string                     `json:"Code"`
	Message string                     `json:"Message,omitempty"`
	Item    map[string]*AttributeValue `json:"Item,omitempty"`
}

// RefusedBodyWait bounds how long a refused request's body (another
// access key) is waited for before the answer.
const RefusedBodyWait = 500 * time.Millisecond

// RefusedBodyBytes bounds how much of a refused request's body is read.
const RefusedBodyBytes = 1 << 20

// refuse answers a request of another access key, as DynamoDB does, and
// closes the connection. Its body, perhaps never sent, is read first, at
// most RefusedBodyWait (and RefusedBodyBytes), not until the read
// timeout: a connection closed on bytes it has not read is reset, and
// the client, still sending its body, fails its write, closes the
// connection and loses the answer ("use of closed network connection").
func refuse(w http.ResponseWriter, r *http.Request, err error) {
	rc := http.NewResponseController(w)
	_ = rc.SetReadDeadline(time.Now().Add(RefusedBodyWait))
	_, _ = io.Copy(io.Discard, io.LimitReader(r.Body, RefusedBodyBytes))

	w.Header().Set("Connection", "close")
	writeError(w, err)
}

func writeError(w http.ResponseWriter, err error) {
	body := errorBody{Type: "InternalFailure", Message: err.Error()}
	status := http.StatusBadRequest

	var (
		se  *statusError
		ccf *conditionFailedError
		tce *transactionCanceledError
		api interface {
			ErrorCode() string
			ErrorMessage() string
		}
	)

	switch {
	case errors.As(err, &se):
		status = se.status
		body = errorBody{Type: se.typ, Message: se.message}
	case errors.As(err, &ccf):
		body = errorBody{Type: "com.amazonaws.dynamodb.v20120810#ConditionalCheckFailedException", Message: "The conditional request failed", Item: toWireMap(ccf.item)}
	case errors.As(err, &tce):
		body = errorBody{Type: "com.amazonaws.dynamodb.v20120810#TransactionCanceledException", Message: tce.message()}
		for _, r := range tce.reasons {
			body.CancellationReasons = append(body.CancellationReasons, cancellationReasonJSON{Code: r.Code, Message: r.Message, Item: toWireMap(r.Item)})
		}
	case errors.As(err, &api):
		body = errorBody{Type: "com.amazonaws.dynamodb.v20120810#" + api.ErrorCode(), Message: api.ErrorMessage()}
		if api.ErrorCode() == "InternalServerError" {
			status = http.StatusInternalServerError
		}
	default:
		status = http.StatusInternalServerError
	}

	var b bytes.Buffer

	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(body)
	writeBody(w, status, encodingNone, b.Bytes())
}

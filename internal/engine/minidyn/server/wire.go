package server

// The wire around every request, as DynamoDB has it: bodies compressed
// with gzip or deflate (Content-Encoding), responses compressed when the
// client accepts it (Accept-Encoding) and they pass 4 KB, the headers
// DynamoDB returns (x-amzn-RequestId, x-amz-crc32, Content-Length), the
// size bounds on the request line and headers, and a body that must be
// one JSON object.

import (
	"bytes"
	"compress/gzip"
	"compress/zlib"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"sync"
)

const (
	// MaxRequestLine and MaxRequestHeaders are DynamoDB's bounds on a
	// request's URL and on its headers together (16 KB each): past them
	// a request is refused with 400 before it is read.
	MaxRequestLine    = 16 << 10
	MaxRequestHeaders = 16 << 10
	// CompressAbove is the size past which a response is compressed when
	// the client accepts gzip or deflate (DynamoDB's threshold, 4 KB).
	CompressAbove = 4096
)

// statusError is an error answered with its own HTTP status and, unlike
// apiError, the error type's full name.
type statusError struct {
	status  int
	typ     string // "" sends a body of the message alone, as DynamoDB's 413
	message string
}

func (e *statusError) Error() string { return e.typ + ": " + e.message }

// serializationError is DynamoDB's answer to a body that is not the JSON
// the operation takes.
func serializationError(format string, args ...any) error {
	return &statusError{status: http.StatusBadRequest, typ: "com.amazon.coral.service#SerializationException", message: fmt.Sprintf(format, args...)}
}

// tooLarge is the answer to a request (or its decompressed body) of more
// than MaxRequestBytes: 413, as DynamoDB answers.
func tooLarge(limit int64) error {
	return &statusError{status: http.StatusRequestEntityTooLarge, message: fmt.Sprintf("Request entity too large: the request body is more than %d bytes", limit)}
}

// undecodable is DynamoDB's answer to a body its Content-Encoding does
// not decode: InternalServerError (500).
func undecodable(format string, args ...any) error {
	return &statusError{status: http.StatusInternalServerError, typ: "com.amazonaws.dynamodb.v20120810#InternalServerError", message: fmt.Sprintf(format, args...)}
}

// checkRequestSize refuses a request line or headers past DynamoDB's
// bounds, with 400, before anything else is looked at.
func checkRequestSize(r *http.Request) error {
	if len(r.RequestURI) > MaxRequestLine {
		return &statusError{status: http.StatusBadRequest, message: fmt.Sprintf("Bad Request: the request line is longer than %d bytes", MaxRequestLine)}
	}

	n := 0
	for k, vs := range r.Header {
		for _, v := range vs {
			n += len(k) + len(v) + 4
		}
	}

	if n > MaxRequestHeaders {
		return &statusError{status: http.StatusBadRequest, message: fmt.Sprintf("Bad Request: the request headers are more than %d bytes", MaxRequestHeaders)}
	}

	return nil
}

// decodeBody undoes the body's Content-Encoding (none, identity, gzip
// with any number of members, or deflate: a zlib stream), allowing at
// most limit bytes decoded.
func decodeBody(encoding string, raw []byte, limit int64) ([]byte, error) {
	var (
		rd  io.Reader
		err error
	)

	switch strings.ToLower(strings.TrimSpace(encoding)) {
	case "", "identity":
		return raw, nil
	case "gzip":
		rd, err = gzip.NewReader(bytes.NewReader(raw))
	case "deflate":
		rd, err = zlib.NewReader(bytes.NewReader(raw))
	default:
		return nil, undecodable("Unsupported Content-Encoding %q: expected gzip or deflate", encoding)
	}

	if err != nil {
		return nil, undecodable("The request body is not %s: %v", encoding, err)
	}

	out, err := io.ReadAll(io.LimitReader(rd, limit+1))
	if err != nil {
		return nil, undecodable("The request body is not %s: %v", encoding, err)
	}

	if int64(len(out)) > limit {
		return nil, tooLarge(limit)
	}

	return out, nil
}

// checkObject refuses a body that is not one JSON object (SerializationException),
// saying where it is wrong.
func checkObject(raw []byte) error {
	i := 0
	for i < len(raw) && isSpace(raw[i]) {
		i++
	}

	if i == len(raw) {
		return serializationError("The request body is empty: expected a JSON object")
	}

	if raw[i] != '{' {
		return serializationError("The request body must be a JSON object, found %q at %d", raw[i], i)
	}

	return nil
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// jsonError is the SerializationException for a body encoding/json
// refused, naming the byte offset where it went wrong.
func jsonError(err error) error {
	var syn *json.SyntaxError
	if errors.As(err, &syn) {
		return serializationError("%s at %d", syn.Error(), max(syn.Offset-1, 0))
	}

	var typ *json.UnmarshalTypeError
	if errors.As(err, &typ) {
		return serializationError("Expected %s at %s, found JSON %s at %d", typ.Type, typ.Field, typ.Value, typ.Offset)
	}

	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		return serializationError("The request body ends before its JSON object does")
	}

	return serializationError("%s", err.Error())
}

// An encoding a response may be compressed with.
const (
	encodingNone    = ""
	encodingGzip    = "gzip"
	encodingDeflate = "deflate"
)

// responseEncoding picks the compression of a response from the request's
// first Accept-Encoding header, as DynamoDB reads it: gzip and deflate
// only (case-insensitive), each at the highest q it is given ("q=" first
// found in its parameters; an unreadable q counts as 1, above 1 as 1, 0
// or below refuses it), "*" giving its q to the ones not named; the
// highest q wins, a named coding before "*", then the first named, then
// gzip.
func responseEncoding(header string) string {
	if header == "" {
		return encodingNone
	}

	type choice struct {
		q     float64
		named bool
		pos   int
	}

	var (
		gz, df   = choice{q: -1}, choice{q: -1}
		star     = -1.0
		haveStar = false
	)

	for pos, part := range strings.Split(header, ",") {
		name, params, _ := strings.Cut(part, ";")
		name = strings.ToLower(strings.TrimSpace(name))
		q := qualityOf(params)

		switch name {
		case "gzip":
			if !gz.named || q > gz.q {
				gz = choice{q: q, named: true, pos: pos}
			}
		case "deflate":
			if !df.named || q > df.q {
				df = choice{q: q, named: true, pos: pos}
			}
		case "*":
			haveStar, star = true, max(star, q)
		}
	}

	for _, c := range []*choice{&gz, &df} {
		if !c.named {
			c.q, c.pos = -1, 1<<30
			if haveStar {
				c.q = star
			}
		}
	}

	// gzip is preferred at a higher q, or at the same q when it is named
	// and deflate is not, or both are named and gzip first, or neither.
	best, q := encodingGzip, gz.q
	if df.q > gz.q || (df.q == gz.q && (df.named && !gz.named || df.named == gz.named && df.pos < gz.pos)) {
		best, q = encodingDeflate, df.q
	}

	if q > 0 {
		return best
	}

	return encodingNone
}

// qualityOf is a coding's q from its parameters (after the first ';'):
// the text after the first "q=" up to the next ';', spaces trimmed; 1
// when there is none or it is no number, at most 1.
func qualityOf(params string) float64 {
	_, v, ok := strings.Cut(params, "q=")
	if !ok {
		return 1
	}

	v, _, _ = strings.Cut(v, ";")

	q, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
	if err != nil || q != q {
		return 1
	}

	return min(q, 1)
}

// Compressors, reused.
var (
	gzipWriters = sync.Pool{New: func() any { return gzip.NewWriter(io.Discard) }}
	zlibWriters = sync.Pool{New: func() any { return zlib.NewWriter(io.Discard) }}
)

// compress appends body compressed with encoding to dst.
func compress(dst *bytes.Buffer, encoding string, body []byte) error {
	type resetWriter interface {
		io.WriteCloser
		Reset(io.Writer)
	}

	pool := &gzipWriters
	if encoding == encodingDeflate {
		pool = &zlibWriters
	}

	w := pool.Get().(resetWriter)
	defer pool.Put(w)

	w.Reset(dst)

	if _, err := w.Write(body); err != nil {
		return err
	}

	return w.Close()
}

// compressed are compression buffers, reused.
var compressed = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// writeBody writes a response: its status, DynamoDB's headers
// (Content-Type, Server, Content-Length, x-amzn-RequestId, and x-amz-crc32, the
// CRC-32 of the bytes sent, which the SDKs check), and the body,
// compressed with encoding when it passes CompressAbove.
func writeBody(w http.ResponseWriter, status int, encoding string, body []byte) {
	h := w.Header()

	if encoding != encodingNone && len(body) > CompressAbove {
		buf := compressed.Get().(*bytes.Buffer)
		buf.Reset()

		defer func() {
			if buf.Cap() <= maxPooledBody {
				compressed.Put(buf)
			}
		}()

		if err := compress(buf, encoding, body); err == nil {
			body = buf.Bytes()
			h.Set("Content-Encoding", encoding)
		}
	}

	h.Set("Content-Type", "application/x-amz-json-1.0")
	h.Set("Server", "Server")
	h.Set("Content-Length", strconv.Itoa(len(body)))
	h.Set("X-Amzn-Requestid", requestID())
	h.Set("X-Amz-Crc32", strconv.FormatUint(uint64(crc32.ChecksumIEEE(body)), 10))
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// requestID is a new request id in DynamoDB's shape: 52 characters of
// A–Z and 0–9.
func requestID() string {
	const digits = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"

	var b [52]byte

	for i := 0; i < len(b); {
		r := rand.Uint64()
		for j := 0; j < 10 && i < len(b); j++ {
			b[i] = digits[r%uint64(len(digits))]
			r /= uint64(len(digits))
			i++
		}
	}

	return string(b[:])
}

// emptyResponse is an operation's answer with no body at all (TagResource,
// UntagResource), as DynamoDB sends it.
type emptyResponse struct{}

func (emptyResponse) appendJSON(b []byte) ([]byte, error) { return b, nil }

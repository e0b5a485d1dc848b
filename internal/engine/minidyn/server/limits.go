package server

import (
	"crypto/subtle"
	"strings"
	"time"
)

// Bounds on what one request may cost, so a served engine's memory stays
// bounded whatever its clients send: the body's size, the JSON values it
// holds (each decodes to a few hundred bytes), and the requests being
// worked on at once (the rest wait, unread).
const (
	// DefaultMaxRequestBytes: the largest request DynamoDB takes is a
	// 25-item batch, 16 MB.
	DefaultMaxRequestBytes = 16 << 20
	// DefaultMaxRequestValues: each attribute value costs a few hundred
	// bytes decoded, so 100,000 keep a request under ~50 MB. DynamoDB
	// would take more in one item (up to ~400,000 tiny list elements in
	// 400 KB): such a request is refused here, saying why.
	DefaultMaxRequestValues = 100_000
	// DefaultMaxInFlight requests are decoded and run at once (the engine
	// runs them one at a time under its lock anyway).
	DefaultMaxInFlight = 2
)

// Options configure a Server.
type Options struct {
	// AccessKeyID, when set, is the only access key the server accepts:
	// a request whose SigV4 Authorization header names another (or none)
	// is refused, as DynamoDB refuses an unknown key.
	AccessKeyID string
	// SecretAccessKey, when set (with AccessKeyID), is that key's secret:
	// a request's SigV4 signature is verified with it (sigv4.go), so the
	// key id alone lets no one in.
	SecretAccessKey string
	// ReadOnlyAccessKeyID and ReadOnlySecretAccessKey, when set (with
	// AccessKeyID), are a second key the server accepts, checked alike,
	// whose requests may only read (readonly.go).
	ReadOnlyAccessKeyID, ReadOnlySecretAccessKey string
	// MaxRequestBytes, MaxRequestValues and MaxInFlight bound a request's
	// memory and the requests worked on at once (0: the defaults).
	MaxRequestBytes  int64
	MaxRequestValues int
	MaxInFlight      int
	// BodyTimeout bounds the reading of a request's body once the request
	// is worked on (0: DefaultBodyTimeout): a client that sends its body
	// slowly, or never, holds one of the MaxInFlight slots that long.
	BodyTimeout time.Duration
}

// DefaultBodyTimeout is Options.BodyTimeout's default: a request's whole
// body (at most DefaultMaxRequestBytes, on a loopback connection) comes
// in far less.
const DefaultBodyTimeout = 10 * time.Second

func (o Options) withDefaults() Options {
	if o.BodyTimeout <= 0 {
		o.BodyTimeout = DefaultBodyTimeout
	}

	if o.MaxRequestBytes <= 0 {
		o.MaxRequestBytes = DefaultMaxRequestBytes
	}

	if o.MaxRequestValues <= 0 {
		o.MaxRequestValues = DefaultMaxRequestValues
	}

	if o.MaxInFlight <= 0 {
		o.MaxInFlight = DefaultMaxInFlight
	}

	return o
}

// countValues counts the JSON objects and arrays in a request body (every
// attribute value is one), stopping once it passes limit. It allocates
// nothing: the body is checked before it is decoded.
func countValues(raw []byte, limit int) int {
	n := 0
	inString, escaped := false, false

	for _, c := range raw {
		switch {
		case escaped:
			escaped = false
		case inString && c == '\\':
			escaped = true
		case c == '"':
			inString = !inString
		case !inString && (c == '{' || c == '['):
			n++
			if n > limit {
				return n
			}
		}
	}

	return n
}

// accessKeyOf is the access key id of a SigV4 Authorization header
// ("AWS4-HMAC-SHA256 Credential=AKID/date/region/service/aws4_request,
// SignedHeaders=..., Signature=..."), "" when there is none.
func accessKeyOf(authorization string) string {
	_, rest, ok := strings.Cut(authorization, "Credential=")
	if !ok {
		return ""
	}

	id, _, _ := strings.Cut(rest, "/")

	return id
}

// checkAccessKey refuses a request that does not name a configured
// access key, with DynamoDB's errors; readOnly says it names the
// read-only one.
func (s *Server) checkAccessKey(authorization string) (readOnly bool, err error) {
	if s.opts.AccessKeyID == "" {
		return false, nil
	}

	if authorization == "" {
		return false, &apiError{Code: "MissingAuthenticationTokenException", Message: "Request is missing Authentication Token"}
	}

	id := accessKeyOf(authorization)
	if ro := s.opts.ReadOnlyAccessKeyID; ro != "" && subtle.ConstantTimeCompare([]byte(id), []byte(ro)) == 1 {
		return true, nil
	}

	if subtle.ConstantTimeCompare([]byte(id), []byte(s.opts.AccessKeyID)) != 1 {
		return false, &apiError{Code: "UnrecognizedClientException", Message: "The security token included in the request is invalid."}
	}

	return false, nil
}

package server

// SigV4 signature verification (keyplan's): with Options.SecretAccessKey
// set, a request is served only when its Authorization header is an AWS
// Signature Version 4 signature of it, by Options.AccessKeyID, made with
// that secret, dated within SignatureSkew of the engine's clock: the
// right key id with a wrong secret is refused, as DynamoDB refuses it.

import (
	"crypto/hmac"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
)

// SignatureSkew is how far a request's X-Amz-Date may be from the
// wall clock (AWS's: 15 minutes; not the engine's clock, which tests move
// for TTLs).
const SignatureSkew = 15 * time.Minute

const sigAlgorithm = "AWS4-HMAC-SHA256"

var errBadSignature = &apiError{Code: "InvalidSignatureException",
	Message: "The request signature we calculated does not match the signature you provided. Check your AWS Secret Access Key and signing method. Consult the service documentation for details."}

// sigv4 is a parsed Authorization header.
type sigv4 struct {
	keyID, date, region, service string
	signed                       []string
	signature                    string
}

func parseSigV4(h string) (sigv4, bool) {
	var s sigv4

	rest, ok := strings.CutPrefix(h, sigAlgorithm+" ")
	if !ok {
		return s, false
	}

	// Its components are separated by commas, whitespace or both.
	for _, part := range strings.FieldsFunc(rest, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' }) {
		k, v, _ := strings.Cut(part, "=")

		switch k {
		case "Credential":
			f := strings.Split(v, "/")
			if len(f) != 5 || f[4] != "aws4_request" {
				return s, false
			}

			s.keyID, s.date, s.region, s.service = f[0], f[1], f[2], f[3]
		case "SignedHeaders":
			s.signed = strings.Split(v, ";")
		case "Signature":
			s.signature = v
		}
	}

	return s, s.keyID != "" && len(s.signed) > 0 && s.signature != ""
}

// checkSignatureDate refuses a signed request dated more than
// SignatureSkew from the engine's clock, as DynamoDB does before it
// looks at the key: "Signature expired" or "Signature not yet current".
func (s *Server) checkSignatureDate(r *http.Request) error {
	if s.opts.SecretAccessKey == "" || r.Header.Get("Authorization") == "" {
		return nil
	}

	amzDate := r.Header.Get("X-Amz-Date")

	at, err := time.Parse("20060102T150405Z", amzDate)
	if err != nil {
		return nil // verifySignature says what is missing
	}

	now := time.Now()
	if s.signedAt != nil {
		now = s.signedAt()
	}

	const stamp = "20060102T150405Z"

	switch d := now.Sub(at); {
	case d > SignatureSkew:
		return &apiError{Code: "InvalidSignatureException", Message: "Signature expired: " + amzDate + " is now earlier than " +
			now.UTC().Add(-SignatureSkew).Format(stamp) + " (" + now.UTC().Format(stamp) + " - 15 min.)"}
	case d < -SignatureSkew:
		return &apiError{Code: "InvalidSignatureException", Message: "Signature not yet current: " + amzDate + " is still later than " +
			now.UTC().Add(SignatureSkew).Format(stamp) + " (" + now.UTC().Format(stamp) + " + 15 min.)"}
	}

	return nil
}

// verifySignature checks r's signature over its body (checkAccessKey
// has checked the key id).
func (s *Server) verifySignature(r *http.Request, body []byte, readOnly bool) error {
	secret := s.opts.SecretAccessKey
	if readOnly {
		secret = s.opts.ReadOnlySecretAccessKey
	}

	if secret == "" {
		return nil
	}

	sig, ok := parseSigV4(r.Header.Get("Authorization"))
	if !ok || !slices.Contains(sig.signed, "host") {
		return &apiError{Code: "IncompleteSignatureException", Message: "The request signature does not conform to AWS standards."}
	}

	amzDate := r.Header.Get("X-Amz-Date")

	_, err := time.Parse("20060102T150405Z", amzDate)
	if err != nil || !strings.HasPrefix(amzDate, sig.date) {
		return &apiError{Code: "IncompleteSignatureException", Message: "Authorization header requires existence of either a 'X-Amz-Date' or a 'Date' header."}
	}

	payload := sha256.Sum256(body)
	payloadHex := hex.EncodeToString(payload[:])

	if h := r.Header.Get("X-Amz-Content-Sha256"); h != "" && h != payloadHex {
		return errBadSignature
	}

	canonical := strings.Join([]string{r.Method, canonicalURI(r.URL), canonicalQuery(r.URL), canonicalHeaders(r, sig.signed),
		strings.Join(sig.signed, ";"), payloadHex}, "\n")
	digest := sha256.Sum256([]byte(canonical))
	scope := strings.Join([]string{sig.date, sig.region, sig.service, "aws4_request"}, "/")
	toSign := strings.Join([]string{sigAlgorithm, amzDate, scope, hex.EncodeToString(digest[:])}, "\n")

	key := []byte("AWS4" + secret)
	for _, p := range []string{sig.date, sig.region, sig.service, "aws4_request"} {
		key = hmacSHA256(key, p)
	}

	want := hex.EncodeToString(hmacSHA256(key, toSign))
	if subtle.ConstantTimeCompare([]byte(want), []byte(sig.signature)) != 1 {
		return errBadSignature
	}

	return nil
}

func hmacSHA256(key []byte, data string) []byte {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(data))

	return m.Sum(nil)
}

// canonicalURI is the path, each segment URI-encoded as SigV4 encodes it
// (for services other than S3, the escaped path escaped again).
func canonicalURI(u *url.URL) string {
	p := u.EscapedPath()
	if p == "" {
		return "/"
	}

	segs := strings.Split(p, "/")
	for i, s := range segs {
		segs[i] = uriEncode(s, false)
	}

	return strings.Join(segs, "/")
}

func canonicalQuery(u *url.URL) string {
	q := u.Query()
	keys := slices.Sorted(func(yield func(string) bool) {
		for k := range q {
			if !yield(k) {
				return
			}
		}
	})

	var parts []string

	for _, k := range keys {
		vs := slices.Clone(q[k])
		slices.Sort(vs)

		for _, v := range vs {
			parts = append(parts, uriEncode(k, true)+"="+uriEncode(v, true))
		}
	}

	return strings.Join(parts, "&")
}

// uriEncode encodes every byte but A-Z a-z 0-9 - _ . ~ (and '/' unless
// slash).
func uriEncode(s string, slash bool) string {
	var b strings.Builder

	for i := range len(s) {
		c := s[i]

		switch {
		case 'A' <= c && c <= 'Z', 'a' <= c && c <= 'z', '0' <= c && c <= '9', c == '-', c == '_', c == '.', c == '~':
			b.WriteByte(c)
		case c == '/' && !slash:
			b.WriteByte(c)
		default:
			b.WriteString("%" + strings.ToUpper(hex.EncodeToString([]byte{c})))
		}
	}

	return b.String()
}

func canonicalHeaders(r *http.Request, signed []string) string {
	var b strings.Builder

	for _, name := range signed {
		var v string

		switch name {
		case "host":
			v = r.Host
		case "content-length":
			if v = r.Header.Get("Content-Length"); v == "" && r.ContentLength >= 0 {
				v = strconv.FormatInt(r.ContentLength, 10)
			}
		default:
			vals := slices.Clone(r.Header.Values(name))
			for i, x := range vals {
				vals[i] = strings.Join(strings.Fields(x), " ")
			}

			v = strings.Join(vals, ",")
		}

		b.WriteString(name + ":" + v + "\n")
	}

	return b.String()
}

package sdkhttp

import (
	"io"
	"net/http"
)

// Wrap is rt sending each request's body as a sentBody: the SDK's
// transport for a client that may be answered before the transport is
// done with the request (every local engine).
func Wrap(rt http.RoundTripper) http.RoundTripper { return sent{rt} }

// Client is an HTTP client for an SDK client (its HTTPClient option):
// Wrap of a copy of http.DefaultTransport, no time limit of its own.
func Client() *http.Client {
	return &http.Client{Transport: Wrap(http.DefaultTransport.(*http.Transport).Clone())}
}

type sent struct{ http.RoundTripper }

func (s sent) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Body != nil && r.Body != http.NoBody {
		c := *r
		c.Body = sentBody{r.Body}
		r = &c
	}

	return s.RoundTripper.RoundTrip(r)
}

// sentBody is a request body that is only read, never asked to write
// itself (io.WriterTo). The SDK's request body (smithy-go's safe reader)
// answers WriteTo with io.EOF once it is closed, and the SDK closes it
// once it has the answer's headers. net/http's transport, having sent
// Content-Length bytes, reads the body on to its end with io.Copy, which
// takes WriteTo: when the answer's headers came first, that copy failed
// with io.EOF and the transport, taking it for a failed write, closed the
// connection. Read after the close is a plain end of file, which io.Copy
// ends on without an error.
type sentBody struct{ body io.ReadCloser }

func (b sentBody) Read(p []byte) (int, error) { return b.body.Read(p) }
func (b sentBody) Close() error               { return b.body.Close() }

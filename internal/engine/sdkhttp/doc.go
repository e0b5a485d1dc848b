// Package sdkhttp is the HTTP transport keyplan's AWS SDK clients send
// through (Wrap), and the fault that proves why (Overtaking).
//
// A local engine answers within microseconds, and the Go SDK, as it
// comes, then loses answers longer than its transport's 4 KB read buffer
// to a connection it closes itself ("use of closed network connection"):
// the SDK closes a request's body as soon as the answer's headers are
// in, and net/http's transport, which reads the body on to its end after
// sending it, takes the closed body's io.EOF for a failed write and
// closes the connection under the answer being read. It happens whenever
// the transport's writing goroutine waits for a core past the answer's
// headers (a loaded machine), on any engine; the SDK's retryer retries
// it, a client with retries off (most tests) fails. Wrap's bodies end
// cleanly instead. Overtaking makes that order certain, so a test can
// show the loss and its absence in milliseconds rather than by luck.
package sdkhttp

package minidyn

import (
	"fmt"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/keyplan/keyplan/internal/minidyn/server"
)

// Server is a running engine.
type Server struct {
	// Endpoint is its URL, e.g. http://127.0.0.1:40123.
	Endpoint string
	srv      *http.Server
	once     sync.Once
}

// Start serves a fresh, empty engine on a loopback port of the system's
// choosing.
func Start() (*Server, error) { return StartAt("127.0.0.1:0") }

// StartAt serves a fresh, empty engine on addr (host:port).
func StartAt(addr string) (*Server, error) {
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("in-process engine: %w", err)
	}
	s := &Server{
		Endpoint: "http://" + l.Addr().String(),
		srv:      &http.Server{Handler: server.NewServer(), ReadHeaderTimeout: 10 * time.Second},
	}
	go func() { _ = s.srv.Serve(l) }()
	return s, nil
}

// Stop closes the listener and every connection; the tables are gone.
func (s *Server) Stop() { s.once.Do(func() { _ = s.srv.Close() }) }

// Log is empty: the engine runs in this process and reports through its
// responses.
func (s *Server) Log() string { return "" }

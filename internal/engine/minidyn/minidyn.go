package minidyn

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"sync"
	"time"

	"github.com/keyplan/keyplan/internal/engine/minidyn/server"
	"github.com/keyplan/keyplan/internal/engine/minidyn/store"
)

// Options configure a served engine.
type Options struct {
	// Addr is the loopback host:port to serve on (default 127.0.0.1:0, a
	// port of the system's choosing). A non-loopback address is refused:
	// the engine is for one machine's tests and tools.
	Addr string
	// AccessKeyID, when set, is the only access key the engine accepts:
	// requests whose SigV4 signature names another key, or none, are
	// refused with DynamoDB's UnrecognizedClientException.
	AccessKeyID string
	// SecretAccessKey, when set with AccessKeyID, is its secret: every
	// request's SigV4 signature is verified with it (a wrong secret:
	// InvalidSignatureException), so the key id alone, which is no
	// secret, lets no one in. Without it only the key id is checked.
	SecretAccessKey string
	// ReadOnlyAccessKeyID and ReadOnlySecretAccessKey, when set with
	// AccessKeyID, are a second key, checked alike, whose requests may
	// read and nothing else: one that would write is refused with
	// AccessDeniedException, naming the action (server.Options).
	ReadOnlyAccessKeyID, ReadOnlySecretAccessKey string
	// DataDir, when set, keeps the tables across restarts, in a bbolt
	// file (internal/engine/minidyn/store): loaded at start, and every request
	// answered only once what it changed is committed there, durably
	// (server.Persist). The directory must be the user's own, not
	// writable by others, and no symlink; one server at a time has it
	// (a second is refused, naming the first's process id).
	DataDir string
	// Log gets a line when a commit to DataDir fails (at once; the
	// requests it held are answered 500) and when an earlier keyplan's
	// state file is imported (default: standard error).
	Log io.Writer
	// SweepEvery is how often items whose TTL has passed are deleted
	// (default one second; negative: never, ExpireTTL does it).
	SweepEvery time.Duration
	// MaxRequestBytes, MaxRequestValues and MaxInFlight bound the memory
	// a request can take and the requests worked on at once (0: the
	// server package's defaults).
	MaxRequestBytes  int64
	MaxRequestValues int
	MaxInFlight      int
	// BodyTimeout bounds the reading of a request's body (0: the server
	// package's default).
	BodyTimeout time.Duration
}

// Server is a running engine.
type Server struct {
	// Endpoint is its URL, e.g. http://127.0.0.1:40123.
	Endpoint string

	srv    *http.Server
	engine *server.Server
	db     *store.DB
	once   sync.Once
	stop   chan struct{}
	sweep  sync.WaitGroup
	// closeErr is Close's: the store's.
	closeErr error
}

// Start serves a fresh, empty engine on a loopback port of the system's
// choosing.
func Start() (*Server, error) { return Serve(Options{}) }

// StartAt serves a fresh, empty engine on addr (a loopback host:port).
func StartAt(addr string) (*Server, error) { return Serve(Options{Addr: addr}) }

// Serve starts an engine as opts says; it serves until Stop.
func Serve(opts Options) (*Server, error) {
	addr := opts.Addr
	if addr == "" {
		addr = "127.0.0.1:0"
	}

	if err := checkLoopback(addr); err != nil {
		return nil, err
	}

	engine := server.NewServerWith(server.Options{
		AccessKeyID: opts.AccessKeyID, SecretAccessKey: opts.SecretAccessKey,
		ReadOnlyAccessKeyID: opts.ReadOnlyAccessKeyID, ReadOnlySecretAccessKey: opts.ReadOnlySecretAccessKey, MaxRequestBytes: opts.MaxRequestBytes,
		MaxRequestValues: opts.MaxRequestValues, MaxInFlight: opts.MaxInFlight, BodyTimeout: opts.BodyTimeout,
	})

	var db *store.DB

	if opts.DataDir != "" {
		logTo := opts.Log
		if logTo == nil {
			logTo = os.Stderr
		}

		var err error
		if db, err = openData(opts.DataDir, engine, func(line string) { fmt.Fprintf(logTo, "in-process engine: %s\n", line) }); err != nil {
			return nil, err
		}
	}

	l, err := net.Listen("tcp", addr)
	if err != nil {
		if db != nil {
			engine.StopPersisting()
			_ = db.Close()
		}

		return nil, fmt.Errorf("in-process engine: %w", err)
	}

	s := &Server{
		Endpoint: "http://" + l.Addr().String(),
		srv: &http.Server{Handler: engine, ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 2 * time.Minute,
			IdleTimeout: 2 * time.Minute},
		engine: engine,
		db:     db,
		stop:   make(chan struct{}),
	}

	go func() { _ = s.srv.Serve(l) }()

	if opts.SweepEvery >= 0 {
		every := opts.SweepEvery
		if every == 0 {
			every = time.Second
		}

		s.sweep.Add(1)

		go s.sweepLoop(every)
	}

	return s, nil
}

// checkLoopback refuses an address that is not a loopback one.
func checkLoopback(addr string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("in-process engine: address %q: %w", addr, err)
	}

	if host == "localhost" {
		return nil
	}

	if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
		return fmt.Errorf("in-process engine: address %q is not a loopback address (127.0.0.1, ::1 or localhost): the engine serves this machine only", addr)
	}

	return nil
}

func (s *Server) sweepLoop(every time.Duration) {
	defer s.sweep.Done()

	tick := time.NewTicker(every)
	defer tick.Stop()

	for {
		select {
		case <-s.stop:
			return
		case <-tick.C:
			s.engine.ExpireTTL()
		}
	}
}

// ExpireTTL deletes the items whose TTL attribute (epoch seconds) has
// passed on the engine's clock, as DynamoDB's TTL process does (each a
// stream REMOVE record by the DynamoDB service), and returns how many. The
// engine also does it every SweepEvery.
func (s *Server) ExpireTTL() int { return s.engine.ExpireTTL() }

// SetClock sets the clock the engine reads for TTL expiry and stream
// records (tests move it; time.Now by default).
func (s *Server) SetClock(now func() time.Time) { s.engine.SetClock(now) }

// Stop closes the listener and every connection, once the requests in
// progress are answered. Without a data directory the tables are gone.
func (s *Server) Stop() { _ = s.Close() }

// Close is Stop, returning the error of closing the data directory's
// store (everything acknowledged is in it already).
func (s *Server) Close() error {
	s.once.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()

		// Requests in progress finish (their commits included).
		if err := s.srv.Shutdown(ctx); err != nil {
			_ = s.srv.Close()
		}

		close(s.stop)
		s.sweep.Wait()

		if s.db != nil {
			s.engine.StopPersisting()
			s.closeErr = s.db.Close()
		}
	})

	return s.closeErr
}

// Log is empty: the engine runs in this process and reports through its
// responses.
func (s *Server) Log() string { return "" }

// ErrUnsafeDataDir is the error of a data directory the engine will not
// use.
var ErrUnsafeDataDir = errors.New("unsafe data directory")

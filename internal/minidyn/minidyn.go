package minidyn

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/keyplan/keyplan/internal/minidyn/server"
)

// Options configure a served engine.
type Options struct {
	// Addr is the loopback host:port to serve on (default 127.0.0.1:0, a
	// port of the system's choosing). A non-loopback address is refused:
	// the engine is for one machine's tests and tools.
	Addr string
	// AccessKeyID, when set, is the only access key the engine accepts:
	// requests whose SigV4 signature names another key, or none, are
	// refused with DynamoDB's UnrecognizedClientException. The key id is
	// checked, not the signature: a random per-run key id that only the
	// run's own clients know is enough to keep the machine's other users
	// out of the engine.
	AccessKeyID string
	// DataDir, when set, keeps the tables across restarts: they are loaded
	// from it at start, and written to it (atomically) within SaveEvery of
	// a change and when the engine stops. The directory must be the
	// user's own, not writable by others, and no symlink.
	DataDir string
	// SaveEvery is how often changed tables are written to DataDir
	// (default one second).
	SaveEvery time.Duration
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

	srv     *http.Server
	engine  *server.Server
	dataDir string
	once    sync.Once
	stop    chan struct{}
	saver   sync.WaitGroup
	// saved is the engine's change count at the last save.
	saved uint64
	// saveErr is the last save's failure, reported by Stop.
	mu      sync.Mutex
	saveErr error
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
		AccessKeyID: opts.AccessKeyID, MaxRequestBytes: opts.MaxRequestBytes,
		MaxRequestValues: opts.MaxRequestValues, MaxInFlight: opts.MaxInFlight, BodyTimeout: opts.BodyTimeout,
	})

	if opts.DataDir != "" {
		if err := loadState(opts.DataDir, engine); err != nil {
			return nil, err
		}
	}

	l, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("in-process engine: %w", err)
	}

	s := &Server{
		Endpoint: "http://" + l.Addr().String(),
		srv: &http.Server{Handler: engine, ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 2 * time.Minute,
			IdleTimeout: 2 * time.Minute},
		engine:  engine,
		dataDir: opts.DataDir,
		stop:    make(chan struct{}),
		saved:   engine.Changes(),
	}

	go func() { _ = s.srv.Serve(l) }()

	if opts.SweepEvery >= 0 {
		every := opts.SweepEvery
		if every == 0 {
			every = time.Second
		}

		s.saver.Add(1)

		go s.sweepLoop(every)
	}

	if s.dataDir != "" {
		every := opts.SaveEvery
		if every <= 0 {
			every = time.Second
		}

		s.saver.Add(1)

		go s.saveLoop(every)
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

func (s *Server) saveLoop(every time.Duration) {
	defer s.saver.Done()

	tick := time.NewTicker(every)
	defer tick.Stop()

	for {
		select {
		case <-s.stop:
			return
		case <-tick.C:
			s.saveIfChanged()
		}
	}
}

func (s *Server) sweepLoop(every time.Duration) {
	defer s.saver.Done()

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

// saveIfChanged writes the tables to the data directory if they changed
// since the last save.
func (s *Server) saveIfChanged() {
	n := s.engine.Changes()
	if n == s.saved {
		return
	}

	var buf bytes.Buffer

	err := s.engine.Save(&buf)
	if err == nil {
		err = writeState(s.dataDir, buf.Bytes())
	}

	s.mu.Lock()
	s.saveErr = err
	s.mu.Unlock()

	if err == nil {
		s.saved = n
	}
}

// Stop closes the listener and every connection. With a data directory,
// the tables are written to it first; the error is that write's.
// Otherwise the tables are gone.
func (s *Server) Stop() { _ = s.Close() }

// Close is Stop, returning the last save's error.
func (s *Server) Close() error {
	s.once.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()

		// Requests in progress finish before the final save.
		if err := s.srv.Shutdown(ctx); err != nil {
			_ = s.srv.Close()
		}

		close(s.stop)
		s.saver.Wait()

		if s.dataDir != "" {
			s.saveIfChanged()
		}
	})

	s.mu.Lock()
	defer s.mu.Unlock()

	return s.saveErr
}

// Log is empty: the engine runs in this process and reports through its
// responses.
func (s *Server) Log() string { return "" }

// ErrUnsafeDataDir is the error of a data directory the engine will not
// use.
var ErrUnsafeDataDir = errors.New("unsafe data directory")

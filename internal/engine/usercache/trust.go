package usercache

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/keyplan/keyplan/internal/atomicfile"
)

// An installed engine (DynamoDB Local's jar and libraries, dynalite's
// node_modules) runs as the user: it is used only when it is the user's
// own and is what was installed. Verify checks both at every start:
//   - ownership: the install's directory, its parent (the cache) and
//     everything in it belong to the user, no other user may write any
//     of it, and it holds no symlink but to its own files (ErrNotOwn);
//   - content: the tree's digest (every file's path and SHA-256, every
//     link's path and target) is the pinned one, or the one recorded
//     when keyplan installed it (ErrModified). The digest is taken again only when a file's
//     identity (size, modification and change times, inode, mode)
//     differs from the stamp's (Stamp, beside the install), so an
//     unchanged install costs a walk, not a read of its 60 MB.

// ErrNotOwn: an install another user owns or may write; it is not used
// (nor removed: it is not this user's to remove).
var ErrNotOwn = errors.New("not the user's own")

// ErrModified: an install whose files are not what was installed.
var ErrModified = errors.New("not as installed")

// StampFile is the stamp of the install in dir: its digest and each
// file's identity.
func StampFile(dir string) string { return dir + ".stamp" }

type entry struct {
	path string // slash-separated, relative
	id   string // identity (size, times, inode)
}

// walk lists dir's files with their identities, refusing what another
// user owns or may write, and symlinks.
func walk(dir string) ([]entry, error) {
	for _, d := range []string{filepath.Dir(dir), dir} {
		fi, err := os.Lstat(d)
		if err != nil {
			return nil, err
		}
		if err := owned(d, fi); err != nil {
			return nil, err
		}
	}
	var out []entry
	err := filepath.WalkDir(dir, func(p string, de fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := os.Lstat(p)
		if err != nil {
			return err
		}
		if err := owned(p, fi); err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		switch {
		case fi.Mode()&fs.ModeSymlink != 0:
			// npm's node_modules/.bin links, to files of the install: a
			// link is its target, which must stay inside.
			to, err := os.Readlink(p)
			if err != nil {
				return err
			}
			in, err := filepath.Rel(dir, filepath.Join(filepath.Dir(p), to))
			if filepath.IsAbs(to) || err != nil || in == ".." || strings.HasPrefix(in, ".."+string(filepath.Separator)) {
				return fmt.Errorf("%w: %s is a symlink to %s, outside the install", ErrNotOwn, p, to)
			}
			out = append(out, entry{path: filepath.ToSlash(rel), id: "-> " + filepath.ToSlash(to)})
		case fi.Mode().IsRegular():
			out = append(out, entry{path: filepath.ToSlash(rel), id: identity(fi)})
		case !fi.IsDir():
			return fmt.Errorf("%w: %s is not a file or a directory", ErrNotOwn, p)
		}
		return nil
	})
	slices.SortFunc(out, func(a, b entry) int { return strings.Compare(a.path, b.path) })
	return out, err
}

// Digest is the digest of the install in dir: SHA-256 over each file's
// slash path and SHA-256, in path order.
func Digest(dir string) (string, error) {
	files, err := walk(dir)
	if err != nil {
		return "", err
	}
	return digest(dir, files)
}

func digest(dir string, files []entry) (string, error) {
	h := sha256.New()
	for _, f := range files {
		if strings.HasPrefix(f.id, "-> ") {
			fmt.Fprintf(h, "%s %s\n", f.path, f.id)
			continue
		}
		sum, err := fileSHA256(filepath.Join(dir, filepath.FromSlash(f.path)))
		if err != nil {
			return "", err
		}
		fmt.Fprintf(h, "%s %s\n", f.path, sum)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
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

// Verify checks the install in dir (the file comment): it must be the
// user's own (ErrNotOwn) and its digest want, or, when want is "", the
// one its stamp recorded at install (ErrModified; no stamp: ErrModified
// too, an install keyplan cannot vouch for).
func Verify(dir, want string) error {
	files, err := walk(dir)
	if err != nil {
		return err
	}
	recorded, ids, _ := readStamp(StampFile(dir))
	if want == "" {
		if want = recorded; want == "" {
			return fmt.Errorf("%w: %s has no stamp of its install (%s)", ErrModified, dir, StampFile(dir))
		}
	}
	if recorded == want && slices.EqualFunc(ids, files, func(a, b entry) bool { return a == b }) {
		return nil // as stamped: nothing changed since it was checked
	}
	got, err := digest(dir, files)
	if err != nil {
		return err
	}
	if got != want {
		return fmt.Errorf("%w: the files in %s have digest %s, the install's is %s", ErrModified, dir, got, want)
	}
	return writeStamp(StampFile(dir), got, files)
}

// Stamp records the install in dir as it is now, with its digest (after
// an install whose files were checked).
func Stamp(dir string) (string, error) {
	files, err := walk(dir)
	if err != nil {
		return "", err
	}
	d, err := digest(dir, files)
	if err != nil {
		return "", err
	}
	return d, writeStamp(StampFile(dir), d, files)
}

func writeStamp(path, d string, files []entry) error {
	var b strings.Builder
	b.WriteString(d + "\n")
	for _, f := range files {
		fmt.Fprintf(&b, "%s\t%s\n", f.path, f.id)
	}
	return atomicfile.WriteFile(path, []byte(b.String()), 0o600)
}

func readStamp(path string) (string, []entry, error) {
	fi, err := os.Lstat(path)
	if err != nil {
		return "", nil, err
	}
	if err := owned(path, fi); err != nil || !fi.Mode().IsRegular() {
		return "", nil, fmt.Errorf("%s: not used", path)
	}
	f, err := os.Open(path)
	if err != nil {
		return "", nil, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	if !sc.Scan() {
		return "", nil, fmt.Errorf("%s: empty", path)
	}
	d := sc.Text()
	var files []entry
	for sc.Scan() {
		p, id, _ := strings.Cut(sc.Text(), "\t")
		files = append(files, entry{path: p, id: id})
	}
	return d, files, sc.Err()
}

// Reuse reports whether the install in dir, found by marker (a file of
// it), can be used as it is: Verify against want. One of the user's own
// whose files changed, or that has no stamp when want is "", is removed
// (false, no error: install it again); one another user owns or may
// write is an error saying so, and is left alone.
func Reuse(dir, marker, want string) (bool, error) {
	if _, err := os.Lstat(marker); err != nil {
		return false, nil
	}
	err := Verify(dir, want)
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, ErrNotOwn):
		return false, fmt.Errorf("the install in %s is not used: %w; remove it, or set %s to a cache directory of your own", dir, err, Env)
	case errors.Is(err, ErrModified):
		if rerr := os.RemoveAll(dir); rerr != nil {
			return false, fmt.Errorf("the install in %s has changed (%w) and could not be removed to install it again: %v", dir, err, rerr)
		}
		_ = os.Remove(StampFile(dir))
		return false, nil
	}
	return false, fmt.Errorf("checking the install in %s: %w", dir, err)
}

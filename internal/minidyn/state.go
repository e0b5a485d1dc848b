package minidyn

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/keyplan/keyplan/internal/minidyn/server"
)

// StateFile is the file in a data directory that holds the tables.
const StateFile = "minidyn-state.json"

// checkDataDir makes dir if it is missing (0700) and refuses one that is a
// symlink, not a directory, or not the user's own (checkOwner).
func checkDataDir(dir string) error {
	fi, err := os.Lstat(dir)
	if errors.Is(err, fs.ErrNotExist) {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return fmt.Errorf("in-process engine: data directory: %w", err)
		}

		fi, err = os.Lstat(dir)
	}

	if err != nil {
		return fmt.Errorf("in-process engine: data directory: %w", err)
	}

	switch {
	case fi.Mode()&fs.ModeSymlink != 0:
		return fmt.Errorf("in-process engine: data directory %s: %w: it is a symlink", dir, ErrUnsafeDataDir)
	case !fi.IsDir():
		return fmt.Errorf("in-process engine: data directory %s: %w: not a directory", dir, ErrUnsafeDataDir)
	}

	if err := checkOwner(fi); err != nil {
		return fmt.Errorf("in-process engine: data directory %s: %w: %s", dir, ErrUnsafeDataDir, err.Error())
	}

	return nil
}

// loadState loads the tables from dir's state file, if there is one.
func loadState(dir string, engine *server.Server) error {
	if err := checkDataDir(dir); err != nil {
		return err
	}

	path := filepath.Join(dir, StateFile)

	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}

	if err != nil {
		return fmt.Errorf("in-process engine: %w", err)
	}

	if !fi.Mode().IsRegular() {
		return fmt.Errorf("in-process engine: %s: %w: the state file is not a regular file", path, ErrUnsafeDataDir)
	}

	data, err := readNoFollow(path)
	if err != nil {
		return fmt.Errorf("in-process engine: %w", err)
	}

	if err := engine.Load(bytes.NewReader(data)); err != nil {
		return fmt.Errorf("in-process engine: %s: %w", path, err)
	}

	return nil
}

// writeState replaces dir's state file with data atomically: a new file
// made with os.CreateTemp in dir, synced, then renamed over the old one
// (a rename replaces a symlink planted at the path, it does not follow
// it).
func writeState(dir string, data []byte) (err error) {
	if err := checkDataDir(dir); err != nil {
		return err
	}

	tmp, err := os.CreateTemp(dir, ".minidyn-state-*.tmp")
	if err != nil {
		return fmt.Errorf("in-process engine: %w", err)
	}

	defer func() {
		if err != nil {
			_ = os.Remove(tmp.Name())
		}
	}()

	if _, err = tmp.Write(data); err == nil {
		err = tmp.Sync()
	}

	if cerr := tmp.Close(); err == nil {
		err = cerr
	}

	if err != nil {
		return fmt.Errorf("in-process engine: writing the state: %w", err)
	}

	if err = os.Rename(tmp.Name(), filepath.Join(dir, StateFile)); err != nil {
		return fmt.Errorf("in-process engine: writing the state: %w", err)
	}

	return nil
}

package minidyn

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/keyplan/keyplan/internal/engine/minidyn/server"
	"github.com/keyplan/keyplan/internal/engine/minidyn/store"
)

// StateFile is the JSON file in which an earlier keyplan kept a data
// directory's tables (rewritten whole every second): at the first start
// on such a directory its tables are imported into the store, and it is
// renamed StateFile+".imported".
const StateFile = "minidyn-state.json"

// openData opens the data directory dir (store.Open: locked for this
// process alone, checked) and makes the engine keep its tables there
// (server.Persist), importing an earlier keyplan's state file.
func openData(dir string, engine *server.Server, log func(string)) (*store.DB, error) {
	db, err := store.Open(dir)
	if err != nil {
		if errors.Is(err, store.ErrUnsafe) {
			err = fmt.Errorf("%w: %w", ErrUnsafeDataDir, err)
		}
		return nil, fmt.Errorf("in-process engine: %w", err)
	}
	if err := engine.Persist(db, log); err != nil {
		_ = db.Close()
		return nil, fmt.Errorf("in-process engine: %s: %w: it is left as it is; move it away to start with no tables", db.Path(), err)
	}
	if err := importState(dir, db, engine, log); err != nil {
		engine.StopPersisting()
		_ = db.Close()
		return nil, fmt.Errorf("in-process engine: %w", err)
	}
	return db, nil
}

// importState imports the tables of an earlier keyplan's state file in
// dir into a store that holds none yet.
func importState(dir string, db *store.DB, engine *server.Server, log func(string)) error {
	path := filepath.Join(dir, StateFile)
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("%s: %w: the state file is not a regular file", path, ErrUnsafeDataDir)
	}
	tables := 0
	if err := db.Each(func(store.Table) error { tables++; return nil }); err != nil {
		return err
	}
	if tables > 0 {
		log(fmt.Sprintf("%s (an earlier keyplan's state file) is left as it is: the tables are kept in %s", path, db.Path()))
		return nil
	}
	f, err := openNoFollow(path)
	if err != nil {
		return err
	}
	defer func() { _ = f.Close() }()
	if err := engine.Import(f); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if err := os.Rename(path, path+".imported"); err != nil {
		return err
	}
	log(fmt.Sprintf("imported the tables of %s (an earlier keyplan's state file, now %s.imported) into %s", path, StateFile, db.Path()))
	return nil
}

package store

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	bolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"
)

// The files of a data directory.
const (
	// File is the bbolt file that holds the tables.
	File = "keyplan-local.db"
	// PIDFile holds the process id of the server that has the directory
	// open, for the refusal of a second one.
	PIDFile = "keyplan-local.pid"
)

// Format is what the file says it is (its "format" record): a file
// without it is not this package's, one with another is refused.
const Format = "keyplan-local-store 1"

// The file's layout: a bucket of keyplan's own records (the format), a
// bucket of tables, each a bucket holding the table's metadata record
// and a bucket of its items by key, and a bucket of on-demand backups by
// ARN (made at the first backup: a file without it has none, and a
// keyplan that does not know it reads the tables alone).
var (
	bucketKeyplan = []byte("keyplan")
	bucketTables  = []byte("tables")
	bucketBackups = []byte("backups")
	bucketItems   = []byte("items")
	keyFormat     = []byte("format")
	keyMeta       = []byte("meta")
)

// Every record (a table's metadata, an item) is stored after a CRC-32C
// of it: bbolt checks its pages' structure, not their bytes, so a
// damaged record is found by its checksum (ErrDamaged), never read as
// another value.
var castagnoli = crc32.MakeTable(crc32.Castagnoli)

func sealed(v []byte) []byte {
	out := make([]byte, 4, 4+len(v))
	binary.BigEndian.PutUint32(out, crc32.Checksum(v, castagnoli))
	return append(out, v...)
}

func unsealed(v []byte) ([]byte, bool) {
	if len(v) < 4 || binary.BigEndian.Uint32(v) != crc32.Checksum(v[4:], castagnoli) {
		return nil, false
	}
	return v[4:], true
}

// lockWait is how long Open waits for another process to let go of the
// file before it says who holds it.
const lockWait = 200 * time.Millisecond

// Kind is what a Change does.
type Kind uint8

// The changes a Commit applies.
const (
	// PutTable writes a table's metadata record (Value), whole, creating
	// the table if it is new.
	PutTable Kind = iota + 1
	// DropTable removes a table with its items.
	DropTable
	// PutItem writes the item at Key (Value), replacing any.
	PutItem
	// DeleteItem removes the item at Key.
	DeleteItem
	// PutBackup writes the backup record at Key (Value, the backup whole:
	// its table's definition and items), replacing any; Table is unused.
	PutBackup
	// DropBackup removes the backup at Key.
	DropBackup
)

// Change is one change to the stored tables.
type Change struct {
	Kind  Kind
	Table string
	Key   []byte
	Value []byte
}

// DB is an open data directory.
type DB struct {
	dir string
	db  *bolt.DB
	pid string
}

// Errors of Open, for errors.Is.
var (
	// ErrInUse: another process (or another server of this one) has the
	// directory open (InUseError says which).
	ErrInUse = errors.New("the data directory is in use")
	// ErrUnsafe: a directory or file another user could have written.
	ErrUnsafe = errors.New("unsafe data directory")
	// ErrDamaged: the file is not a keyplan data file, or not a readable
	// one; it is left as it is.
	ErrDamaged = errors.New("not a readable keyplan data file")
)

// InUseError is Open's error when another process holds the directory.
type InUseError struct {
	Dir string
	// PID is the holder's process id (0: unknown).
	PID int
}

func (e *InUseError) Error() string {
	who := "another process"
	if e.PID > 0 {
		who = "process " + strconv.Itoa(e.PID)
	}
	if e.PID == os.Getpid() {
		who += " (this one: it is open already)"
	}
	return fmt.Sprintf("%s is in use by %s, which has it open (another keyplan local --data %s?): stop that server, or give another directory", e.Dir, who, e.Dir)
}

func (e *InUseError) Is(target error) bool { return target == ErrInUse }

// Open opens the data directory dir (made, 0700, if it is missing): it
// must be a directory of the user's own that no other user may write,
// and no symlink; so must its file. The file is locked for this process
// alone (InUseError, naming the holder's process id, when another has
// it), checked (ErrDamaged: not a keyplan data file, or a damaged one;
// never treated as empty), and made when there is none.
func Open(dir string) (_ *DB, err error) {
	if err := checkDir(dir); err != nil {
		return nil, err
	}
	path := filepath.Join(dir, File)
	if fi, err := os.Lstat(path); err == nil {
		if !fi.Mode().IsRegular() {
			return nil, fmt.Errorf("%s: %w: not a regular file", path, ErrUnsafe)
		}
		if err := checkOwner(fi); err != nil {
			return nil, fmt.Errorf("%s: %w: %v", path, ErrUnsafe, err)
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	defer func() {
		// bbolt reads a damaged file's pages as they are, and may panic on
		// one it cannot make sense of.
		if r := recover(); r != nil {
			err = fmt.Errorf("%s: %w (%v): it is left as it is; move it away to start with no tables", path, ErrDamaged, r)
		}
	}()
	b, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: lockWait, NoFreelistSync: true,
		FreelistType: bolt.FreelistMapType, OpenFile: openNoFollow})
	switch {
	case errors.Is(err, berrors.ErrTimeout):
		return nil, &InUseError{Dir: dir, PID: readPID(dir)}
	case errors.Is(err, berrors.ErrInvalid), errors.Is(err, berrors.ErrVersionMismatch), errors.Is(err, berrors.ErrChecksum):
		return nil, fmt.Errorf("%s: %w (bbolt: %v): it is left as it is; move it away to start with no tables", path, ErrDamaged, err)
	case err != nil:
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	db := &DB{dir: dir, db: b}
	if err := db.check(); err != nil {
		_ = b.Close()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if err := db.writePID(); err != nil {
		_ = b.Close()
		return nil, err
	}
	return db, nil
}

// check makes a new file keyplan's, refuses one that is another's (or
// another format's), and reads every page of it (bbolt's consistency
// check) so a damaged file is refused at start, not at the first read.
func (db *DB) check() error {
	fresh := false
	err := db.db.View(func(tx *bolt.Tx) error {
		k := tx.Bucket(bucketKeyplan)
		if k == nil {
			fresh = true
			_ = tx.ForEach(func([]byte, *bolt.Bucket) error { fresh = false; return nil })
			if !fresh {
				return fmt.Errorf("%w: a bbolt file of another program (no %q record): it is left as it is; move it away to start with no tables", ErrDamaged, keyFormat)
			}
			return nil
		}
		if got := k.Get(keyFormat); !bytes.Equal(got, []byte(Format)) {
			return fmt.Errorf("%w: its format is %q, this keyplan reads %q (a newer keyplan's file?): it is left as it is", ErrDamaged, got, Format)
		}
		if tx.Bucket(bucketTables) == nil {
			return fmt.Errorf("%w: it has no tables bucket", ErrDamaged)
		}
		var errs []error
		for e := range tx.Check() { // read to its end: the check stops only then
			if len(errs) < 3 {
				errs = append(errs, e)
			}
		}
		if len(errs) > 0 {
			return fmt.Errorf("%w: %v: it is left as it is; move it away to start with no tables", ErrDamaged, errors.Join(errs...))
		}
		return nil
	})
	if err != nil || !fresh {
		return err
	}
	return db.db.Update(func(tx *bolt.Tx) error {
		k, err := tx.CreateBucket(bucketKeyplan)
		if err != nil {
			return err
		}
		if err := k.Put(keyFormat, []byte(Format)); err != nil {
			return err
		}
		_, err = tx.CreateBucket(bucketTables)
		return err
	})
}

// Dir is the data directory.
func (db *DB) Dir() string { return db.dir }

// Path is the data file.
func (db *DB) Path() string { return filepath.Join(db.dir, File) }

// Commit applies changes, in order, in one transaction, and returns once
// it is on disk (fsync'd); on an error nothing of them is stored.
func (db *DB) Commit(changes []Change) error {
	return db.db.Update(func(tx *bolt.Tx) error {
		tables := tx.Bucket(bucketTables)
		for _, c := range changes {
			if c.Kind == PutBackup || c.Kind == DropBackup {
				if err := applyBackup(tx, c); err != nil {
					return fmt.Errorf("backup %s: %w", c.Key, err)
				}
				continue
			}
			if err := apply(tables, c); err != nil {
				return fmt.Errorf("table %s: %w", c.Table, err)
			}
		}
		return nil
	})
}

func applyBackup(tx *bolt.Tx, c Change) error {
	if len(c.Key) == 0 {
		return errors.New("a backup without its ARN")
	}
	if c.Kind == DropBackup {
		if b := tx.Bucket(bucketBackups); b != nil {
			return b.Delete(c.Key)
		}
		return nil
	}
	b, err := tx.CreateBucketIfNotExists(bucketBackups)
	if err != nil {
		return err
	}
	return b.Put(c.Key, sealed(c.Value))
}

// Backups calls fn with every stored backup's ARN and record, in ARN
// order, in one read transaction, until fn returns an error (which
// Backups returns).
func (db *DB) Backups(fn func(arn string, record []byte) error) error {
	return db.db.View(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketBackups)
		if b == nil {
			return nil
		}
		return b.ForEach(func(k, v []byte) error {
			if v == nil {
				return fmt.Errorf("%w: a bucket among the backups", ErrDamaged)
			}
			rec, ok := unsealed(v)
			if !ok {
				return fmt.Errorf("%w: the backup %q fails its checksum", ErrDamaged, k)
			}
			return fn(string(k), rec)
		})
	})
}

func apply(tables *bolt.Bucket, c Change) error {
	name := []byte(c.Table)
	if c.Kind == DropTable {
		if err := tables.DeleteBucket(name); err != nil && !errors.Is(err, berrors.ErrBucketNotFound) {
			return err
		}
		return nil
	}
	t, err := tables.CreateBucketIfNotExists(name)
	if err != nil {
		return err
	}
	items, err := t.CreateBucketIfNotExists(bucketItems)
	if err != nil {
		return err
	}
	switch c.Kind {
	case PutTable:
		return t.Put(keyMeta, sealed(c.Value))
	case PutItem:
		return items.Put(c.Key, sealed(c.Value))
	case DeleteItem:
		return items.Delete(c.Key)
	}
	return fmt.Errorf("unknown change kind %d", c.Kind)
}

// Table is one stored table, as Each and ReadTable give it: valid only
// during the call. Every record is checked against its checksum as it is
// read (ErrDamaged).
type Table struct {
	Name  string
	Meta  []byte
	items *bolt.Bucket
}

// Items calls fn with each item's key and record, in key order, until fn
// returns an error (which Items returns).
func (t Table) Items(fn func(key, value []byte) error) error {
	if t.items == nil {
		return nil
	}
	return t.items.ForEach(func(k, v []byte) error {
		if v == nil {
			return fmt.Errorf("%w: table %s: a bucket among its items", ErrDamaged, t.Name)
		}
		item, ok := unsealed(v)
		if !ok {
			return fmt.Errorf("%w: table %s: the item at key %q fails its checksum", ErrDamaged, t.Name, k)
		}
		return fn(k, item)
	})
}

// Each calls fn with every stored table, in name order, in one read
// transaction.
func (db *DB) Each(fn func(Table) error) error {
	return db.db.View(func(tx *bolt.Tx) error {
		return tx.Bucket(bucketTables).ForEach(func(name, v []byte) error {
			t, err := tableOf(tx.Bucket(bucketTables), name)
			if err != nil {
				return err
			}
			return fn(t)
		})
	})
}

// ReadTable calls fn with the stored table name; found is false (and fn
// not called) when there is none.
func (db *DB) ReadTable(name string, fn func(Table) error) (found bool, err error) {
	err = db.db.View(func(tx *bolt.Tx) error {
		if tx.Bucket(bucketTables).Bucket([]byte(name)) == nil {
			return nil
		}
		found = true
		t, err := tableOf(tx.Bucket(bucketTables), []byte(name))
		if err != nil {
			return err
		}
		return fn(t)
	})
	return found, err
}

func tableOf(tables *bolt.Bucket, name []byte) (Table, error) {
	b := tables.Bucket(name)
	if b == nil {
		return Table{}, fmt.Errorf("%w: table %q is a record, not a bucket", ErrDamaged, name)
	}
	meta := b.Get(keyMeta)
	if meta == nil {
		return Table{}, fmt.Errorf("%w: table %q has no metadata record", ErrDamaged, name)
	}
	meta, ok := unsealed(meta)
	if !ok {
		return Table{}, fmt.Errorf("%w: table %q: its metadata record fails its checksum", ErrDamaged, name)
	}
	return Table{Name: string(name), Meta: meta, items: b.Bucket(bucketItems)}, nil
}

// Close closes the file (letting another server open the directory).
func (db *DB) Close() error {
	if b, err := os.ReadFile(filepath.Join(db.dir, PIDFile)); err == nil && strings.TrimSpace(string(b)) == db.pid {
		_ = os.Remove(filepath.Join(db.dir, PIDFile))
	}
	return db.db.Close()
}

// writePID records this process as the directory's holder (for the
// refusal of another), replacing the record of one that has stopped.
func (db *DB) writePID() error {
	db.pid = strconv.Itoa(os.Getpid())
	path := filepath.Join(db.dir, PIDFile)
	tmp := path + "." + db.pid + ".tmp"
	if err := os.WriteFile(tmp, []byte(db.pid+"\n"), 0o600); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		_ = os.Remove(tmp)
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}

// readPID is the process id in dir's PIDFile (0: none, or unreadable).
func readPID(dir string) int {
	b, err := os.ReadFile(filepath.Join(dir, PIDFile))
	if err != nil {
		return 0
	}
	n, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || n <= 0 {
		return 0
	}
	return n
}

// checkDir makes dir if it is missing (0700) and refuses one that is a
// symlink, not a directory, or not the user's own (checkOwner).
func checkDir(dir string) error {
	fi, err := os.Lstat(dir)
	if errors.Is(err, fs.ErrNotExist) {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return fmt.Errorf("data directory: %w", err)
		}
		fi, err = os.Lstat(dir)
	}
	if err != nil {
		return fmt.Errorf("data directory: %w", err)
	}
	switch {
	case fi.Mode()&fs.ModeSymlink != 0:
		return fmt.Errorf("data directory %s: %w: it is a symlink", dir, ErrUnsafe)
	case !fi.IsDir():
		return fmt.Errorf("data directory %s: %w: not a directory", dir, ErrUnsafe)
	}
	if err := checkOwner(fi); err != nil {
		return fmt.Errorf("data directory %s: %w: %v", dir, ErrUnsafe, err)
	}
	return nil
}

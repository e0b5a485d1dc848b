package store

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	bolt "go.etcd.io/bbolt"
)

func mustOpen(t *testing.T, dir string) *DB {
	t.Helper()
	db, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	return db
}

// dump is every stored table and item, as text.
func dump(t *testing.T, db *DB) string {
	t.Helper()
	var b strings.Builder
	err := db.Each(func(tb Table) error {
		fmt.Fprintf(&b, "%s=%s", tb.Name, tb.Meta)
		err := tb.Items(func(k, v []byte) error {
			fmt.Fprintf(&b, " %s:%s", k, v)
			return nil
		})
		b.WriteString(";")
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func TestCommitsOutliveAReopen(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	db := mustOpen(t, dir)
	steps := [][]Change{
		{{Kind: PutTable, Table: "a", Value: []byte("A1")}, {Kind: PutItem, Table: "a", Key: []byte("k1"), Value: []byte("v1")},
			{Kind: PutItem, Table: "a", Key: []byte("k2"), Value: []byte("v2")}},
		{{Kind: PutTable, Table: "b", Value: []byte("B1")}, {Kind: PutItem, Table: "b", Key: []byte("k1"), Value: []byte("w1")},
			{Kind: DeleteItem, Table: "a", Key: []byte("k1")}, {Kind: PutItem, Table: "a", Key: []byte("k2"), Value: []byte("v2'")}},
		// A table dropped and made again in one commit: only the new one's items.
		{{Kind: DropTable, Table: "b"}, {Kind: PutTable, Table: "b", Value: []byte("B2")}, {Kind: PutItem, Table: "b", Key: []byte("k9"), Value: []byte("w9")},
			{Kind: DropTable, Table: "never"}},
	}
	for _, s := range steps {
		if err := db.Commit(s); err != nil {
			t.Fatal(err)
		}
	}
	want := "a=A1 k2:v2';b=B2 k9:w9;"
	if got := dump(t, db); got != want {
		t.Fatalf("stored %q, want %q", got, want)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	db = mustOpen(t, dir)
	defer db.Close()
	if got := dump(t, db); got != want {
		t.Fatalf("after a reopen %q, want %q", got, want)
	}
	found, err := db.ReadTable("b", func(tb Table) error {
		if string(tb.Meta) != "B2" {
			t.Errorf("ReadTable b: %q", tb.Meta)
		}
		return nil
	})
	if !found || err != nil {
		t.Errorf("ReadTable b: %v %v", found, err)
	}
	if found, err := db.ReadTable("gone", func(Table) error { t.Error("called for a missing table"); return nil }); found || err != nil {
		t.Errorf("ReadTable of a missing table: %v %v", found, err)
	}
	if fi, err := os.Stat(filepath.Join(dir, File)); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("the data file: %v %v", fi, err)
	}
	if fi, err := os.Stat(dir); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("the data directory: %v %v", fi, err)
	}
}

// Backups are records of their own by ARN, beside the tables: a file
// without any has none, a dropped one is gone after a reopen, a damaged
// one is refused by its checksum, and the tables read as before.
func TestBackupsOutliveAReopen(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	db := mustOpen(t, dir)
	backups := func() string {
		var b strings.Builder
		if err := db.Backups(func(arn string, rec []byte) error { fmt.Fprintf(&b, "%s=%s;", arn, rec); return nil }); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	if got := backups(); got != "" {
		t.Fatalf("a new file's backups: %q", got)
	}
	for _, s := range [][]Change{
		{{Kind: PutTable, Table: "a", Value: []byte("A")}, {Kind: PutBackup, Key: []byte("arn:1"), Value: []byte("B1")}, {Kind: PutBackup, Key: []byte("arn:2"), Value: []byte("B2")}},
		{{Kind: DropBackup, Key: []byte("arn:1")}, {Kind: DropBackup, Key: []byte("arn:never")}},
	} {
		if err := db.Commit(s); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.Commit([]Change{{Kind: PutBackup, Value: []byte("no ARN")}}); err == nil || !strings.Contains(err.Error(), "without its ARN") {
		t.Fatalf("a backup without its ARN: %v", err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	db = mustOpen(t, dir)
	if got, want := backups(), "arn:2=B2;"; got != want {
		t.Fatalf("backups after a reopen: %q, want %q", got, want)
	}
	if got := dump(t, db); got != "a=A;" {
		t.Fatalf("tables beside the backups: %q", got)
	}
	if err := db.db.Update(func(tx *bolt.Tx) error { return tx.Bucket(bucketBackups).Put([]byte("arn:2"), []byte("xxxxB2")) }); err != nil {
		t.Fatal(err)
	}
	if err := db.Backups(func(string, []byte) error { return nil }); !errors.Is(err, ErrDamaged) {
		t.Fatalf("a damaged backup record: %v, want ErrDamaged", err)
	}
	_ = db.Close()
}

// A commit that fails stores nothing of its changes.
func TestAFailedCommitStoresNothing(t *testing.T) {
	db := mustOpen(t, t.TempDir())
	defer db.Close()
	if err := db.Commit([]Change{{Kind: PutTable, Table: "a", Value: []byte("A")}}); err != nil {
		t.Fatal(err)
	}
	err := db.Commit([]Change{{Kind: PutItem, Table: "a", Key: []byte("k"), Value: []byte("v")}, {Kind: PutItem, Table: "a", Key: nil, Value: []byte("no key")}})
	if err == nil || !strings.Contains(err.Error(), "table a") {
		t.Fatalf("a commit with an empty key: %v", err)
	}
	if got := dump(t, db); got != "a=A;" {
		t.Fatalf("after the failed commit: %q", got)
	}
}

// One process at a time: a second Open (here, or of another process)
// is refused, naming the holder's process id; once it closes, the
// directory opens again.
func TestASecondOpenIsRefusedNamingTheHolder(t *testing.T) {
	dir := t.TempDir()
	db := mustOpen(t, dir)
	_, err := Open(dir)
	var inUse *InUseError
	if !errors.As(err, &inUse) || !errors.Is(err, ErrInUse) || inUse.PID != os.Getpid() ||
		!strings.Contains(err.Error(), fmt.Sprintf("in use by process %d", os.Getpid())) {
		t.Fatalf("a second open: %v", err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, PIDFile)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the process id file outlives Close: %v", err)
	}
	mustOpen(t, dir).Close()
}

// What is not a keyplan data file, or not a whole one, is refused at
// Open and left as it is: never read as no tables.
func TestAForeignOrDamagedFileIsRefused(t *testing.T) {
	good := t.TempDir()
	db := mustOpen(t, good)
	var changes []Change
	changes = append(changes, Change{Kind: PutTable, Table: "t", Value: []byte(`{"meta":1}`)})
	for i := range 2000 {
		changes = append(changes, Change{Kind: PutItem, Table: "t", Key: fmt.Appendf(nil, "key-%05d", i), Value: []byte(strings.Repeat("v", 100))})
	}
	if err := db.Commit(changes); err != nil {
		t.Fatal(err)
	}
	db.Close()
	whole, err := os.ReadFile(filepath.Join(good, File))
	if err != nil {
		t.Fatal(err)
	}

	foreign := filepath.Join(t.TempDir(), "other.db")
	other, err := bolt.Open(foreign, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	other.Update(func(tx *bolt.Tx) error { _, err := tx.CreateBucket([]byte("users")); return err })
	other.Close()
	foreignBytes, _ := os.ReadFile(foreign)

	// A byte of a value changed (bbolt checks no page's bytes: the
	// record's checksum does), and a page zeroed (its structure: bbolt's
	// check).
	flipped := append([]byte(nil), whole...)
	flipped[bytes.Index(flipped, []byte("vvvvvvvvvv"))+5] = 'w'
	zeroed := append([]byte(nil), whole...)
	clear(zeroed[3*4096 : 4*4096])
	newer := t.TempDir()
	db = mustOpen(t, newer)
	db.db.Update(func(tx *bolt.Tx) error {
		return tx.Bucket(bucketKeyplan).Put(keyFormat, []byte("keyplan-local-store 9"))
	})
	db.Close()
	newerBytes, _ := os.ReadFile(filepath.Join(newer, File))

	for _, tc := range []struct {
		name    string
		content []byte
		want    string
	}{
		{"text", []byte("hello, not a database\n"), "not a readable keyplan data file"},
		{"an earlier keyplan's JSON state", []byte(`{"version":1,"tables":[]}`), "not a readable keyplan data file"},
		{"truncated", whole[:len(whole)/3], "not a readable keyplan data file"},
		{"another program's bbolt file", foreignBytes, "a bbolt file of another program"},
		{"a newer format", newerBytes, `its format is "keyplan-local-store 9"`},
		{"a value's byte changed", flipped, `the item at key "key-`},
		{"a zeroed page", zeroed, "not a readable keyplan data file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, File)
			if err := os.WriteFile(path, tc.content, 0o600); err != nil {
				t.Fatal(err)
			}
			db, err := Open(dir)
			if err == nil {
				// The damage of a record is found as it is read.
				err = db.Each(func(tb Table) error { return tb.Items(func(k, v []byte) error { return nil }) })
				db.Close()
				if err == nil {
					t.Fatalf("opened and read whole")
				}
				err = fmt.Errorf("%s: %w", path, err)
			}
			if !errors.Is(err, ErrDamaged) || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), path) {
				t.Fatalf("%v; want ErrDamaged saying %q and naming %s", err, tc.want, path)
			}
			if b, _ := os.ReadFile(path); string(b) != string(tc.content) {
				t.Errorf("the refused file was changed")
			}
		})
	}
}

func TestAnUnsafeDirectoryOrFileIsRefused(t *testing.T) {
	base := t.TempDir()
	victim := filepath.Join(base, "victim")
	os.WriteFile(victim, []byte("precious"), 0o600)
	linked := filepath.Join(base, "linked")
	os.Mkdir(linked, 0o700)
	os.Symlink(victim, filepath.Join(linked, File))
	open := filepath.Join(base, "open")
	os.Mkdir(open, 0o700)
	os.Chmod(open, 0o777)
	link := filepath.Join(base, "link")
	os.Symlink(linked, link)
	plain := filepath.Join(base, "plain")
	os.WriteFile(plain, nil, 0o600)
	for dir, want := range map[string]string{linked: "not a regular file", open: "writable by other users", link: "it is a symlink", plain: "not a directory"} {
		if _, err := Open(dir); !errors.Is(err, ErrUnsafe) || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v; want ErrUnsafe, %q", dir, err, want)
		}
	}
	if b, _ := os.ReadFile(victim); string(b) != "precious" {
		t.Errorf("the symlink's target was written")
	}
}

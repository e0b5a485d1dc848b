package patterns_test

import (
	"bytes"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/keyplan/keyplan/patterns"
)

// readLockFile reads a lock file as keyplan does.
func readLockFile(t *testing.T, path string, data []byte) *patterns.Lock {
	t.Helper()
	l, err := patterns.ReadLock(path, bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// The migration's digest keys each table's bookkeeping (the phases it
// verified, a verifying scan's progress, the ended record): upgrading
// keyplan, recording the upgrade changes in format 2 and advancing must
// leave it as the keyplan that started the migration computed it.
func TestMigrationDigestOutlivesTheUpgrade(t *testing.T) {
	for _, c := range []struct {
		path, digest string
		upgrades     bool
	}{
		// Computed by main at 2c2b568 (patterns.Lock.MigrationDigest, lock
		// format 1), the last keyplan before format 2, from this file.
		{"../testdata/compat/4f20f45/migrating/projecthub.lock.json", "c53e1943e83afd2a304967d17cea482943d4ed0d1e9f5ff2d6b08de3908ab017", false},
		// No keyplan that computed digests read this lock (49c3aed predates
		// them; main from ada1455 refuses its prefix read): the value is
		// the one those keyplans' formula gives for the file, and the
		// request corrected on reading (an upgrade change) does not move it.
		{"../testdata/compat/49c3aed/migrating/projecthub.lock.json", "ac03162678e28184a17a4fa20b1b094bd93fb3050f06d426711ef5ad3536f2f8", true},
	} {
		t.Run(c.path[len("../testdata/compat/"):], func(t *testing.T) {
			data, err := os.ReadFile(c.path)
			if err != nil {
				t.Fatal(err)
			}
			l := readLockFile(t, c.path, data)
			if len(l.Upgrades()) == 0 {
				t.Fatal("no upgrade change for a format 1 lock")
			}
			if c.upgrades && !strings.Contains(changesText(l.Upgrades()), "KP618") {
				t.Fatalf("expected a corrected request among the upgrade changes:\n%s", changesText(l.Upgrades()))
			}
			check := func(when string, l *patterns.Lock) {
				t.Helper()
				if d, err := l.MigrationDigest(); err != nil || d != c.digest {
					t.Errorf("%s: MigrationDigest %s, %v; the tables hold %s", when, d, err, c.digest)
				}
			}
			check("read", l)
			// Rewritten in format 2 (keyplan lock recording the upgrade
			// changes), with environments named (which would be their
			// bookkeeping's key), then read again.
			l.Environments = []string{"staging"}
			b, err := l.Bytes()
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Contains(b, []byte(`"id": "`+c.digest+`"`)) {
				t.Errorf("the format 2 lock does not record the migration's id:\n%s", b)
			}
			l2 := readLockFile(t, c.path, b)
			if len(l2.Upgrades()) != 0 {
				t.Errorf("upgrade changes left after recording them:\n%s", changesText(l2.Upgrades()))
			}
			check("rewritten in format 2", l2)
			phases := len(l2.Migration.Phases)
			for l2.Migration != nil {
				check("at "+l2.Migration.PhaseName(), l2)
				if err := l2.Advance(); err != nil {
					t.Fatal(err)
				}
				if err := readAfter(l2); err != nil {
					t.Fatal(err)
				}
			}
			if e := l2.Ended; e == nil || e.Digest != c.digest || e.Phases != phases {
				t.Errorf("ended: %+v; expected digest %s and %d phases", e, c.digest, phases)
			}
		})
	}
}

// changesText is changes one a line, with their rules.
func changesText(cs []patterns.Change) string {
	var b strings.Builder
	for _, c := range cs {
		b.WriteString("[" + string(c.ID) + "] " + c.Message + "\n")
	}
	return b.String()
}

// readAfter writes a lock and reads it back.
func readAfter(l *patterns.Lock) error {
	b, err := l.Bytes()
	if err != nil {
		return err
	}
	_, err = patterns.ReadLock("lock", bytes.NewReader(b))
	return err
}

// A migration's id is content the lock's digest covers: changed by hand,
// the lock is refused by the digest.
func TestMigrationIDIsDigested(t *testing.T) {
	path := "../testdata/compat/4f20f45/migrating/projecthub.lock.json"
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	b, err := readLockFile(t, path, data).Bytes()
	if err != nil {
		t.Fatal(err)
	}
	forged := bytes.Replace(b, []byte(`"id": "c53e`), []byte(`"id": "d53e`), 1)
	if bytes.Equal(forged, b) {
		t.Fatal("no migration id in the format 2 lock")
	}
	_, err = patterns.ReadLock(path, bytes.NewReader(forged))
	if !errors.Is(err, patterns.ErrDesign) || !strings.Contains(err.Error(), "its digest does not match its content") {
		t.Fatalf("a forged migration id: %v", err)
	}
}

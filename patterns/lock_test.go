package patterns_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/keyplan/keyplan/patterns"
	"github.com/keyplan/keyplan/patterns/model"
)

// lockSeeds are a lock as first written and one in the middle of a
// migration (a new GSI).
func lockSeeds(tb testing.TB) (plain, migrating []byte) {
	src, err := os.ReadFile("../examples/ecommerce.yaml")
	if err != nil {
		tb.Fatal(err)
	}
	// Keyed synthetic, as the shop's committed lock is: a new pattern is
	// a migration with a backfill.
	src = append([]byte("indexKeys: synthetic\n"), src...)
	m, _ := model.Parse("shop.yaml", src)
	d, _ := patterns.Plan(m)
	l := patterns.NewLock(d)
	plain, _ = l.Bytes()
	next := strings.Replace(string(src), "patterns:\n", "patterns:\n  OrdersAt: {query: Order, where: [createdAt]}\n", 1)
	m2, _ := model.Parse("shop.yaml", []byte(next))
	d2, _ := patterns.PlanLocked(m2, l)
	if err := l.Apply(d2, patterns.Compare(l, d2)); err != nil {
		tb.Fatal(err)
	}
	migrating, _ = l.Bytes()
	return plain, migrating
}

// FuzzReadLock: whatever the bytes, ReadLock returns a lock or an
// ErrDesign naming the file, never a panic; a lock it returns writes the
// same bytes back, and everything the construct, the runtime and keyplan
// diff ask of it answers.
func FuzzReadLock(f *testing.F) {
	plain, migrating := lockSeeds(f)
	f.Add(plain)
	f.Add(migrating)
	f.Add([]byte(`{"format":1,"table":"Shop"}`))
	f.Add([]byte(`{"format":1,"table":"Shop","accepted":null,"migration":{"phases":[],"current":-1}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		l, err := patterns.ReadLock("fuzz.lock.json", bytes.NewReader(data))
		if err != nil {
			if !errors.Is(err, patterns.ErrDesign) || !strings.Contains(err.Error(), "fuzz.lock.json") {
				t.Fatalf("error does not match ErrDesign or name the file: %v", err)
			}
			return
		}
		b, err := l.Bytes()
		if err != nil {
			t.Fatal(err)
		}
		again, err := patterns.ReadLock("fuzz.lock.json", bytes.NewReader(b))
		if err != nil {
			t.Fatalf("a lock's own bytes do not read back: %v", err)
		}
		if b2, _ := again.Bytes(); !bytes.Equal(b, b2) {
			t.Fatal("a lock's bytes change on a second round trip")
		}
		l.Deployed()
		for _, p := range l.Latest().Patterns {
			l.ReadsTarget(p.Name)
			l.Access(p.Name)
		}
		patterns.Compare(l, l.Latest())
		l.Accepts(l.Latest())
	})
}

// Locks that cannot be used are refused naming the file and the fault.
func TestReadLockRefuses(t *testing.T) {
	plain, migrating := lockSeeds(t)
	tests := []struct {
		name, content, want string
	}{
		{"truncated", string(plain[:len(plain)/3]), "not valid JSON"},
		{"two values", string(plain) + "{}", "more after the value"},
		{"a newer format", strings.Replace(string(plain), `"format": 2`, `"format": 3`, 1), "lock format 3, written by keyplan (devel); this keyplan ((devel)) reads lock formats 1, 2: upgrade keyplan"},
		{"an unknown format", strings.Replace(string(plain), `"format": 2`, `"format": 0`, 1), "lock format 0; this keyplan reads lock formats 1, 2"},
		{"no digest", strings.Replace(string(plain), `"digest"`, `"digests"`, 1), "a format 2 lock without its digest"},
		{"a format 1 lock with a digest", strings.Replace(string(plain), `"format": 2`, `"format": 1`, 1), "a format 1 lock with a digest"},
		{"another table", strings.Replace(string(plain), `"table": "Shop"`, `"table": "Other"`, 1), `the lock is for table "Other"`},
		{"no accepted design", `{"format": 1, "table": "Shop"}`, "no accepted design"},
		{"an index key edited by hand", strings.Replace(string(plain), `"sortKey": "GSI1SK"`, `"sortKey": "GSI9SK"`, 1), "fuzz.lock.json"},
		{"a phase out of range", strings.Replace(string(migrating), `"current": 0`, `"current": 5`, 1), "migration at phase 5 of 1"},
		{"a phase creating two GSIs", strings.Replace(string(migrating), `"create": [
          "GSI3"
        ]`, `"create": ["GSI3", "GSI4"]`, 1), "migration phase 0"},
	}
	edited := map[string]bool{"another table": true, "an index key edited by hand": true, "a phase out of range": true, "a phase creating two GSIs": true}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.content == string(plain) || tt.content == string(migrating) {
				t.Fatal("the edit changed nothing")
			}
			_, err := patterns.ReadLock("fuzz.lock.json", strings.NewReader(tt.content))
			if err == nil || !errors.Is(err, patterns.ErrDesign) || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), "fuzz.lock.json") {
				t.Errorf("ReadLock: %v, want an ErrDesign naming the file and %q", err, tt.want)
			}
			// A value edited in a lock keyplan wrote is caught by its
			// digest first, whatever else is wrong with it.
			if edited[tt.name] && (err == nil || !strings.Contains(err.Error(), "its digest does not match its content")) {
				t.Errorf("ReadLock: %v, want the digest to refuse it", err)
			}
		})
	}
}

// A lock records a design's JSON form without the fields tagged
// lock:"-" (findings, cost, bounds, source), every other field in the
// design's order: the committed example locks are what keyplan writes.
func TestLockRecordsTheDeployedFields(t *testing.T) {
	plain, migrating := lockSeeds(t)
	for _, b := range [][]byte{plain, migrating} {
		for _, k := range []string{`"source"`, `"lowerBound"`, `"lowerBounds"`, `"diagnostics"`, `"cost"`} {
			if bytes.Contains(b, []byte(k+":")) {
				t.Errorf("the lock records %s:\n%.300s", k, b)
			}
		}
		for _, k := range []string{`"format"`, `"table"`, `"explicit"`, `"partitionKey"`, `"sortKey"`, `"indexes"`, `"entities"`, `"patterns"`, `"model"`} {
			if !bytes.Contains(b, []byte(k+":")) {
				t.Errorf("the lock does not record %s", k)
			}
		}
	}
	for _, f := range []string{"ecommerce", "leaderboard", "merchant-orders"} {
		want, err := os.ReadFile("../examples/" + f + ".lock.json")
		if err != nil {
			t.Fatal(err)
		}
		l, err := patterns.ReadLock(f+".lock.json", bytes.NewReader(want))
		if err != nil {
			t.Fatal(err)
		}
		if got, _ := l.Bytes(); !bytes.Equal(got, want) {
			t.Errorf("examples/%s.lock.json read and written again differs", f)
		}
	}
}

// WriteFile writes the lock's bytes and leaves no temporary file; a
// phase says what it deploys.
func TestLockWriteFileAndPhaseString(t *testing.T) {
	_, migrating := lockSeeds(t)
	l, err := patterns.ReadLock("shop.lock.json", bytes.NewReader(migrating))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	path := dir + "/shop.lock.json"
	if err := l.WriteFile(path); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(path); !bytes.Equal(got, migrating) {
		t.Errorf("WriteFile wrote other bytes than Bytes")
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("WriteFile left %d files, want the lock alone", len(entries))
	}
	var texts []string
	for _, p := range l.Migration.Phases {
		texts = append(texts, p.String())
	}
	if got := strings.Join(texts, " | "); !strings.Contains(got, "create GSI") || !strings.Contains(got, "backfill Order") {
		t.Errorf("phases say %q", got)
	}
	if got := (&patterns.Phase{TTL: ""}).String(); got != "TTL off" {
		t.Errorf("an empty phase says %q, want TTL off", got)
	}
}

// The digest covers the lock's content, not its layout: the lock
// re-indented, its members reordered, or its strings written with other
// JSON escapes, still holds it; the same lock with one value changed
// does not.
func TestDigestIsOfTheContent(t *testing.T) {
	plain, _ := lockSeeds(t)
	var doc map[string]any
	if err := json.Unmarshal(plain, &doc); err != nil {
		t.Fatal(err)
	}
	// json.Marshal of a map sorts the members (another order than the
	// lock's) and escapes < > & as \u003c \u003e \u0026.
	compact, _ := json.Marshal(doc)
	var wide bytes.Buffer
	json.Indent(&wide, compact, "", "\t\t")
	for name, b := range map[string][]byte{"reordered, compact": compact, "re-indented": wide.Bytes()} {
		l, err := patterns.ReadLock("shop.lock.json", bytes.NewReader(b))
		if err != nil || l.Check() != nil || len(l.Upgrades()) != 0 || l.Modified() {
			t.Errorf("%s: %v, upgrades %v, modified %v", name, err, l.Upgrades(), l != nil && l.Modified())
		}
	}
	edited := bytes.Replace(plain, []byte(`"maxLength": 200`), []byte(`"maxLength": 201`), 1)
	if bytes.Equal(edited, plain) {
		t.Fatal("the edit changed nothing")
	}
	if _, err := patterns.ReadLock("shop.lock.json", bytes.NewReader(edited)); err == nil || !strings.Contains(err.Error(), "its digest does not match its content") {
		t.Errorf("an attribute's length edited: %v", err)
	}
}

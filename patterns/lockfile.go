package patterns

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/keyplan/keyplan/internal/atomicfile"
	"github.com/keyplan/keyplan/patterns/model"
)

// The lock file: its JSON form, the keyplan version that wrote it and the
// digest of its content (format 2), and how each format is read.
//
// The digest is "sha256:" and the hex SHA-256 of the lock's JSON in
// canonical form without its top-level digest member: every object's
// members sorted by name, no white space, each string and number as
// encoding/json writes it (a number as written in the file). Re-indenting
// the file or reordering its members keeps it; changing any value, adding
// or removing any member does not. It tells a lock keyplan wrote from one
// edited by hand or merged badly, as go.sum's hashes tell a module's
// content; it is a checksum, not a signature (whoever edits the file can
// compute it again).

// DigestPrefix starts a lock's digest: the hash it is.
const DigestPrefix = "sha256:"

// NewLock records a design as deployed.
func NewLock(d *Design) *Lock { return &Lock{Format: LockFormat, Table: d.Table, Accepted: d} }

// canonical is a JSON document in canonical form, without the top-level
// members named drop: it must be one JSON object.
func canonical(data []byte, drop ...string) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var doc map[string]any
	if err := dec.Decode(&doc); err != nil {
		return nil, fmt.Errorf("not valid JSON: %v", err)
	}
	if doc == nil {
		return nil, errors.New("not a JSON object")
	}
	for _, k := range drop {
		delete(doc, k)
	}
	return json.Marshal(doc) // map members sorted by name, numbers as read
}

// digestOf is the digest of a lock file's content (its digest member
// left out).
func digestOf(data []byte) (string, error) {
	c, err := canonical(data, "digest")
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(c)
	return DigestPrefix + hex.EncodeToString(sum[:]), nil
}

// content is a lock file's content for comparing two of them: canonical,
// without the version that wrote it and the digest.
func content(data []byte) ([]byte, error) { return canonical(data, "keyplan", "digest") }

// marshal writes the lock's JSON form, recording version as the keyplan
// that wrote it and the digest ("": left out).
func (l *Lock) marshal(version, digest string) ([]byte, error) {
	type migration struct {
		Target   lockedDesign `json:"target"`
		Phases   []*Phase     `json:"phases"`
		Current  int          `json:"current"`
		Verified []string     `json:"verified,omitempty"`
		ID       string       `json:"id"`
	}
	out := struct {
		Format       int          `json:"format"`
		Keyplan      string       `json:"keyplan"`
		Digest       string       `json:"digest,omitempty"`
		Table        string       `json:"table"`
		Environments []string     `json:"environments,omitempty"`
		Accepted     lockedDesign `json:"accepted"`
		Migration    *migration   `json:"migration,omitempty"`
		Cleanup      *Cleanup     `json:"cleanup,omitempty"`
		Ended        *Ended       `json:"ended,omitempty"`
		Adopted      *Adopted     `json:"adopted,omitempty"`
	}{Format: LockFormat, Keyplan: version, Digest: digest, Table: l.Table, Environments: l.Environments, Accepted: lockedDesign{l.Accepted}, Cleanup: l.Cleanup, Ended: l.Ended, Adopted: l.Adopted}
	if m := l.Migration; m != nil {
		id, err := l.MigrationDigest()
		if err != nil {
			return nil, err
		}
		out.Migration = &migration{Target: lockedDesign{m.Target}, Phases: m.Phases, Current: m.Current, Verified: m.Verified, ID: id}
	}
	return json.Marshal(out)
}

// marshalFormat1 writes the lock as lock format 1 did (no keyplan
// version, no digest, no migration id): what MigrationDigest hashes.
func (l *Lock) marshalFormat1() ([]byte, error) {
	type migration struct {
		Target   lockedDesign `json:"target"`
		Phases   []*Phase     `json:"phases"`
		Current  int          `json:"current"`
		Verified []string     `json:"verified,omitempty"`
	}
	out := struct {
		Format       int          `json:"format"`
		Table        string       `json:"table"`
		Environments []string     `json:"environments,omitempty"`
		Accepted     lockedDesign `json:"accepted"`
		Migration    *migration   `json:"migration,omitempty"`
		Cleanup      *Cleanup     `json:"cleanup,omitempty"`
		Ended        *Ended       `json:"ended,omitempty"`
	}{Format: 1, Table: l.Table, Environments: l.Environments, Accepted: lockedDesign{l.Accepted}, Cleanup: l.Cleanup, Ended: l.Ended}
	if m := l.Migration; m != nil {
		out.Migration = &migration{Target: lockedDesign{m.Target}, Phases: m.Phases, Current: m.Current, Verified: m.Verified}
	}
	return json.Marshal(out)
}

// member is one member of a JSON object, in the order it was written.
type member struct {
	name  string
	value json.RawMessage
}

// members reads a JSON object's members in order.
func members(data []byte) ([]member, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, errors.New("not a JSON object")
	}
	var out []member
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			return nil, err
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		out = append(out, member{k.(string), v})
	}
	return out, nil
}

// object writes members as a JSON object, in their order, leaving out
// those drop names and replacing the values set names.
func object(ms []member, set map[string]json.RawMessage, drop ...string) []byte {
	out := []byte{'{'}
	for _, m := range ms {
		if slices.Contains(drop, m.name) {
			continue
		}
		if v, ok := set[m.name]; ok {
			m.value = v
		}
		if len(out) > 1 {
			out = append(out, ',')
		}
		k, _ := json.Marshal(m.name)
		out = append(append(append(out, k...), ':'), m.value...)
	}
	return append(out, '}')
}

// migrationDigestOf is MigrationDigest computed from a lock's JSON (a
// file as written, or marshalFormat1's): the hex SHA-256 of the lock as
// a format 1 keyplan's Lock.Bytes wrote it (its members in their order,
// indented by two spaces, a newline) at format 1, without environments,
// ended, the keyplan version, the digest and the migration's id, its
// migration at phase 0 with no environment verified. It is the value
// keyplan migrate keyed each table's bookkeeping by before lock format 2
// recorded it (migration.id), so the tables' records of a migration an
// earlier keyplan started still count.
func migrationDigestOf(data []byte) (string, error) {
	top, err := members(data)
	if err != nil {
		return "", err
	}
	i := slices.IndexFunc(top, func(m member) bool { return m.name == "migration" })
	if i < 0 || string(top[i].value) == "null" {
		return "", errors.New("no migration in progress")
	}
	mg, err := members(top[i].value)
	if err != nil {
		return "", fmt.Errorf("migration: %v", err)
	}
	top[i].value = object(mg, map[string]json.RawMessage{"current": json.RawMessage("0")}, "verified", "id")
	var b bytes.Buffer
	if err := json.Compact(&b, object(top, map[string]json.RawMessage{"format": json.RawMessage("1")}, "environments", "ended", "keyplan", "digest")); err != nil {
		return "", err
	}
	var out bytes.Buffer
	if err := json.Indent(&out, b.Bytes(), "", "  "); err != nil {
		return "", err
	}
	out.WriteByte('\n')
	sum := sha256.Sum256(out.Bytes())
	return hex.EncodeToString(sum[:]), nil
}

// MarshalJSON writes the lock's deterministic form, in LockFormat: the
// version of keyplan that wrote its content (the one recorded while the
// content is the file's, this keyplan's otherwise) and its digest.
func (l *Lock) MarshalJSON() ([]byte, error) {
	version := l.Keyplan
	body, err := l.marshal(version, "")
	if err != nil {
		return nil, err
	}
	if l.changed(body) {
		version = KeyplanVersion()
		if body, err = l.marshal(version, ""); err != nil {
			return nil, err
		}
	}
	sum, err := digestOf(body)
	if err != nil {
		return nil, err
	}
	return l.marshal(version, sum)
}

// Modified reports whether the lock holds other content than the file it
// was read from (apart from the version that wrote it and the digest):
// an accepted change, an upgrade change recorded, a phase advanced, a
// file of an earlier format. True for a lock made in memory. keyplan
// lock writes the file only then.
func (l *Lock) Modified() bool {
	b, err := l.marshal(l.Keyplan, "")
	return err != nil || l.changed(b)
}

// changed reports whether lock JSON b holds other content than the file
// the lock was read from.
func (l *Lock) changed(b []byte) bool {
	if l.file == nil {
		return true
	}
	c, err := content(b)
	return err != nil || !bytes.Equal(c, l.file)
}

// Bytes is the lock file's content: indented JSON and a newline.
func (l *Lock) Bytes() ([]byte, error) {
	b, err := json.Marshal(l)
	if err != nil {
		return nil, err
	}
	var out bytes.Buffer
	if err := json.Indent(&out, b, "", "  "); err != nil {
		return nil, err
	}
	out.WriteByte('\n')
	return out.Bytes(), nil
}

// WriteFile replaces a lock file with the lock's bytes atomically (a
// crash leaves the old file, never half of one; atomicfile.WriteFile).
// The lock then reads as that file would.
func (l *Lock) WriteFile(path string) error {
	b, err := l.Bytes()
	if err != nil {
		return err
	}
	if err := atomicfile.WriteFile(path, b, 0o644); err != nil {
		return err
	}
	var in struct {
		Keyplan string `json:"keyplan"`
	}
	if json.Unmarshal(b, &in) == nil {
		l.Keyplan = in.Keyplan
	}
	l.file, _ = content(b)
	l.Format, l.verified = LockFormat, true
	return nil
}

// lockFile is a lock file as read, before its designs are decoded.
type lockFile struct {
	Format       int             `json:"format"`
	Keyplan      string          `json:"keyplan"`
	Digest       string          `json:"digest"`
	Table        string          `json:"table"`
	Environments []string        `json:"environments"`
	Accepted     json.RawMessage `json:"accepted"`
	Migration    *struct {
		Target   json.RawMessage `json:"target"`
		Phases   []*Phase        `json:"phases"`
		Current  int             `json:"current"`
		Verified []string        `json:"verified"`
		ID       string          `json:"id"`
	} `json:"migration"`
	Cleanup *cleanupFile `json:"cleanup"`
	Ended   *Ended       `json:"ended"`
	Adopted *Adopted     `json:"adopted"`
}

// checkFormat refuses a lock format this keyplan does not read, naming
// the keyplan that wrote it when the lock says.
func (in *lockFile) checkFormat() error {
	read, _ := LockFormats()
	reads := fmt.Sprint(read)
	reads = strings.ReplaceAll(strings.Trim(reads, "[]"), " ", ", ")
	switch {
	case in.Format > LockFormat:
		by := "a newer keyplan"
		if in.Keyplan != "" {
			by = "keyplan " + model.Printable(in.Keyplan)
		}
		return fmt.Errorf("lock format %d, written by %s; this keyplan (%s) reads lock formats %s: upgrade keyplan to read it", in.Format, by, KeyplanVersion(), reads)
	case !readsLockFormat(in.Format):
		return fmt.Errorf("lock format %d; this keyplan reads lock formats %s (docs/compatibility.md)", in.Format, reads)
	case in.Format == 1 && (in.Digest != "" || in.Keyplan != ""):
		return errors.New("a format 1 lock with a digest or a keyplan version, which only format 2 records: edited by hand? Restore it from version control")
	case in.Format >= 2 && !strings.HasPrefix(in.Digest, DigestPrefix):
		return fmt.Errorf("a format %d lock without its digest (%q): edited by hand? Restore it from version control", in.Format, model.Printable(in.Digest))
	}
	return nil
}

// ReadLock reads a lock file, naming file in errors. It refuses what
// cannot be used (errors match ErrDesign): a truncated file, a format
// this keyplan does not read, designs that do not hold together, and a
// lock edited by hand: a format 2 lock whose digest does not match its
// content, or a format 1 lock (which has no digest) whose designs do not
// follow from their keys (Check). What this keyplan derives otherwise
// than the one that wrote the lock is read as it derives it (a read's
// request, a migration's backfills) and listed as an upgrade change
// (Upgrades): it is never refused.
func ReadLock(file string, r io.Reader) (*Lock, error) {
	data, err := io.ReadAll(io.LimitReader(r, maxDesignBytes+1))
	if err != nil {
		return nil, &DesignError{file, err.Error()}
	}
	if len(data) > maxDesignBytes {
		return nil, &DesignError{file, fmt.Sprintf("larger than %d MB; a lock is far smaller", maxDesignBytes>>20)}
	}
	var in lockFile
	if err := strictJSON(data, &in); err != nil {
		return nil, &DesignError{file, err.Error()}
	}
	if err := in.checkFormat(); err != nil {
		return nil, &DesignError{file, err.Error()}
	}
	var tampered error
	if in.Format >= 2 {
		sum, err := digestOf(data)
		if err != nil {
			return nil, &DesignError{file, err.Error()}
		}
		if sum != in.Digest {
			tampered = fmt.Errorf("its digest does not match its content (%s recorded, %s computed): the lock was edited by hand or merged badly; restore it from version control (keyplan writes locks: never edit or merge one by hand)", model.Printable(in.Digest), sum)
		}
	}
	l, err := in.read(file)
	if err != nil {
		if tampered != nil {
			return nil, &LockError{DesignError{file, tampered.Error() + "; and it is unusable: " + err.Error()}, false}
		}
		return nil, err
	}
	l.file, _ = content(data)
	if mg := l.Migration; mg != nil && tampered == nil {
		// The migration's identity as the file has it, before any
		// upgrade change: the tables' bookkeeping is keyed by it.
		if mg.id = in.Migration.ID; mg.id == "" {
			if mg.id, err = migrationDigestOf(data); err != nil {
				return nil, &DesignError{file, err.Error()}
			}
		}
	}
	if tampered != nil {
		// Say where, if re-deriving the lock can tell.
		msg := tampered.Error()
		if err := l.rederives(); err != nil {
			msg += "; where it disagrees with what keyplan derives: " + strings.ReplaceAll(err.Error(), "\n", "; ")
		}
		return nil, &LockError{DesignError{file, msg}, false}
	}
	l.verified = in.Format >= 2
	l.upgrade()
	return l, nil
}

// read decodes a lock file's designs, migration and cleanup, checking
// that they hold together.
func (in *lockFile) read(file string) (*Lock, error) {
	if len(in.Accepted) == 0 || string(in.Accepted) == "null" {
		return nil, &DesignError{file, "no accepted design: a lock records the design the table is deployed with"}
	}
	l := &Lock{Format: in.Format, Keyplan: in.Keyplan, Table: in.Table, Environments: in.Environments, Ended: in.Ended, Adopted: in.Adopted, source: file}
	if e := l.Ended; e != nil && (len(e.Digest) != 64 || strings.Trim(e.Digest, "0123456789abcdef") != "" || e.Phases < 1) {
		return nil, &DesignError{file, fmt.Sprintf("ended: expected the digest (64 hex digits) and phase count (at least 1) of the migration that ended, found %q and %d", e.Digest, e.Phases)}
	}
	var err error
	if l.Accepted, err = decodeDesign(file+" (accepted)", in.Accepted); err != nil {
		return nil, err
	}
	if l.Accepted.Table != l.Table {
		return nil, &DesignError{file, fmt.Sprintf("the lock is for table %q but its accepted design is for %q", l.Table, l.Accepted.Table)}
	}
	if mg := in.Migration; mg != nil {
		if len(mg.Target) == 0 || string(mg.Target) == "null" {
			return nil, &DesignError{file, "a migration without a target design"}
		}
		t, err := decodeDesign(file+" (migration target)", mg.Target)
		if err != nil {
			return nil, err
		}
		if t.Table != l.Table {
			return nil, &DesignError{file, fmt.Sprintf("the migration's target is for table %q, not %q", t.Table, l.Table)}
		}
		switch {
		case len(mg.Phases) == 0:
			return nil, &DesignError{file, "a migration with no phase"}
		case mg.Current < 0 || mg.Current >= len(mg.Phases):
			return nil, &DesignError{file, fmt.Sprintf("migration at phase %d of %d: expected 0 to %d (past the last phase, the target is accepted and the migration over)", mg.Current, len(mg.Phases), len(mg.Phases)-1)}
		}
		for i, p := range mg.Phases {
			if err := p.valid(); err != nil {
				return nil, &DesignError{file, fmt.Sprintf("migration phase %d: %v", i, err)}
			}
		}
		if mg.ID != "" && (len(mg.ID) != 64 || strings.Trim(mg.ID, "0123456789abcdef") != "") {
			return nil, &DesignError{file, fmt.Sprintf("migration id: expected the migration's digest (64 hex digits), found %q", model.Printable(mg.ID))}
		}
		l.Migration = &Migration{Target: t, Phases: mg.Phases, Current: mg.Current, Verified: mg.Verified}
	}
	if l.Adopted != nil {
		if err := l.Adopted.valid(); err != nil {
			return nil, &DesignError{file, err.Error()}
		}
	}
	if err := l.checkEnvironments(); err != nil {
		return nil, &DesignError{file, err.Error()}
	}
	if in.Cleanup != nil {
		if l.Cleanup, err = in.Cleanup.read(file); err != nil {
			return nil, err
		}
		if err := l.Cleanup.valid(l.Accepted); err != nil {
			return nil, &DesignError{file, err.Error()}
		}
		for _, e := range l.Cleanup.Verified {
			if !slices.Contains(l.Environments, e) {
				return nil, &DesignError{file, fmt.Sprintf("the cleanup is verified by %q, which the lock does not name", e)}
			}
		}
	}
	return l, nil
}

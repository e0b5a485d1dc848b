package patterns

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"

	"github.com/keyplan/keyplan/patterns/model"
)

// A lock records the design a table is deployed with, beside the model
// (shop.yaml → shop.lock.json), committed like go.sum. During a change it
// also holds the target design, the phases that roll it out (each one
// deploy: at most one GSI created or deleted, then a backfill) and the
// phase the table is at. Its bytes are deterministic: the same state
// always writes the same file.
type Lock struct {
	// Format is the format of the file the lock was read from (LockFormat
	// for a lock made in memory); a lock is always written in LockFormat.
	Format int `json:"format"`
	// Keyplan is the version of keyplan that wrote the lock's content
	// (KeyplanVersion; "" for a format 1 lock, which did not record it,
	// and for one made in memory). Bytes keeps it while the content is
	// the file's, and records this keyplan's once it is not.
	Keyplan string `json:"keyplan,omitempty"`
	Table   string `json:"table"`
	// Accepted is the design the table is deployed with (or is being
	// migrated from).
	Accepted *Design `json:"accepted"`
	// Migration is present while a change is rolled out.
	Migration *Migration `json:"migration,omitempty"`
	// Environments name the tables one committed lock deploys to, in the
	// order each phase goes through them (staging before prod); none:
	// one table. A migration advances only when each has verified the
	// phase (Verify).
	Environments []string `json:"environments,omitempty"`
	// Cleanup is present once a migration has ended, until keyplan
	// migrate has removed what it left in the items (Cleanup).
	Cleanup *Cleanup `json:"cleanup,omitempty"`
	// Ended names the last migration that ended, when the lock names
	// environments: each environment's next run checks that its own
	// table recorded every phase of it (environments.go). An earlier
	// lock has none.
	Ended *Ended `json:"ended,omitempty"`
	// Adopted is present when keyplan import table wrote the lock of a
	// table it took over: the table's settings then, and what it has that
	// the design cannot hold (CompareLive compares them).
	Adopted *Adopted `json:"adopted,omitempty"`

	// source is the file the lock was read from, for messages.
	source string
	// file is the content of that file (content: canonical, without its
	// keyplan version and digest); nil for a lock made in memory.
	file []byte
	// verified: the file is format 2 or later and its digest holds, so
	// keyplan wrote it as it is (Check then re-derives nothing).
	verified bool
	// upgrades are what this keyplan derives otherwise than the one that
	// wrote the lock (upgrade changes: Upgrades).
	upgrades []Change
}

// Migration is a change in progress: the target design and its phases.
type Migration struct {
	Target *Design  `json:"target"`
	Phases []*Phase `json:"phases"`
	// Current is the phase to deploy next (or deployed and not yet
	// backfilled): every phase before it is deployed and backfilled.
	Current int `json:"current"`
	// Verified are the environments (Lock.Environments) that have
	// verified the current phase, waiting for the others.
	Verified []string `json:"verified,omitempty"`

	// id is the migration's identity (Lock.MigrationDigest), fixed when
	// it begins: lock format 2 records it (migration.id); an earlier
	// lock's is computed from its file as read.
	id string
}

// Phase is one deploy of a migration.
type Phase struct {
	// Create and Delete name the GSIs the phase adds and drops (at most
	// one in all: DynamoDB and CloudFormation take one per update).
	Create []string `json:"create"`
	Delete []string `json:"delete"`
	// Backfill names the entities whose existing items need new or
	// rewritten attributes once the phase is deployed.
	Backfill []string `json:"backfill"`
	// TTL is the table's time-to-live attribute after the phase ("" for
	// none).
	TTL string `json:"ttl"`
	// Indexes are the table's GSIs after the phase.
	Indexes []*PhaseIndex `json:"indexes"`
}

// PhaseIndex is one GSI as a phase deploys it: keyed PK/SK (synthetic),
// or on PartitionKeys/SortKeys of the types KeyTypes gives (native).
type PhaseIndex struct {
	Name             string            `json:"name"`
	PK               string            `json:"pk,omitempty"`
	SK               string            `json:"sk,omitempty"`
	PartitionKeys    []string          `json:"partitionKeys,omitempty"`
	SortKeys         []string          `json:"sortKeys,omitempty"`
	KeyTypes         map[string]string `json:"keyTypes,omitempty"`
	Projection       Projection        `json:"projection"`
	NonKeyAttributes []string          `json:"nonKeyAttributes,omitempty"`
}

// Latest is the design the lock leads to: the migration's target, or the
// accepted design.
func (l *Lock) Latest() *Design {
	if l.Migration != nil {
		return l.Migration.Target
	}
	return l.Accepted
}

// LockPath is where a model's lock lives: beside it, the model's name with
// .lock.json (shop.yaml → shop.lock.json).
func LockPath(model string) string {
	ext := filepath.Ext(model)
	return strings.TrimSuffix(model, ext) + ".lock.json"
}

// unlocked are the JSON names of the Design fields a lock does not record
// (tagged lock:"-"): findings, cost, bounds, the source file.
var unlocked = func() map[string]bool {
	out := map[string]bool{}
	t := reflect.TypeFor[Design]()
	for i := range t.NumField() {
		if f := t.Field(i); f.Tag.Get("lock") == "-" {
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			out[name] = true
		}
	}
	return out
}()

// lockedDesign is a design as a lock records it: its JSON form (with its
// model) without the unlocked fields, in the same order.
type lockedDesign struct{ d *Design }

// MarshalJSON writes the design's JSON form without its unlocked fields.
func (ld lockedDesign) MarshalJSON() ([]byte, error) {
	if ld.d == nil {
		return []byte("null"), nil
	}
	b, err := ld.d.MarshalJSON()
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	if _, err := dec.Token(); err != nil { // {
		return nil, err
	}
	out := []byte{'{'}
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return nil, err
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		if unlocked[key.(string)] {
			continue
		}
		if len(out) > 1 {
			out = append(out, ',')
		}
		k, _ := json.Marshal(key)
		out = append(append(append(out, k...), ':'), v...)
	}
	return append(out, '}'), nil
}

// valid checks a phase read from a file.
func (p *Phase) valid() error {
	if p == nil {
		return errors.New("empty")
	}
	if len(p.Create)+len(p.Delete) > 1 {
		return fmt.Errorf("creates %v and deletes %v: a phase creates or deletes one GSI at most", p.Create, p.Delete)
	}
	names := map[string]bool{}
	for _, ix := range p.Indexes {
		if ix == nil || !model.ValidTableName(ix.Name) || names[ix.Name] {
			return fmt.Errorf("index %v: expected a unique valid name", ix)
		}
		if len(ix.PartitionKeys)+len(ix.SortKeys) > 0 {
			if err := ix.validNative(); err != nil {
				return err
			}
		} else if pk, sk := model.IndexKeyNames(ix.Name); ix.PK != pk || ix.SK != sk {
			return fmt.Errorf("index %s keyed %s/%s, expected %s/%s", ix.Name, ix.PK, ix.SK, pk, sk)
		}
		if !slices.Contains([]Projection{ProjectAll, ProjectInclude, ProjectKeysOnly}, ix.Projection) {
			return fmt.Errorf("index %s: projection %q", ix.Name, ix.Projection)
		}
		names[ix.Name] = true
	}
	for _, c := range p.Create {
		if !names[c] {
			return fmt.Errorf("creates %s, which is not among its indexes", c)
		}
	}
	for _, d := range p.Delete {
		if names[d] {
			return fmt.Errorf("deletes %s, which is still among its indexes", d)
		}
	}
	return nil
}

// LoadLock reads a model's lock (LockPath), if there is one: (nil, nil)
// when there is none.
func LoadLock(path string) (*Lock, error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, &DesignError{path, err.Error()}
	}
	defer f.Close()
	return ReadLock(path, f)
}

// Advance records that the migration's current phase is deployed and
// backfilled: the next phase is current, and after the last the target is
// accepted and the migration ends.
func (l *Lock) Advance() error {
	mg := l.Migration
	if mg == nil {
		return errors.New("no migration in progress")
	}
	if mg.Current+1 >= len(mg.Phases) && len(l.Environments) > 0 {
		d, err := l.MigrationDigest()
		if err != nil {
			return err
		}
		l.Ended = &Ended{Digest: d, Phases: len(mg.Phases)}
	}
	mg.Current++
	mg.Verified = nil
	if mg.Current >= len(mg.Phases) {
		l.Cleanup = l.Cleanup.ended(l.Accepted, mg.Target)
		l.Accepted, l.Migration = mg.Target, nil
	}
	return nil
}

// Apply records a plan in the lock, as keyplan lock does: a change that
// deploys in one step is accepted at once, one that needs phases starts a
// migration. It refuses (and leaves the lock as it was) a diff with
// errors, or any change while a migration is in progress.
func (l *Lock) Apply(to *Design, df *Diff) error {
	if errs := df.Errors(); len(errs) > 0 {
		var msgs []string
		for _, c := range errs {
			msgs = append(msgs, fmt.Sprintf("[%s] %s: %s", c.ID, c.Subject, c.Message))
		}
		return fmt.Errorf("refused: %s", strings.Join(msgs, "; "))
	}
	if l.Migration != nil || sameDesign(l.Accepted, to) {
		return nil // the same target: nothing to record
	}
	if len(df.Phases) <= 1 && !df.Backfills() {
		// A GSI deleted in one deploy leaves its keys in the items.
		l.Cleanup = l.Cleanup.ended(l.Accepted, to)
		l.Accepted = to
		return nil
	}
	l.Migration = &Migration{Target: to, Phases: df.Phases}
	return nil
}

// ReadsTarget reports whether, at the migration's current phase, a
// pattern is read with the target design's plan: the index it reads
// exists (its phase is deployed) and is complete (created in an earlier
// phase, whose backfill is done, or there before), and no entity it reads
// has a backfill still to come. Otherwise the accepted design's plan
// serves it. Without a migration the accepted design is the only one.
func (l *Lock) ReadsTarget(pattern string) bool {
	mg := l.Migration
	if mg == nil {
		return false
	}
	tp := mg.Target.Pattern(pattern)
	if tp == nil || !tp.Served() {
		return false
	}
	k := min(mg.Current, len(mg.Phases)-1)
	for j := k; j < len(mg.Phases); j++ {
		for _, e := range tp.Entities {
			if slices.Contains(mg.Phases[j].Backfill, e) {
				return false
			}
		}
	}
	if tp.Index == model.BaseIndex {
		return true
	}
	if !slices.ContainsFunc(mg.Phases[k].Indexes, func(ix *PhaseIndex) bool { return ix.Name == tp.Index }) {
		return false
	}
	if l.Accepted.Index(tp.Index) != nil {
		return true
	}
	for j := range k {
		if slices.Contains(mg.Phases[j].Create, tp.Index) {
			return true
		}
	}
	return false
}

// Deployed is what the table has at the lock's current phase: its GSIs
// and its TTL attribute.
func (l *Lock) Deployed() ([]*PhaseIndex, string) {
	if mg := l.Migration; mg != nil {
		p := mg.Phases[min(mg.Current, len(mg.Phases)-1)]
		return p.Indexes, p.TTL
	}
	return phaseIndexes(l.Accepted), l.Accepted.TTL
}

// Accepts reports whether the lock has accepted a design: it is the
// design the lock leads to (Latest), as the lock records it. A model
// whose plan the lock has not accepted is deployed by no one: keyplan
// diff shows the change, keyplan lock accepts it.
func (l *Lock) Accepts(d *Design) bool { return sameDesign(l.Latest(), d) }

// Access is Design.Access for a table deployed from the lock: during a
// migration a pattern is read through the accepted design's plan until
// its target index is complete, then the target's, so both are granted.
func (l *Lock) Access(names ...string) (Access, error) {
	a, err := l.Latest().Access(names...)
	if err != nil || l.Migration == nil {
		return a, err
	}
	for _, n := range names {
		if p := l.Accepted.Pattern(n); p != nil && p.Served() {
			a.add(p.Action(), p.Index)
		}
	}
	a.sort()
	return a, nil
}

// Source is the file the lock was read from ("" for a lock made in
// memory).
func (l *Lock) Source() string { return l.source }

// PlanLocked plans a model for the table a lock records: every locked
// key, index, projection and encoding is kept (Options.Lock is the
// design the lock leads to). A nil lock plans from scratch. A lock for
// another table is refused.
func PlanLocked(m *model.Model, l *Lock) (*Design, error) {
	if l == nil {
		return Plan(m)
	}
	if err := l.checkTable(m); err != nil {
		return nil, err
	}
	return PlanWith(m, Options{Lock: l.Latest()})
}

// checkTable refuses a lock of another table than the model's.
func (l *Lock) checkTable(m *model.Model) error {
	if l.Table != m.Table {
		return &DesignError{l.source, fmt.Sprintf("the lock is for table %s, the model (%s) for %s", l.Table, m.Source, m.Table)}
	}
	return nil
}

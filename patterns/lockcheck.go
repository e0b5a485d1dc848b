package patterns

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
)

// Check refuses a lock keyplan did not write as it is (the error matches
// ErrDesign). A lock whose digest holds (format 2, ReadLock checked it)
// passes: what this keyplan derives otherwise is an upgrade change
// (Upgrades), not a refusal. A format 1 lock has no digest, and neither
// has a lock made in memory: it is re-derived from what it is derived
// from, as go.sum is checked against the modules (each design must be the
// plan of its own model with itself as the lock, a migration's phases
// those from its accepted design to its target, a cleanup what its
// designs before leave), and the differences an upgrade rule explains
// (a read's request, an older keyplan's backfills, a cleanup recorded
// without its designs) are the only ones allowed; the error says where
// it disagrees.
func (l *Lock) Check() error {
	if l.verified {
		return nil
	}
	if err := l.rederives(); err != nil {
		src := l.source
		if src == "" {
			src = "the lock"
		}
		return &LockError{DesignError{src, strings.ReplaceAll(err.Error(), "\n", "; ") + ": restore the lock from version control (keyplan writes locks: never edit or merge one by hand)"}, false}
	}
	return nil
}

// rederives reports where a lock disagrees with what it derives from
// (Check), beyond what its upgrade changes explain.
func (l *Lock) rederives() error {
	var errs []error
	check := func(what string, d *Design) {
		if err := replans(d); err != nil {
			errs = append(errs, fmt.Errorf("its %s design: %w", what, err))
		}
	}
	check("accepted", l.Accepted)
	if mg := l.Migration; mg != nil {
		check("target", mg.Target)
		want := compareDesigns(l.Accepted, mg.Target)
		switch bad := want.Errors(); {
		case len(bad) > 0:
			errs = append(errs, fmt.Errorf("its migration is one keyplan lock refuses: [%s] %s: %s", bad[0].ID, bad[0].Subject, bad[0].Message))
		case olderPhases(mg.Phases, want.Phases):
			errs = append(errs, fmt.Errorf("its migration's phases backfill less than keyplan derives (%s)", phasesText(want.Phases)))
		default:
			if err := samePhases(mg.Phases, want.Phases); err != nil {
				errs = append(errs, fmt.Errorf("its migration's phases are not those from its accepted design to its target: %w", err))
			}
		}
	}
	if c := l.Cleanup; c != nil {
		for i, d := range c.Before {
			check(fmt.Sprintf("cleanup's before (%d)", i+1), d)
		}
		if len(errs) == 0 && len(c.Before) > 0 {
			if err := c.check(l.Accepted); err != nil {
				errs = append(errs, fmt.Errorf("its cleanup is not what its designs leave: %w", err))
			}
		}
	}
	return errors.Join(errs...)
}

// ErrOlderPhases: a migration's phases are those an older keyplan
// derived: the same deploys, with fewer backfills (before every new GSI's
// phase backfilled its entities).
//
// Deprecated: ReadLock re-derives such phases (an upgrade change, KP619)
// and no error matches ErrOlderPhases any more.
var ErrOlderPhases = errors.New("phases of an older keyplan")

// LockError is a lock that disagrees with what it derives from, or whose
// digest does not match its content (it matches ErrDesign).
type LockError struct {
	DesignError
	// Older is never set (ErrOlderPhases).
	//
	// Deprecated: an older keyplan's phases are an upgrade change.
	Older bool
}

// Is makes a LockError match ErrDesign, and ErrOlderPhases when Older.
func (e *LockError) Is(target error) bool {
	return target == ErrDesign || e.Older && target == ErrOlderPhases
}

// RederiveFile re-derives the lock file at path (Rederive) and writes it
// back when that changed it, saying so on w.
//
// Deprecated: ReadLock re-derives an older keyplan's phases itself, and
// keyplan lock writes them (an upgrade change); RederiveFile now finds
// nothing to do.
func RederiveFile(path string, w io.Writer) error {
	l, err := LoadLock(path)
	if err != nil || l == nil || !l.Rederive() {
		return nil // an unreadable lock is reported by whoever reads it next
	}
	fmt.Fprintf(w, "%s: the migration's phases re-derived (an older keyplan backfilled less): %s\n", path, l.Migration)
	return l.WriteFile(path)
}

// Rederive replaces a migration's phases by those keyplan derives when
// they are an older keyplan's (the same deploys, fewer backfills); the
// phase the migration is at stays. It reports whether it changed the
// lock. ReadLock does it for every lock it reads (an upgrade change).
func (l *Lock) Rederive() bool {
	mg := l.Migration
	if mg == nil {
		return false
	}
	want := compareDesigns(l.Accepted, mg.Target)
	if len(want.Errors()) > 0 || !olderPhases(mg.Phases, want.Phases) {
		return false
	}
	mg.Phases = want.Phases
	return true
}

// PhaseName names the migration's current phase: "phase 2 of 3".
func (mg *Migration) PhaseName() string {
	return fmt.Sprintf("phase %d of %d", mg.Current+1, len(mg.Phases))
}

// String says where a migration is and what its phases deploy: "at
// phase 2 of 3: 1. create GSI3; backfill Order, 2. …".
func (mg *Migration) String() string {
	var ps []string
	for i, p := range mg.Phases {
		ps = append(ps, fmt.Sprintf("%d. %s", i+1, p))
	}
	return fmt.Sprintf("at phase %d of %d: %s", mg.Current+1, len(mg.Phases), strings.Join(ps, ", "))
}

// olderPhases reports whether recorded phases are derived ones with some
// backfills missing (and nothing else different).
func olderPhases(got, want []*Phase) bool {
	if len(got) != len(want) || samePhases(got, want) == nil {
		return false
	}
	for i := range got {
		g, w := *got[i], *want[i]
		for _, e := range g.Backfill {
			if !slices.Contains(w.Backfill, e) {
				return false
			}
		}
		g.Backfill = w.Backfill
		if sameJSON("", &g, &w) != nil {
			return false
		}
	}
	return true
}

// replans reports how a design differs from the plan of its model with
// the design as the lock.
func replans(d *Design) error {
	// The number encodings pinned in the model are derived too: from the
	// design as the lock, and only where the declared range fits them.
	m := d.Model().Clone()
	for _, e := range m.Entities {
		for _, a := range e.Attributes {
			a.KeyOffset, a.KeyWidth = nil, 0
		}
	}
	again, err := PlanWith(m, Options{Lock: d})
	if err != nil {
		return fmt.Errorf("its model does not plan: %v", err)
	}
	if bad := again.Errors(); len(bad) > 0 {
		return fmt.Errorf("its plan has an error: [%s] %s: %s", bad[0].ID, bad[0].Subject, bad[0].Message)
	}
	return sameJSON("", lockedDesign{d}, lockedDesign{again})
}

// samePhases compares recorded phases with derived ones.
func samePhases(got, want []*Phase) error {
	if len(got) != len(want) {
		return fmt.Errorf("%d phase(s) recorded, %d derived (%s)", len(got), len(want), phasesText(want))
	}
	for i := range got {
		if err := sameJSON(fmt.Sprintf("phase %d", i+1), got[i], want[i]); err != nil {
			return err
		}
	}
	return nil
}

func phasesText(ps []*Phase) string {
	var s []string
	for i, p := range ps {
		s = append(s, fmt.Sprintf("%d. create %v delete %v backfill %v ttl %q", i+1, p.Create, p.Delete, p.Backfill, p.TTL))
	}
	return strings.Join(s, "; ")
}

// sameJSON compares two values by their JSON forms and names the first
// field that differs (at: where they are).
func sameJSON(at string, got, want any) error {
	a, err := json.Marshal(got)
	if err != nil {
		return err
	}
	b, err := json.Marshal(want)
	if err != nil {
		return err
	}
	if bytes.Equal(a, b) {
		return nil
	}
	var x, y any
	json.Unmarshal(a, &x)
	json.Unmarshal(b, &y)
	return fmt.Errorf("%s", firstDifference(at, x, y))
}

// firstDifference walks two JSON values and says where they first
// differ: "phase 1.ttl: rating recorded, expiresAt derived".
func firstDifference(at string, got, want any) string {
	join := func(k string) string {
		if at == "" {
			return k
		}
		return at + "." + k
	}
	switch g := got.(type) {
	case map[string]any:
		w, ok := want.(map[string]any)
		if !ok {
			break
		}
		keys := map[string]bool{}
		for k := range g {
			keys[k] = true
		}
		for k := range w {
			keys[k] = true
		}
		names := make([]string, 0, len(keys))
		for k := range keys {
			names = append(names, k)
		}
		slices.Sort(names)
		for _, k := range names {
			if !jsonEqual(g[k], w[k]) {
				return firstDifference(join(k), g[k], w[k])
			}
		}
	case []any:
		w, ok := want.([]any)
		if !ok {
			break
		}
		if len(g) != len(w) {
			if gn, wn := names(g), names(w); gn != "" && wn != "" {
				return fmt.Sprintf("%s: %s recorded, %s derived", at, gn, wn)
			}
			break
		}
		for i := range g {
			if !jsonEqual(g[i], w[i]) {
				label := fmt.Sprint(i)
				if o, ok := g[i].(map[string]any); ok {
					if n, ok := o["name"].(string); ok {
						label = n
					}
				}
				return firstDifference(fmt.Sprintf("%s[%s]", at, label), g[i], w[i])
			}
		}
	}
	if at == "" {
		at = "the whole"
	}
	return fmt.Sprintf("%s: %s recorded, %s derived", at, jsonText(got), jsonText(want))
}

// names lists the names of a JSON array of named objects ("" if it is
// not one).
func names(list []any) string {
	var out []string
	for _, v := range list {
		o, ok := v.(map[string]any)
		if !ok {
			return ""
		}
		n, ok := o["name"].(string)
		if !ok {
			return ""
		}
		out = append(out, n)
	}
	if len(out) == 0 {
		return "none"
	}
	return strings.Join(out, ", ")
}

func jsonEqual(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return bytes.Equal(x, y)
}

func jsonText(v any) string {
	if v == nil {
		return "nothing"
	}
	b, _ := json.Marshal(v)
	s := string(b)
	if len(s) > 120 {
		s = s[:117] + "..."
	}
	return s
}

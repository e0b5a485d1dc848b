package patterns

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/keyplan/keyplan/patterns/model"
)

// Open reads a model file with the lock beside it (LockBeside) and plans
// the model with that lock (PlanLocked: stable planning), as keyplan's
// commands do with a model file. Errors are Load's, LoadLock's and
// PlanLocked's: they match ErrInvalidModel or ErrDesign.
func Open(file string) (*Design, *Lock, error) { return OpenWith(file, Options{}) }

// OpenWith is Open with planning options (their Lock is the file's own);
// keyplan validate --index-keys plans with Options.IndexKeys.
func OpenWith(file string, o Options) (*Design, *Lock, error) {
	m, err := model.Load(file)
	if err != nil {
		return nil, nil, err
	}
	return planBeside(m, file, LockPath(file), o)
}

// LockBeside reads the lock of a model file, at LockPath: nil when there
// is none, or when the model comes from standard input ("-": no file for a
// lock to be beside). A lock keyplan did not write as it is (edited by
// hand, merged badly: its digest fails, or a format 1 lock does not
// re-derive, Lock.Check) is refused; what an earlier keyplan wrote and
// this one derives otherwise is read as it derives it (Lock.Upgrades).
// The singletable construct finds a ModelFile's lock with it, as Open
// does.
func LockBeside(model string) (*Lock, error) { return lockAt(model, LockPath(model)) }

// LockBesideTable is LockBeside for table of a model file of several
// tables: its lock at TableLockPath.
func LockBesideTable(model, table string) (*Lock, error) {
	return lockAt(model, TableLockPath(model, table))
}

func lockAt(model, path string) (*Lock, error) {
	if model == "-" {
		return nil, nil
	}
	l, err := LoadLock(path)
	if err != nil || l == nil {
		return l, err
	}
	if err := l.Check(); err != nil {
		return nil, err
	}
	return l, nil
}

// MigratingTo says why the lock of the model file model is not in the
// middle of a migration to d (nil when it is): there is no lock (l is
// nil), no migration in progress, or one to another model. keyplan
// migrate runs only on such a lock, or with apply (--apply-indexes) on a
// lock that accepts d, to bring a local table's GSIs to it (a change
// accepted in one step, such as a native index build: KP615).
func (l *Lock) MigratingTo(d *Design, model string, apply bool) error {
	return l.MigratingToAt(d, model, LockPath(model), apply)
}

// MigratingToAt is MigratingTo for the lock at path: a table's of a model
// of several (TableLockPath).
func (l *Lock) MigratingToAt(d *Design, model, path string, apply bool) error {
	switch {
	case l == nil:
		return fmt.Errorf("%s has no lock (%s): nothing is deployed to migrate", model, path)
	case l.Migration == nil && l.Cleanup == nil && apply && !l.Accepts(d):
		return fmt.Errorf("%s is not the model %s accepts: keyplan diff %s shows the difference, keyplan lock %s accepts it", model, path, model, model)
	case l.Migration == nil && l.Cleanup == nil && apply:
		return nil
	case l.Migration == nil && l.Cleanup != nil && !l.Accepts(d):
		return fmt.Errorf("%s is not the model %s accepts, whose migration's cleanup is pending: keyplan diff %s shows the difference", model, path, model)
	case l.Migration == nil && l.Cleanup != nil:
		return nil
	case l.Migration == nil:
		return fmt.Errorf("no migration in progress in %s (keyplan diff %s shows what would start one; keyplan lock %s starts it)", path, model, model)
	case !l.Accepts(d):
		return fmt.Errorf("%s is not the model the migration in %s leads to: keyplan diff %s shows the difference", model, path, model)
	}
	return nil
}

// Opened is one table of a model file, planned with its lock: what Open
// returns for a model of one table.
type Opened struct {
	// Table is the table's name (the design's).
	Table  string
	Design *Design
	// Lock is the table's lock, nil when there is none; LockPath is where
	// it is (or would be written).
	Lock     *Lock
	LockPath string
}

// OpenTables is OpenWith for every table of a model file, in the order
// declared: one Opened for a model of one table (its lock at LockPath),
// one per table of a model that declares tables (each lock at
// TableLockPath). Errors are OpenWith's; a lock of one table refused
// names its file.
func OpenTables(file string, o Options) ([]*Opened, error) {
	m, err := model.Load(file)
	if err != nil {
		return nil, err
	}
	if len(m.Tables) == 0 {
		d, lock, err := planBeside(m, file, LockPath(file), o)
		if err != nil {
			return nil, err
		}
		return []*Opened{{Table: d.Table, Design: d, Lock: lock, LockPath: LockPath(file)}}, nil
	}
	var out []*Opened
	for _, t := range m.Tables {
		path := TableLockPath(file, t.Table)
		d, lock, err := planBeside(t, file, path, o)
		if err != nil {
			return nil, err
		}
		out = append(out, &Opened{Table: t.Table, Design: d, Lock: lock, LockPath: path})
	}
	return out, nil
}

// TableLockPath is where the lock of table of a model file of several
// tables is: beside the model, shop.yaml's Orders at shop.Orders.lock.json
// (a model of one table keeps LockPath's shop.lock.json).
func TableLockPath(model, table string) string {
	return strings.TrimSuffix(model, filepath.Ext(model)) + "." + table + ".lock.json"
}

// planBeside plans m with the lock at path (none for standard input).
func planBeside(m *model.Model, file, path string, o Options) (*Design, *Lock, error) {
	lock, err := lockAt(file, path)
	if err != nil {
		return nil, nil, err
	}
	if lock != nil {
		if err := lock.checkTable(m); err != nil {
			return nil, nil, err
		}
		o.Lock = lock.Latest()
	}
	d, err := PlanWith(m, o)
	if err != nil {
		return nil, nil, err
	}
	return d, lock, nil
}

// TableOf is the table named name among a model file's tables: the one
// table of a model of one table, whatever name says (the deployed
// table's physical name); in a model of several, the table of that name.
func TableOf(ts []*Opened, name string) (*Opened, error) {
	if len(ts) == 1 {
		return ts[0], nil
	}
	var names []string
	for _, t := range ts {
		if t.Table == name {
			return t, nil
		}
		names = append(names, t.Table)
	}
	return nil, fmt.Errorf("%q: the model declares tables %s: name one of them", name, strings.Join(names, ", "))
}

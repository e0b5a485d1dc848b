package patterns

import "fmt"

// Open reads a model file with the lock beside it (LockBeside) and plans
// the model with that lock (PlanLocked: stable planning), as keyplan's
// commands do with a model file. Errors are Load's, LoadLock's and
// PlanLocked's: they match ErrInvalidModel or ErrDesign.
func Open(file string) (*Design, *Lock, error) { return OpenWith(file, Options{}) }

// OpenWith is Open with planning options (their Lock is the file's own);
// keyplan validate --index-keys plans with Options.IndexKeys.
func OpenWith(file string, o Options) (*Design, *Lock, error) {
	m, err := Load(file)
	if err != nil {
		return nil, nil, err
	}
	lock, err := LockBeside(file)
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

// LockBeside reads the lock of a model file, at LockPath: nil when there
// is none, or when the model comes from standard input ("-": no file for a
// lock to be beside). A lock keyplan did not write as it is (edited by
// hand, merged badly: its digest fails, or a format 1 lock does not
// re-derive, Lock.Check) is refused; what an earlier keyplan wrote and
// this one derives otherwise is read as it derives it (Lock.Upgrades).
// The singletable construct finds a ModelFile's lock with it, as Open
// does.
func LockBeside(model string) (*Lock, error) {
	if model == "-" {
		return nil, nil
	}
	l, err := LoadLock(LockPath(model))
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
	path := LockPath(model)
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

package patterns

import (
	"errors"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"
)

// One committed lock, several environments. A lock may name the tables
// it deploys to (Lock.Environments: staging, prod, in that order). A
// migration then advances in lockstep: every environment deploys the
// lock's current phase (the construct synthesizes it, wherever it is
// deployed), and keyplan migrate --environment NAME backfills and verifies
// it on that environment's table, records the environment as verified in
// the lock (Migration.Verified), and advances the lock to the next phase
// only once every environment has, in order: a phase reaches prod only
// after staging has verified it. Each table also records the phases it
// has verified (keyplan's bookkeeping in it), so a lock that claims an
// environment verified a phase its table never did is refused. No
// environment finishes a migration alone: the lock keeps it (and prod's
// deploy keeps its phases) until the last one has verified the last
// phase.

// The lock is never the only witness. Migration.Verified is a claim:
// a line in a pull request can add "staging" to it, and the next
// environment's run cannot read staging's table to check it. What
// witnesses an environment's verification is that environment's own
// table: keyplan migrate records there the phases it verified
// (migrate.VerifiedPhases, keyed by the migration's digest). So every
// run of keyplan migrate --environment NAME first checks that NAME's
// table holds what the lock says NAME did (migrate.Witnessed): every
// phase before the current one, and, once a migration has ended, every
// phase of it (Lock.Ended keeps its digest and phase count for that). A
// lock that claims more is refused on that environment's next run,
// saying how to recover (put back the lock as it was at the first phase
// the table lacks and run the environments again from there).

// Ended is the migration a lock's last one was: its digest
// (MigrationDigest) and how many phases it had.
type Ended struct {
	Digest string `json:"digest"`
	Phases int    `json:"phases"`
}

// MigrationDigest identifies the lock's migration whatever its current
// phase and whichever environments verified it (the accepted design, the
// target and the phases when it began; not the environments, nor Ended):
// the tables' bookkeeping is keyed by it. It is fixed when the migration
// begins, and lock format 2 records it (migration.id), so an upgrade
// change to the migration's requests or phases keeps it; for a lock an
// earlier keyplan wrote it is what that keyplan computed from the file
// (migrationDigestOf).
func (l *Lock) MigrationDigest() (string, error) {
	if l.Migration == nil {
		return "", errors.New("no migration in progress")
	}
	if l.Migration.id != "" {
		return l.Migration.id, nil
	}
	b, err := l.marshalFormat1()
	if err != nil {
		return "", err
	}
	return migrationDigestOf(b)
}

// environmentName is what an environment may be called.
var environmentName = regexp.MustCompile(`^[a-z][a-z0-9-]{0,39}$`)

// SetEnvironments names the environments one lock drives, in order. They
// change only between migrations (one in progress counts its
// verifications by them).
func (l *Lock) SetEnvironments(names []string) error {
	if slices.Equal(names, l.Environments) {
		return nil
	}
	if l.Migration != nil {
		return fmt.Errorf("a migration is in progress (at phase %d of %d): set the environments before keyplan lock starts one, or after it is done", l.Migration.Current+1, len(l.Migration.Phases))
	}
	if err := checkNames(names); err != nil {
		return err
	}
	l.Environments = slices.Clone(names)
	return nil
}

func checkNames(names []string) error {
	for i, n := range names {
		if !environmentName.MatchString(n) {
			return fmt.Errorf("environment %q: expected a lower-case name of letters, digits and '-' (1-40), starting with a letter", n)
		}
		if slices.Contains(names[:i], n) {
			return fmt.Errorf("environment %q named twice", n)
		}
	}
	return nil
}

// checkEnvironments checks what a lock read from a file says of its
// environments.
func (l *Lock) checkEnvironments() error {
	if err := checkNames(l.Environments); err != nil {
		return err
	}
	mg := l.Migration
	if mg == nil || len(mg.Verified) == 0 {
		return nil
	}
	if len(l.Environments) == 0 {
		return errors.New("the migration lists environments that verified its phase, and the lock names none")
	}
	for i, e := range mg.Verified {
		if !slices.Contains(l.Environments, e) || slices.Contains(mg.Verified[:i], e) {
			return fmt.Errorf("the migration's phase is verified by %q, which the lock does not name once (%s)", e, strings.Join(l.Environments, ", "))
		}
		if want := l.Environments[i]; e != want {
			return fmt.Errorf("the migration's phase is verified by %s before %s: each phase goes through %s in that order", e, want, strings.Join(l.Environments, ", "))
		}
	}
	if len(mg.Verified) == len(l.Environments) {
		return errors.New("every environment has verified the migration's phase, and it has not advanced")
	}
	return nil
}

// ErrNotItsTurn: an environment verifies a phase before the ones listed
// before it have.
var ErrNotItsTurn = errors.New("not this environment's turn")

// Next is the environment to verify the migration's current phase next
// ("" when the lock names none, or no migration is in progress).
func (l *Lock) Next() string {
	if mg := l.Migration; mg != nil && len(l.Environments) > 0 {
		return l.Environments[len(mg.Verified)]
	}
	return ""
}

// NextRun says what keyplan migrate runs on next, for messages:
// "--table NAME again", or "--environment staging --table …" when the
// lock names environments.
func (l *Lock) NextRun(table string) string {
	if next := l.Next(); next != "" {
		return "--environment " + next + " --table (its table)"
	}
	return "--table " + table
}

// Verify records that environment env (one Environments names, or ""
// when it names none) has verified the migration's current phase on its
// table, and advances the lock once every environment has: it reports
// whether it did. An environment verifies a phase after the ones before
// it (ErrNotItsTurn), and once.
func (l *Lock) Verify(env string) (advanced bool, err error) {
	mg := l.Migration
	if mg == nil {
		return false, errors.New("no migration in progress")
	}
	switch {
	case len(l.Environments) == 0 && env != "":
		return false, fmt.Errorf("environment %q: the lock names no environments (keyplan lock --environments sets them)", env)
	case len(l.Environments) == 0:
		return true, l.Advance()
	case !slices.Contains(l.Environments, env):
		return false, fmt.Errorf("environment %q: the lock names %s", env, strings.Join(l.Environments, ", "))
	case slices.Contains(mg.Verified, env):
		return false, nil
	case l.Next() != env:
		return false, fmt.Errorf("%w: %s verifies phase %d of %d after %s", ErrNotItsTurn, env, mg.Current+1, len(mg.Phases), l.Next())
	}
	mg.Verified = append(mg.Verified, env)
	if len(mg.Verified) < len(l.Environments) {
		return false, nil
	}
	return true, l.Advance()
}

// ListFlag reads a comma-separated list flag (keyplan lock
// --environments staging,prod); empty, it is was (the flag not given).
func ListFlag(flag string, was []string) []string {
	if flag == "" {
		return was
	}
	out := strings.Split(flag, ",")
	for i := range out {
		out[i] = strings.TrimSpace(out[i])
	}
	return out
}

// Standing says where the lock's migration stands after a run of keyplan
// migrate on environment env ("" when the lock names none) of the model
// file model: "at phase 2 of 3 (create GSI4; …)", or, while the others
// have not verified the phase, what env waits for.
func (l *Lock) Standing(env, model string) string {
	mg := l.Migration
	if env != "" && slices.Contains(mg.Verified, env) {
		return fmt.Sprintf("%s has verified %s; the lock advances once %s has (commit the lock; there, cdk deploy and keyplan migrate %s --environment %s)", env, mg.PhaseName(), l.Next(), model, l.Next())
	}
	return fmt.Sprintf("at %s (%s)", mg.PhaseName(), mg.Phases[mg.Current])
}

// NextStep says what to do once keyplan migrate has run on table (of
// environment env, going on through the phases when apply), as a line:
// the migration is done, or the next command ("" when Standing has said
// what the environment waits for).
func (l *Lock) NextStep(model, table, env string, apply bool) string {
	switch mg := l.Migration; {
	case mg == nil && l.Cleanup != nil && env != "" && slices.Contains(l.Cleanup.Verified, env):
		return fmt.Sprintf("%s: %s is cleaned up; the lock drops the cleanup once every environment is (commit the lock; there, keyplan migrate %s --environment NAME --table …)\n", LockPath(model), table, model)
	case mg == nil && l.Cleanup != nil:
		return fmt.Sprintf("%s: the migration is done: %s is at the target design; its cleanup is pending (keyplan diff exits 1 until it is done): commit the lock and deploy once more (the runtime then writes the target design only), then start the construct's cleanup job, or run keyplan migrate %s %s --deployed, to remove what the design before left in the items\n", LockPath(model), table, model, l.cleanupRun(table, env))
	case mg == nil:
		return fmt.Sprintf("%s: the migration is done: %s is at the target design (keyplan diff exits 0); commit the lock and deploy once more\n", LockPath(model), table)
	case env != "" && slices.Contains(mg.Verified, env), apply && l.Next() == env:
		return ""
	}
	return fmt.Sprintf("next: commit the lock, cdk deploy, then keyplan migrate %s %s\n", model, l.NextRun(table))
}

// cleanupRun is the flags keyplan migrate cleans up with.
func (l *Lock) cleanupRun(table, env string) string {
	if len(l.Environments) > 0 {
		return "--environment " + l.Environments[0] + " --table (its table)"
	}
	return "--table " + table
}

// Record writes the lock to path after a phase of keyplan migrate (of the
// model file model, on environment env) and says on w where it stands
// (Standing), unless the migration is done.
func (l *Lock) Record(path, model, env string, w io.Writer) error {
	if err := l.WriteFile(path); err != nil || l.Migration == nil {
		return err
	}
	_, err := fmt.Fprintf(w, "%s: %s\n", path, l.Standing(env, model))
	return err
}

package migrate

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/keyplan/keyplan/patterns"
	"github.com/keyplan/keyplan/patterns/dynamo"
)

// ErrOtherTable: the table named is not the lock's (another model's, by
// its items or by keyplan's record in it).
var ErrOtherTable = errors.New("not this model's table")

// tableSample is how many items CheckTableOf reads at most.
const tableSample = 200

// CheckTableOf reports whether the table named name holds the lock's
// model, before anything is written to it: keyplan's record in the table
// (the logical table a migration stamped it for) must be the lock's, and
// of the items a sample of it holds (keyplan's own left out), at least
// one must be an item of the lock's designs (accepted or target). An
// empty table, or one keyplan has not stamped, passes the first test; a
// table that does not exist (or not yet) passes both.
func CheckTableOf(ctx context.Context, c BackfillClient, l *patterns.Lock, name string) error {
	d := l.Accepted
	got, err := c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(name), Key: bookKey(d, stampSK), ConsistentRead: aws.Bool(true)})
	if _, gone := errors.AsType[*types.ResourceNotFoundException](err); gone {
		return nil // no table (yet): nothing in it to be another model's
	}
	if err != nil {
		return fmt.Errorf("reading %s: %w", name, err)
	}
	if m, ok := got.Item["model"].(*types.AttributeValueMemberS); ok && m.Value != l.Table {
		return fmt.Errorf("%w: %s was migrated by keyplan as the table of %s, not %s", ErrOtherTable, name, m.Value, l.Table)
	}
	designs := []*dynamo.Table{dynamo.New(d, nil, name)}
	if l.Migration != nil {
		designs = append(designs, dynamo.New(l.Migration.Target, nil, name))
	}
	seen := 0
	var sample []string
	var next map[string]types.AttributeValue
	for seen < tableSample {
		out, err := c.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String(name), Limit: aws.Int32(tableSample), ExclusiveStartKey: next})
		if err != nil {
			return fmt.Errorf("reading %s: %w", name, err)
		}
		for _, it := range out.Items {
			if pk, ok := it[d.PK].(*types.AttributeValueMemberS); ok && strings.HasPrefix(pk.Value, patterns.ReservedPrefix) {
				continue // keyplan's own items (guards, markers, bookkeeping)
			}
			for _, t := range designs {
				if _, _, err := t.Decode(it); err == nil {
					return nil
				}
			}
			seen++
			if len(sample) < 3 {
				sample = append(sample, dynamo.KeyText(d, it))
			}
		}
		if next = out.LastEvaluatedKey; len(next) == 0 {
			break
		}
	}
	if seen == 0 {
		return nil
	}
	return fmt.Errorf("%w: none of the %d item(s) read from %s is an item of %s's entities (%s, …): check --table", ErrOtherTable, seen, name, l.Table, strings.Join(sample, ", "))
}

// TurnOf checks, before a phase runs on the table named name as
// environment env (keyplan migrate --environment), that the table holds
// the lock's model (CheckTableOf) and that it is env's turn: the lock
// names env (or names none and env is ""), and the environments before it
// have verified the phase. skip is true when env has verified the phase
// already (its table records it: a lock that claims a verification its
// table does not hold is refused), so there is nothing to run.
func TurnOf(ctx context.Context, c BackfillClient, l *patterns.Lock, name, env string) (skip bool, err error) {
	if err := CheckTableOf(ctx, c, l, name); err != nil {
		return false, err
	}
	mg := l.Migration
	switch {
	case len(l.Environments) == 0 && env == "":
		return false, nil
	case len(l.Environments) == 0:
		return false, fmt.Errorf("--environment %s: the lock names no environments (keyplan lock --environments sets them)", env)
	case env == "":
		return false, fmt.Errorf("the lock names environments (%s): say which this table is (--environment)", strings.Join(l.Environments, ", "))
	case !slices.Contains(l.Environments, env):
		return false, fmt.Errorf("--environment %s: the lock names %s", env, strings.Join(l.Environments, ", "))
	case slices.Contains(mg.Verified, env):
		n, err := VerifiedPhases(ctx, c, l, name)
		if err != nil {
			return false, err
		}
		if n < mg.Current+1 {
			return false, fmt.Errorf("the lock says %s has verified phase %d of %d, and its table records %d verified phase(s): the lock does not come from this table's runs", env, mg.Current+1, len(mg.Phases), n)
		}
		return true, nil
	case l.Next() != env:
		return false, fmt.Errorf("%w: %s verifies phase %d of %d after %s (keyplan migrate --environment %s first)", patterns.ErrNotItsTurn, env, mg.Current+1, len(mg.Phases), l.Next(), l.Next())
	}
	return false, nil
}

// ErrUnwitnessed: the lock says an environment verified phases its own
// table does not record (patterns/environments.go).
var ErrUnwitnessed = errors.New("the lock claims a verification this environment's table does not record")

// Witnessed checks, before keyplan migrate runs on environment env's
// table name, that the table records every verification the lock counts
// on from env: every phase before the migration's current one, and every
// phase of the last migration that ended (Lock.Ended). The lock alone
// witnesses nothing: a line added to it by hand would otherwise let a
// migration end for an environment that never ran it. A table that does
// not exist (yet) has nothing to witness and is not refused here.
func Witnessed(ctx context.Context, c BackfillClient, l *patterns.Lock, name, env string) error {
	if env == "" || len(l.Environments) == 0 {
		return nil
	}
	fix := fmt.Sprintf("nothing was changed. To recover: put back the lock as it was when its migration was at the first phase %s's table lacks "+
		"(git log -p %s shows each version), run keyplan migrate --environment %s there, then the environments after it, "+
		"phase after phase (a table records what it verified: one that has verified a phase verifies it again, changing nothing)",
		env, lockName(l), env)
	if e := l.Ended; e != nil {
		n, err := verifiedOf(ctx, c, l, name, e.Digest)
		if gone(err) {
			return nil
		}
		if err != nil {
			return err
		}
		if n < e.Phases {
			return fmt.Errorf("%w: the lock's last migration (%d phase(s)) has ended, counting %s's verification of each phase, and %s, %s's table, records %d of them verified: %s",
				ErrUnwitnessed, e.Phases, env, name, env, n, fix)
		}
	}
	mg := l.Migration
	if mg == nil || mg.Current == 0 {
		return nil
	}
	n, err := VerifiedPhases(ctx, c, l, name)
	if gone(err) {
		return nil
	}
	if err != nil {
		return err
	}
	if n < mg.Current {
		return fmt.Errorf("%w: the lock's migration is at phase %d of %d, past phases %s has verified by the lock's count, and %s, %s's table, records %d phase(s) verified: %s",
			ErrUnwitnessed, mg.Current+1, len(mg.Phases), env, name, env, n, fix)
	}
	return nil
}

// gone reports whether err says the table does not exist.
func gone(err error) bool {
	_, ok := errors.AsType[*types.ResourceNotFoundException](err)
	return ok
}

// lockName is the lock's file, for messages ("the lock file" when it was
// not read from one).
func lockName(l *patterns.Lock) string {
	if s := l.Source(); s != "" {
		return s
	}
	return "the lock file"
}

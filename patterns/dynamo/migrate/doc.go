// Package migrate evolves a live table from one phase of a lock's
// migration to the next, and proves it got there: the rekey engine
// (Rekeyer: each item rewritten to carry what the rollout runtime writes
// for it), the backfill (parallel, rate-limited, resumable from a
// checkpoint), the verifying scan whose record in the table the lock
// advances on, keyplan migrate's driver (Migrate: phase readiness, the
// backfill, the verification, the cleanup of a finished migration), the
// checks that a table is the lock's (CheckTableOf, TurnOf, Witnessed), and
// what DynamoDB says a table is (DescribeLive, SampleTable).
//
// Application code does not import it: the runtime (patterns/dynamo)
// serves a table during a migration by itself (dynamo.NewRollout). The
// CLI, the construct's backfill worker (lambdas/backfill) and tests do.
// It reads the runtime only through the runtime's exported API; what it
// needs beyond the application's is Table.KeysOf and Table.Rekeying (how
// the rollout runtime keys an item under both designs), ObjectKey and
// IsObjectKey (values kept in S3), SameValue, KeyText, DescribeTable and
// IndexDiff.
package migrate

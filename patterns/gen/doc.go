// Package gen writes typed Go code from a design: a struct per entity, a
// method per read and write pattern, constants for the table and its
// indexes, and the design embedded, all calling keyplan's runtime
// (patterns/dynamo) underneath. keyplan gen go is its command. Generated
// with the model's lock (Options.Lock), the code embeds the lock and runs
// the rollout runtime (dynamo.NewRollout): during a migration it writes
// both designs' keys and reads each pattern through the index that is
// complete; OpenLock follows a lock the application loads itself.
package gen

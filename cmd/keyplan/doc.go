// Command keyplan plans and checks DynamoDB single-table designs from an
// access-pattern model, and deploys their changes to a live table.
//
//	keyplan plan FILE...      the design (keys, GSIs, projections, cost) and its findings
//	keyplan check FILE...     the design checks alone (text, json, sarif), for CI
//	keyplan diff FILE         the model against its lock, its phases (--live: the lock against the table)
//	keyplan lock FILE         record the design in the lock, or start a migration
//	keyplan migrate FILE      backfill the lock's current phase on a table, then advance the lock
//	keyplan validate FILE     prove the model's examples, and generated data, on a DynamoDB engine
//	keyplan local             serve the in-process engine on a port until interrupted
//	keyplan gen go FILE       typed Go code for the design
//	keyplan export workbench FILE   the design as a NoSQL Workbench data model
//	keyplan import workbench FILE   a NoSQL Workbench data model as a keyplan model
//	keyplan import table NAME       a deployed table's model and its lock, read only
//	keyplan schema            the JSON Schema of model files
//	keyplan version           the module version keyplan was built from
//	keyplan help              every command with its flags (usage.txt); COMMAND --help: its flags
//
// Exit codes: 0 clean, 1 findings (errors; warnings too with --strict),
// 2 unusable input or usage.
//
// The command parses flags and prints; what it does lives in the
// libraries: patterns (Open, Compare, Lock), patterns/report (the
// outputs), patterns/dynamo (PhaseReady, the backfill, Validate),
// patterns/gen, internal/engine and internal/livetable
// (import table, diff --live).
package main

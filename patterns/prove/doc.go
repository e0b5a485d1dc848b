// Package prove proves a design on a DynamoDB engine, as keyplan
// validate does: the model's examples (Validate, ValidateExisting: the
// items loaded through the runtime, the example writes run, every
// expected read compared with what the examples say) and generated data
// (Prove, ProveDesign: random items and writes applied to the table and
// to the reference evaluator, package oracle, and every read compared
// after each step). ValidateTable does both on tables it makes and drops.
//
// It reads the runtime (package dynamo) through its API and the small
// surface a proof needs beyond it (dynamo.Probe); the runtime imports
// neither this package nor the reference evaluator.
package prove

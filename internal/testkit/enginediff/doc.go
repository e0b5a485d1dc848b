// Package enginediff judges keyplan's in-process engine (internal/engine/minidyn)
// from outside it, against AWS's DynamoDB Local, the reference.
//
// By its answers: Generate makes a request sequence from a seed (a table
// with GSIs and LSIs of every projection and key type, then puts,
// conditional writes, updates, deletes, batches, transactions, queries
// and scans followed page by page), aimed at the classic mistakes (ids
// that are prefixes of each other, '#' and '%', equal sort values,
// numbers such as 1e3, -0 and 38 digits, empty values, index keys of the
// wrong type). A Runner sends each step to both engines as it goes on
// the wire and compares the answers (Outcome): items with their exact
// values and types, error names, counts, LastEvaluatedKey, unprocessed
// items, returned values, cancellation reasons. A difference is shrunk
// (Runner.Shrink) to a short sequence and reported with both answers.
// Differences already written down (Known) are recognised by name, and
// the test of the list checks that each still differs.
//
// By their speed: BenchmarkEngines runs one workload on the three engines
// (make bench-engine) and prints the ratios between them.
package enginediff

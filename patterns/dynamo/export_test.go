package dynamo

import "context"

// ValidateExamples proves a table's examples (patterns/prove's Validate:
// the items loaded, the writes run, the expectations held), for the
// tests here that need them to hold first: it reports whether they do,
// and the report. proof_test.go (package dynamo_test, which may import
// patterns/prove, an importer of this package) sets it.
var ValidateExamples func(ctx context.Context, t *Table) (ok bool, report string)

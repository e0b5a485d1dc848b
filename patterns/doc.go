// Package patterns is keyplan's core: the access-pattern model, the planner
// that turns it into a DynamoDB single-table design, the checks that prove
// every read is one GetItem or one Query, and the reports.
//
// It is pure Go (the standard library and a YAML parser): CDK constructs,
// the runtime and the CLI all read the [Design] it returns, so nothing
// downstream re-derives keys.
//
// # Using the package
//
// Load a model file (YAML or JSON) and plan it:
//
//	m, err := patterns.Load("leaderboard.yaml")
//	if err != nil {
//		// every problem, each naming file:line:col, the field and what was
//		// expected; errors.Is(err, patterns.ErrInvalidModel)
//	}
//	d, err := patterns.Plan(m)
//	for _, x := range d.Errors() {
//		// a pattern that needs a Scan, a strong read on a GSI, …
//	}
//	report.WriteMarkdown(os.Stdout, d) // the validation table and key layout (patterns/report)
//
// # How keys are planned
//
// The planner searches base placements (each entity in its own partition,
// its parent's, or a collection owner's; its base key of id and immutable
// attributes) together with the GSI shapes the rest of the patterns need,
// shared across entities on overloaded GSIs (GSI1PK, GSI1SK). It judges
// layouts by: every pattern served; no pattern on a partition hotter than
// its where needs; the fewest GSIs; the least write amplification. It is
// exact within a step budget and bounded beyond it (docs/planner.md). The
// lower bounds beside the count come from the model alone ([Bounds]).
//
// Values in keys are encoded so that string order is value order: integers
// offset by their lower bound and zero-padded to a fixed width, times as
// fixed-width UTC, strings with '%', '#' and bytes below '#' escaped as %XX.
// So the separator '#' is the smallest byte in any key, and the keys "P"
// and "P#…" are exactly those in [P, P$).
package patterns

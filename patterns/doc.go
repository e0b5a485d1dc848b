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
// Every entity's base key comes from its id: an item collection (a root
// entity and the entities declared within it) shares the root's partition
// key, PLAYER#{playerId}; each entity's sort key is its tag and the rest of
// its id, MATCH#{playedAt}. A child read together with its parent may nest
// under the parent's sort key (ROOM, ROOM#MEMBER#{userId}) so that one key
// range holds exactly the collection.
//
// Each pattern the base table cannot serve needs a GSI key shape for its
// entity. Shapes of different entities share overloaded GSIs (GSI1PK,
// GSI1SK); one entity holds one shape per GSI, unless the shapes are sparse
// on different constants of one attribute. The planner reports the lower
// bound (the most pairwise-conflicting shapes one entity holds) beside the
// count it reaches.
//
// Values in keys are encoded so that string order is value order: integers
// offset by their lower bound and zero-padded to a fixed width, times as
// fixed-width UTC, strings with '%', '#' and bytes below '#' escaped as %XX.
// So the separator '#' is the smallest byte in any key, and the keys "P"
// and "P#…" are exactly those in [P, P$).
package patterns

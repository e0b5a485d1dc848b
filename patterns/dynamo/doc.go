// Package dynamo is keyplan's runtime: application code and stream
// handlers build keys, items and requests from the same Design that built
// the table, never by hand.
//
// # Using the package
//
//	d, _ := patterns.Plan(model)
//	tbl := dynamo.New(d, dynamodb.NewFromConfig(cfg), os.Getenv(patterns.TableNameEnv))
//
//	// Writes keep unique alternate keys unique with guard items, in one
//	// TransactWriteItems.
//	err := tbl.Create(ctx, "Player", dynamo.Values{"playerId": "p1", "handle": "nighthawk", ...})
//
//	// Reads: one GetItem or Query per pattern (one per shard when sharded),
//	// built with the expression builder, so reserved words are safe.
//	page, err := tbl.Read(ctx, "SeasonLeaderboard", dynamo.Request{
//		Params: dynamo.Params{"season": "2026-Q2"},
//		Range:  &dynamo.Range{Op: dynamo.Ge, Value: 1500},
//	})
//	for _, it := range page.Items { it.Entity; it.Values["rating"] }
//
//	// Every page, in order (sharded patterns merged across shards):
//	for it, err := range tbl.All(ctx, "RecentMatches", dynamo.Request{Params: ...}) { ... }
//
// The pure builders (Item, Key, GetItemInput, QueryInput(s), Decode) make
// no request: test code compares their output with the expected SDK input.
package dynamo

// Package dynamotest gives tests a local DynamoDB engine: by default the
// in-process one (keyplan's fork of minidyn: real transactions, nothing to
// install); with KEYPLAN_ENGINE=dynalite, dynalite@4.0.0 (the project's
// own, in node_modules at its Go module's root, or installed once with npm
// into the user's cache); with KEYPLAN_ENGINE=dynamodb-local, AWS's
// DynamoDB Local 1.25.1 (needs Java; installed once, checksum-verified,
// into the user's cache); or the engine $KEYPLAN_DYNAMODB_ENDPOINT names
// (real DynamoDB, or any engine already running).
//
//	func TestOrders(t *testing.T) {
//		db := dynamotest.Start(t)                 // stopped by t.Cleanup
//		orders := db.Table(t, design)             // a fresh table, deleted by t.Cleanup
//		...
//	}
//
// A package whose tests share one engine starts it in TestMain with New
// and stops it with Stop.
package dynamotest

// Package dynamotest gives tests a local DynamoDB engine: by default the
// in-process one (keyplan's fork of minidyn: real transactions, nothing to
// install); with KEYPLAN_ENGINE=dynalite, dynalite@4.0.0 (found in a
// node_modules above the working directory, or installed once with npm
// into the user's cache); or the engine $KEYPLAN_DYNAMODB_ENDPOINT names
// (DynamoDB Local, real DynamoDB).
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

// Package enginepass says which tests make test's engine passes run.
//
// make test runs the tests of the packages that talk to a DynamoDB
// engine three times: on the in-process engine (make unit), then on
// dynalite and on DynamoDB Local (KEYPLAN_ENGINE=dynalite,
// KEYPLAN_ENGINE=dynamodb-local). A test whose result cannot depend on
// that choice (it connects to no engine, or only to engines it names
// itself) proves nothing more the second and third time: it calls
// Independent, and runs once, on the in-process pass.
//
// The mark is checked where it is made: on the in-process pass a marked
// test runs with $KEYPLAN_ENGINE set to a name no engine has, so any
// engine it starts by the environment's choice (keyplan validate, engine
// Connect, dynamotest) refuses to start and the test fails; and the
// helpers that hand a test its package's engine, already started, call
// Uses, which fails a marked test. A marked test cannot be parallel
// (the poison is the process's environment); Parallel marks a test that
// is, and hands the poisoned environment to the processes it starts.
package enginepass

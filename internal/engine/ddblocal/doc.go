// Package ddblocal installs, starts and stops AWS's DynamoDB Local, the
// reference engine keyplan proves designs on (keyplan validate --engine
// dynamodb-local, KEYPLAN_ENGINE=dynamodb-local).
//
// DynamoDB Local is a Java program. keyplan takes it from the npm package
// that ships it (amplify-dynamodb-simulator@2.9.30, carrying DynamoDB
// Local 1.25.1), fetched once with npm pack, checked against the pinned
// checksums and unpacked into the user's cache; or from the directory
// $KEYPLAN_DYNAMODB_LOCAL names. It is never looked for anywhere else.
//
// Start runs it in memory on a free port, proves that what answers there
// is the engine it started (not another one that took the port
// meanwhile), and ties its life to keyplan's: it ends with Stop, and when
// keyplan ends however it ends (SIGKILL included; not on Windows, see
// docs/engines.md).
package ddblocal

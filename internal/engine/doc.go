// Package engine starts the local DynamoDB engine keyplan proves designs
// on: the in-process one (memory, the default: internal/engine/minidyn),
// dynalite (Node.js, installed once), or AWS's DynamoDB Local (Java,
// installed once: the reference). $KEYPLAN_ENGINE picks one for validate
// and the tests; $KEYPLAN_DYNAMODB_ENDPOINT (read by callers) replaces
// them all with an engine already running. docs/engines.md says how they
// differ.
package engine

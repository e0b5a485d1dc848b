// Package engine starts the local DynamoDB engine keyplan proves designs
// on: the in-process one (memory, the default: internal/minidyn) or
// dynalite (Node.js, installed once). $KEYPLAN_ENGINE picks one for
// validate and the tests; $KEYPLAN_DYNAMODB_ENDPOINT (read by callers)
// replaces both with an engine already running.
package engine

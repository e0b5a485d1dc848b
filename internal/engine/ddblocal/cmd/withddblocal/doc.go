// Command withddblocal runs a command beside AWS's DynamoDB Local: it
// starts the engine (internal/engine/ddblocal: the pinned, checksum-verified
// copy, installed once), runs the command with the engine's endpoint in
// the environment variable -env names, stops the engine, and exits with
// the command's code. make unit-dynamodb-local runs the in-process
// engine's fidelity tests so, against the reference:
//
//	withddblocal -env MINIDYN_REFERENCE_ENDPOINT go test ./internal/minidyn
package main

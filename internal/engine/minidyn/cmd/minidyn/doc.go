// Command minidyn serves the in-process engine on a loopback address until
// it is interrupted: what scripts/conformance runs the Alternator suite
// against, and a local DynamoDB for any tool (-addr, -access-key,
// -data-dir).
package main

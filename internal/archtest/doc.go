// Package archtest holds the repository's architecture rules as tests: the
// "never" rules of ARCHITECTURE.md (no CDK or jsii below constructs/ and
// stacks/, nothing imports cmd/, the core imports nothing of the project,
// the minidyn fork only through internal/engine, no product code imports
// a test kit, the runtime reaches no migration code), internal/ laid out by who imports a package, the contract and
// DynamoDB's limits defined once, every package documented, every fuzz target fuzzed by make fuzz, and
// the size bounds of the core and the CLI. It has no code of its own: go test
// ./internal/archtest runs the rules (in about a second).
package archtest

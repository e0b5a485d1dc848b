// Package minidyn is keyplan's in-process DynamoDB engine: a fork of
// github.com/truora/minidyn (MIT, LICENSE), rebased on the upstream commit
// named in UPSTREAM, that serves the DynamoDB JSON API from memory on a
// loopback port, with real TransactWriteItems. README.md lists the fork's
// patches and why; `make minidyn-diff` shows them against upstream;
// docs/engines.md compares the engine with dynalite and DynamoDB Local.
package minidyn

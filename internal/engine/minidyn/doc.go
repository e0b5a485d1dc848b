// Package minidyn is keyplan's in-process DynamoDB engine: a fork of
// github.com/truora/minidyn (MIT, LICENSE), rebased on the upstream commit
// named in UPSTREAM, that serves the DynamoDB JSON API (and the DynamoDB
// Streams API) from memory on a loopback port: Serve and Start. README.md
// lists the fork's patches, its conformance figures and its bounds; `make
// minidyn-diff` shows the patches against upstream; docs/engines.md
// compares the engine with dynalite and DynamoDB Local.
package minidyn

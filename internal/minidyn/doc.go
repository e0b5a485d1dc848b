// Package minidyn is keyplan's in-process DynamoDB engine: a fork of
// github.com/truora/minidyn v0.7.0 (MIT, LICENSE) that serves the
// DynamoDB JSON API from memory on a loopback port, with real
// TransactWriteItems. README.md lists what the fork changed and why;
// docs/engines.md compares it with dynalite and DynamoDB.
package minidyn

// Package dynalite starts and stops the embedded DynamoDB-compatible
// engine (dynalite, pinned in package-lock.json) on a free loopback port,
// for keyplan validate and the integration tests.
package dynalite

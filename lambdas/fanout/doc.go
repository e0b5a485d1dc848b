// Command fanout is keyplan's stream handler for copies: when a source
// attribute changes it updates every denormalized copy of it, a bounded
// number per invocation, leaving the rest to a continuation item whose
// stream records carry the fan on (docs/operations.md).
package main

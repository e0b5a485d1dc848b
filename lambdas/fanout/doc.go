// Command fanout is keyplan's stream handler for copies: when a source
// attribute changes it updates every denormalized copy of it.
package main

// Package streamtest helps test stream handlers: an engine to write to,
// stream records built from the runtime's own items, and Lambda's
// redelivery of reported failures.
package streamtest

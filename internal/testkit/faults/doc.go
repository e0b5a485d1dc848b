// Package faults is a loopback proxy in front of a DynamoDB engine that
// fails a share of requests, for the tests that prove keyplan's writers
// (stream handlers, the backfill) lose nothing under faults.
package faults

//go:build linux

// Command cputime measures what a command costs, make test's CPU
// included: go run ./.ci/cputime make test. time(1) misses the CPU of a
// process orphaned under the command (DynamoDB Local's JVM, once the
// shell that watches it is killed, is reparented to init and reaped
// there); cputime makes itself the child subreaper of the command's
// tree, so every orphan comes back to it, waits for all of them, and
// prints the wall time and the user and system CPU of the whole tree
// (RUSAGE_CHILDREN). It exits with the command's status.
package main

// Package gen writes typed Go code from a design: a struct per entity, a
// method per read and write pattern, constants for the table and its
// indexes, and the design embedded, all calling keyplan's runtime
// (patterns/dynamo) underneath. keyplan gen go is its command.
package gen

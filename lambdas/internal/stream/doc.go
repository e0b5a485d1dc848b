// Package stream is what keyplan's stream handlers share (a library, not
// a handler; internal, so that only the handlers can import it): loading
// the design the construct ships in the table's design layer, identifying
// a record's item by its keys alone and reading only the attributes a
// handler asks for (Decode, Change.Raw, Change.Values), accounting for a
// batch (Batch: failures to retry reported by sequence number; records
// that no retry can change, items of no entity or undecodable, skipped,
// logged with their keys and counted), its metrics in CloudWatch's
// embedded metric format, structured JSON logs, and the typed entry point
// Main.
package stream

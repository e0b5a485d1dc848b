// Package streamtest helps test stream handlers: an engine to write to,
// stream records built from the runtime's own items, and Lambda's
// redelivery of reported failures; and, end to end, a design's table with
// its stream and TTL on the engine (LiveTable), whose change records —
// the engine's own, TTL expiries included — are read through the Streams
// API and delivered to a handler as Lambda's event source mapping would
// (Mapping: the construct's filters, batches and retries; LambdaRecord:
// the record in Lambda's JSON). Stream delivers a list of records as
// Lambda reads a shard (batches, redelivered grown from the first failed
// record); NewLog captures a handler's log and its metrics.
package streamtest

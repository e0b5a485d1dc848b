// Package stream is what keyplan's stream handlers share (a library, not
// a handler; internal, so that only the handlers can import it): loading
// the design the construct ships in the table's design layer, converting
// stream images to SDK attribute values, decoding them to entities,
// collecting partial batch failures by sequence number, structured JSON
// logs, and the typed entry point Main.
package stream

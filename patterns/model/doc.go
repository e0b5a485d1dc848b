// Package model is keyplan's access-pattern model: the types a model file
// declares (the table, its entities and their attributes, the read
// patterns, the writes, the examples), the loader that reads a model file
// into them (Load, ReadModel, Parse: every problem an *Error naming file,
// line, column, field and what was expected, joined under
// ErrInvalidModel), validation (Model.Validate), the attribute types with
// their key encoding and sizes (ScalarTypes), key templates
// (ParseTemplate), the key names the table and its indexes reserve, and
// DynamoDB's limits.
//
// It knows nothing of the planner: package patterns plans a Model into a
// Design, checks it, locks and evolves it (patterns/model imports only the
// standard library and a YAML parser, an archtest holds it). patterns
// keeps aliases of the names that moved here for one release
// (docs/compatibility.md).
package model

package patterns

import (
	"bytes"
	_ "embed"
)

//go:embed keyplan.schema.json
var schema []byte

// Schema returns the JSON Schema (draft 2020-12) of model files, for
// editors (a copy): point yaml-language-server or VS Code's json.schemas
// at patterns/keyplan.schema.json, or print it with `keyplan schema`.
func Schema() []byte { return bytes.Clone(schema) }

package patterns

import _ "embed"

// Schema is the JSON Schema (draft 2020-12) of model files, for editors:
// point yaml-language-server or VS Code's json.schemas at
// patterns/keyplan.schema.json, or print it with `keyplan schema`.
//
//go:embed keyplan.schema.json
var Schema []byte

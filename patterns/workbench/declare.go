package workbench

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/keyplan/keyplan/patterns/adopt"
	"github.com/keyplan/keyplan/patterns/model"
)

// declarationsPrefix starts the line of a model's description that holds
// what a Workbench data model has no field for: each entity's id and its
// attributes' declarations (an enum's values, a string's maxLength, a
// number's range or digits, times, optional, cardinality, immutable).
// Export writes it; Import reads it back, so a design exported and
// imported again keeps them. The rest of the description is free text.
const declarationsPrefix = "keyplan declarations: "

// declarations writes the model's declarations (adopt.Declarations) as
// one line of JSON.
func declarations(m *model.Model) (string, error) {
	b, err := json.Marshal(adopt.Declarations(m))
	return string(b), err
}

// readDeclarations finds the declarations line of a description (nil
// when there is none: a model keyplan did not write).
func readDeclarations(desc string) (map[string]*adopt.EntityDecl, error) {
	for _, line := range strings.Split(desc, "\n") {
		rest, ok := strings.CutPrefix(strings.TrimSpace(line), declarationsPrefix)
		if !ok {
			continue
		}
		var out map[string]*adopt.EntityDecl
		if err := json.Unmarshal([]byte(rest), &out); err != nil {
			return nil, fmt.Errorf("the description's %q line is not keyplan's: %v", strings.TrimSpace(declarationsPrefix), err)
		}
		return out, nil
	}
	return nil, nil
}

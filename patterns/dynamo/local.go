package dynamo

import (
	"fmt"
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/keyplan/keyplan/patterns"
)

// A design's local secondary indexes on a table: created with it
// (CreateTable, never UpdateTable: DynamoDB adds and removes no LSI
// afterwards), keyed by the table's partition key and the index's own
// sort key string, and checked on a live table before a phase is
// applied (a table without them cannot get them).

// localIndexes are the design's LSIs as CreateTable takes them, and the
// attribute definitions their sort keys need.
func localIndexes(d *patterns.Design) ([]types.LocalSecondaryIndex, []types.AttributeDefinition) {
	var out []types.LocalSecondaryIndex
	var attrs []types.AttributeDefinition
	for _, ix := range d.LocalIndexes {
		p := &types.Projection{ProjectionType: types.ProjectionType(ix.Projection)}
		if len(ix.NonKeyAttributes) > 0 {
			p.NonKeyAttributes = ix.NonKeyAttributes
		}
		out = append(out, types.LocalSecondaryIndex{IndexName: aws.String(ix.Name), KeySchema: keySchema(ix.PK, ix.SK), Projection: p})
		attrs = append(attrs, stringAttrs(ix.SK)...)
	}
	return out, attrs
}

// checkLocal reports a table whose LSIs are not the design's (names and
// key schemas): no change of a phase can make them so.
func checkLocal(t *types.TableDescription, d *patterns.Design) error {
	have := map[string]string{}
	for _, l := range t.LocalSecondaryIndexes {
		have[aws.ToString(l.IndexName)] = schemaText(l.KeySchema)
	}
	var wrong []string
	for _, ix := range d.LocalIndexes {
		got, ok := have[ix.Name]
		switch want := schemaText(keySchema(ix.PK, ix.SK)); {
		case !ok:
			wrong = append(wrong, "it has no "+ix.Name)
		case got != want:
			wrong = append(wrong, fmt.Sprintf("its %s is keyed %s, not %s", ix.Name, got, want))
		}
		delete(have, ix.Name)
	}
	for _, n := range slices.Sorted(func(yield func(string) bool) {
		for n := range have {
			if !yield(n) {
				return
			}
		}
	}) {
		wrong = append(wrong, "it has "+n+", which the design does not")
	}
	if len(wrong) == 0 {
		return nil
	}
	return fmt.Errorf("its local secondary indexes are not the design's (%s): an LSI exists only from a table's creation, so no phase can change them; not this model's table", strings.Join(wrong, "; "))
}

package prove

import (
	"context"
	"encoding/base64"
	"fmt"
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/keyplan/keyplan/patterns"
	"github.com/keyplan/keyplan/patterns/dynamo"
	"github.com/keyplan/keyplan/patterns/model"
)

// What validate --existing checks of each example item a read returns:
// that the table holds it as the example says, attribute by attribute,
// not only under its key. A table after a migration is checked so: a
// backfill that wrote a wrong value, or a wrong GSI key, fails.

// itemDifferences compares an example item with the item the table
// holds under its key, read from the base table with a consistent
// GetItem (every attribute, whatever the read's index projects):
//   - each of the entity's attributes, normalised by its type (a number
//     is a number: 3 and 3.0 are alike; a set's order does not count);
//   - each key attribute (the base table's and every GSI's) as the
//     design builds it from the example's values: a GSI key the item
//     should not have is a difference too (it puts the item on an index).
//
// During a migration (the table's runtime is a rollout) a key the item
// does not hold yet is not a difference: the backfill writes it. Keys the
// final design does not write for an entity the lock's cleanup names are
// leftovers keyplan migrate removes: not differences either. Attributes
// the design does not name at all (another application's) are not
// compared. The GetItem is not counted among the read's requests.
func itemDifferences(t *dynamo.Table, ctx context.Context, ex *model.ExampleItem, cleanup *patterns.Cleanup) []string {
	want, err := t.Probe().Item(ex.Entity, dynamo.Values(ex.Values))
	if err != nil {
		return []string{fmt.Sprintf("%s: the design cannot build the example item: %v", ex.Name, err)}
	}
	key := map[string]types.AttributeValue{t.Design().PK: want[t.Design().PK], t.Design().SK: want[t.Design().SK]}
	out, err := t.Probe().Client().GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(t.Name()), Key: key, ConsistentRead: aws.Bool(true)})
	if err != nil {
		return []string{fmt.Sprintf("%s: reading the item from the base table to compare it: %v", ex.Name, err)}
	}
	got := out.Item
	if got == nil {
		return []string{fmt.Sprintf("%s: the base table holds no item under its key", ex.Name)}
	}
	var diffs []string
	migrating, _ := t.Probe().Rollout()
	e := t.Design().Model().Entity(ex.Entity)
	for _, a := range e.Attributes {
		if !a.Stored() {
			continue
		}
		w, g := want[a.Name], got[a.Name]
		if g == nil && migrating != nil && a.RenamedFrom != "" {
			g = got[a.RenamedFrom] // not yet backfilled to its new name
		}
		if d := attrDifference(a, w, g); d != "" {
			diffs = append(diffs, fmt.Sprintf("%s.%s: %s", ex.Name, a.Name, d))
		}
	}
	leftover := cleanup != nil && slices.Contains(cleanup.Entities, ex.Entity)
	for _, n := range keyAttributes(t) {
		w, g := want[n], got[n]
		switch {
		case w == nil && g == nil:
		case g == nil && migrating == nil:
			diffs = append(diffs, fmt.Sprintf("%s: key attribute %s: expected %s, the table's item has none", ex.Name, n, avText(w)))
		case w == nil && !leftover:
			diffs = append(diffs, fmt.Sprintf("%s: key attribute %s: the table's item has %s, which the design does not give it (it puts the item on an index it should not be on)", ex.Name, n, avText(g)))
		case w != nil && g != nil && !dynamo.SameValue(w, g):
			diffs = append(diffs, fmt.Sprintf("%s: key attribute %s: expected %s, the table holds %s", ex.Name, n, avText(w), avText(g)))
		}
	}
	return diffs
}

// markWritten marks the example items (by name) an example write changes:
// each item it writes whose key its parameters give, or, when they do not
// give it, every example item of that entity.
func markWritten(t *dynamo.Table, st *model.Step, names map[string]string, out map[string]bool) {
	w := t.Design().Model().Write(st.Write)
	if w == nil {
		return
	}
	for _, s := range w.Items() {
		key, err := t.Key(s.Entity, dynamo.Values(st.Params))
		for k, name := range names {
			entity, base, _ := strings.Cut(k, "\x00")
			if entity == s.Entity && (err != nil || base == dynamo.KeyText(t.Design(), key)) {
				out[name] = true
			}
		}
	}
}

// attrDifference says how an attribute's stored value differs from the
// expected one ("": alike), each read back by the attribute's type.
func attrDifference(a *model.Attribute, w, g types.AttributeValue) string {
	if w == nil && g == nil {
		return ""
	}
	wv, werr := decodedOrNil(a, w)
	gv, gerr := decodedOrNil(a, g)
	switch {
	case w != nil && g != nil && avKind(w) != avKind(g):
		return fmt.Sprintf("expected %s, the table holds %s, a %s where the design writes a %s", valueText(wv), avText(g), avKind(g), avKind(w))
	case gerr != nil:
		return fmt.Sprintf("expected %s, the table holds %s, which is not a %s: %v", valueText(wv), avText(g), a.Type, gerr)
	case werr != nil:
		return fmt.Sprintf("the example's value cannot be read back: %v", werr)
	case g == nil:
		return fmt.Sprintf("expected %s, the table's item has none", valueText(wv))
	case w == nil:
		return fmt.Sprintf("expected none, the table holds %s", valueText(gv))
	case !dynamo.SameAs(a, wv, gv):
		return fmt.Sprintf("expected %s, the table holds %s", valueText(wv), valueText(gv))
	}
	return ""
}

func decodedOrNil(a *model.Attribute, av types.AttributeValue) (any, error) {
	if av == nil {
		return nil, nil
	}
	return dynamo.Probe{}.Decoded(a, av)
}

func valueText(v any) string {
	if s, ok := v.(string); ok {
		return fmt.Sprintf("%q", s)
	}
	return fmt.Sprint(v)
}

// avKind names a stored value's DynamoDB type (S, N, BOOL, SS, ...).
func avKind(av types.AttributeValue) string {
	switch av.(type) {
	case *types.AttributeValueMemberS:
		return "string (S)"
	case *types.AttributeValueMemberN:
		return "number (N)"
	case *types.AttributeValueMemberBOOL:
		return "boolean (BOOL)"
	case *types.AttributeValueMemberSS:
		return "string set (SS)"
	case *types.AttributeValueMemberNS:
		return "number set (NS)"
	case *types.AttributeValueMemberL:
		return "list (L)"
	case *types.AttributeValueMemberM:
		return "map (M)"
	case *types.AttributeValueMemberB:
		return "binary (B)"
	case *types.AttributeValueMemberNULL:
		return "null (NULL)"
	}
	return fmt.Sprintf("%T", av)
}

// avText renders a stored value: a string quoted, a number as stored.
func avText(av types.AttributeValue) string {
	switch x := av.(type) {
	case *types.AttributeValueMemberS:
		return fmt.Sprintf("%q", x.Value)
	case *types.AttributeValueMemberN:
		return x.Value
	case *types.AttributeValueMemberBOOL:
		return fmt.Sprint(x.Value)
	case *types.AttributeValueMemberB:
		return base64.StdEncoding.EncodeToString(x.Value)
	}
	return fmt.Sprintf("%T", av)
}

// keyAttributes are the names of the table's key attributes: the base
// table's and every GSI's, of the design and, during a migration, of
// the accepted one too.
func keyAttributes(t *dynamo.Table) []string {
	var out []string
	add := func(d *patterns.Design) {
		out = append(out, d.PK, d.SK)
		for _, ix := range d.SecondaryIndexes() {
			pk, sk := d.KeyNames(ix.Name)
			out = append(out, pk, sk)
		}
	}
	add(t.Design())
	if _, accepted := t.Probe().Rollout(); accepted != nil {
		add(accepted)
	}
	slices.Sort(out)
	return slices.Compact(slices.DeleteFunc(out, func(s string) bool { return s == "" }))
}

package patterns

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/keyplan/keyplan/patterns/model"
)

// Native keys. A GSI may be keyed on the items' own typed attributes, up
// to MaxKeyAttributes for the partition and as many for the sort key
// (DynamoDB's multi-attribute keys), instead of the synthetic strings
// GSIxPK/GSIxSK keyplan writes: nothing is concatenated, padded or
// escaped, no key attribute is written, and a new index over attributes
// the items already hold needs no backfill (DynamoDB builds it).
//
// In the design a native index lists its attributes (Index.PartitionKeys,
// Index.SortKeys) and each entity's key on it is written in the canonical
// form nativeTemplates gives: the attributes in order, joined by the
// separator, led by the entity's tag when the index has a discriminator.
// Read as a template, that key serves exactly the patterns the native key
// serves (every partition attribute by equality; sort attributes left to
// right, a range on the first one not given), so the matcher, the checks
// and the lock treat it as any key.

// IndexEntityName is the attribute that tells a native index's entities
// apart (its discriminator): GSI2 → GSI2Entity, holding the entity's tag.
// It leads the index's partition key when entities sharing the index, or
// other entities of the table, can carry the index's attribute names.
func IndexEntityName(index string) string { return index + "Entity" }

// Native reports whether the index is keyed on the items' own attributes.
func (ix *Index) Native() bool { return len(ix.PartitionKeys) > 0 }

// Discriminated reports whether a native index's partition key leads
// with its discriminator (IndexEntityName).
func (ix *Index) Discriminated() bool {
	return ix.Native() && ix.PartitionKeys[0] == IndexEntityName(ix.Name)
}

// KeyAttributes are the index's key attribute names: GSIxPK and GSIxSK, or
// a native index's partition then sort attributes.
func (ix *Index) KeyAttributes() []string {
	if ix.Native() {
		return append(slices.Clone(ix.PartitionKeys), ix.SortKeys...)
	}
	return []string{ix.PK, ix.SK}
}

// StoredKeys are the attributes the index alone puts on items: GSIxPK and
// GSIxSK, or a native index's discriminator (its other key attributes are
// the items' own, which no cleanup may remove).
func (ix *Index) StoredKeys() []string {
	switch {
	case ix.Local():
		return []string{ix.SK} // its partition key is the table's
	case !ix.Native():
		return []string{ix.PK, ix.SK}
	case ix.Discriminated():
		return []string{IndexEntityName(ix.Name)}
	}
	return nil
}

// KeyText is the key as the reports show it: "GSI1PK/GSI1SK", or a
// native index's "tenantId, status / createdAt" (a partition key alone:
// no slash).
func (ix *Index) KeyText() string {
	if !ix.Native() {
		return ix.PK + "/" + ix.SK
	}
	s := strings.Join(ix.PartitionKeys, ", ")
	if len(ix.SortKeys) > 0 {
		s += " / " + strings.Join(ix.SortKeys, ", ")
	}
	return s
}

// KeyCells are an entity's key on an index as the reports show it: its
// partition and sort templates, or on a native index the attributes
// (`GSI2Entity = "TASK", tenantId` and `createdAt, taskId`).
func (d *Design) KeyCells(entity string, k *EntityKey) (pk, sk string) {
	ix := d.Index(k.Index)
	if ix == nil || !ix.Native() {
		return k.PK.String(), k.SK.String()
	}
	part := slices.Clone(ix.PartitionKeys)
	if ix.Discriminated() {
		tag := ""
		if ek := d.Entity(entity); ek != nil {
			tag = ek.Tag
		}
		part[0] += " = " + strconv.Quote(tag)
	}
	return strings.Join(part, ", "), strings.Join(ix.SortKeys, ", ")
}

// KeyLine is an entity's key on an index on one line, as the text report
// shows it: "GSI1PK=PLAYER#HANDLE#{handle} GSI1SK=PLAYER#{playerId}", or
// "native: tenantId, status / createdAt, taskId".
func (d *Design) KeyLine(entity string, k *EntityKey) string {
	pk, sk := d.KeyCells(entity, k)
	if ix := d.Index(k.Index); ix != nil && ix.Native() {
		if sk == "" {
			return "native: " + pk
		}
		return "native: " + pk + " / " + sk
	}
	pn, sn := d.KeyNames(k.Index)
	return pn + "=" + pk + " " + sn + "=" + sk
}

// keyTypes maps an attribute name to the DynamoDB types entities of the
// model store it as (one each; more than one is a clash).
func keyTypes(m *model.Model, name string) map[string][]string {
	out := map[string][]string{}
	for _, e := range m.Entities {
		if a := e.Attr(name); a != nil {
			out[a.DynamoType()] = append(out[a.DynamoType()], e.Name)
		}
	}
	return out
}

// nativeTemplates is an entity's key on a native index in canonical
// form: the partition attributes (after the discriminator, when the index
// has one: then led by the entity's tag), and the sort attributes, each
// joined by the separator.
func nativeTemplates(tag string, discriminated bool, part, sort []string) (pk, sk model.Template) {
	join := func(lead string, attrs []string) model.Template {
		var t model.Template
		if lead != "" {
			t = t.Lit(lead)
		}
		for i, a := range attrs {
			if i > 0 || lead != "" {
				t = t.Lit(string(model.Sep))
			}
			t = t.Attr(a)
		}
		return t
	}
	lead := ""
	if discriminated {
		lead = tag
	}
	return join(lead, part), join("", sort)
}

// nativeOwnAttrs are a native index's partition attributes less its
// discriminator.
func nativeOwnAttrs(ix *Index) []string {
	if ix.Discriminated() {
		return ix.PartitionKeys[1:]
	}
	return ix.PartitionKeys
}

// KeyChoice is how one GSI is keyed, and why.
type KeyChoice struct {
	Index  string `json:"index"`
	Native bool   `json:"native"`
	Why    string `json:"why"`
	// limit is why it is not native (planning only: the checks' reason).
	limit nativeLimit
}

// NativeTerm is one attribute of a native key condition: Param names the
// pattern parameter that gives its value, else Value is a constant (a
// filter constant, or the entity's tag for the discriminator).
type NativeTerm struct {
	Attr  string
	Param string
	Value string
}

// NativeCondition is a pattern's key condition on a native index: every
// partition attribute by equality, equalities on the leading sort
// attributes, then the caller's range on SortAttr ("" for none).
type NativeCondition struct {
	Partition []NativeTerm
	Sort      []NativeTerm
	SortAttr  string
}

// NativeCondition is how a pattern served by a native index reads it, nil
// for a pattern served otherwise.
func (d *Design) NativeCondition(pattern string) *NativeCondition {
	pp := d.Pattern(pattern)
	if pp == nil || !pp.Served() || pp.Index == model.BaseIndex || len(pp.Entities) != 1 {
		return nil
	}
	ix := d.Index(pp.Index)
	ek := d.Entity(pp.Entities[0])
	p := d.model.Pattern(pattern)
	if ix == nil || !ix.Native() || ek == nil || p == nil {
		return nil
	}
	return nativeCondition(d.model, p, ix, ek.Tag)
}

func nativeCondition(m *model.Model, p *model.Pattern, ix *Index, tag string) *NativeCondition {
	k := derive(m, p).known
	term := func(a string) (NativeTerm, bool) {
		if k.eq[a] {
			return NativeTerm{Attr: a, Param: a}, true
		}
		if v, ok := k.consts[a]; ok {
			return NativeTerm{Attr: a, Value: v}, true
		}
		return NativeTerm{}, false
	}
	c := &NativeCondition{}
	for i, a := range ix.PartitionKeys {
		if i == 0 && ix.Discriminated() {
			c.Partition = append(c.Partition, NativeTerm{Attr: a, Value: tag})
			continue
		}
		t, ok := term(a)
		if !ok {
			t = NativeTerm{Attr: a} // not given: KP212 says so
		}
		c.Partition = append(c.Partition, t)
	}
	for _, a := range ix.SortKeys {
		t, ok := term(a)
		if !ok {
			if a == p.SortAttr() {
				c.SortAttr = a
			}
			break
		}
		c.Sort = append(c.Sort, t)
	}
	return c
}

// Render writes the condition as the plan shows it: `GSI2Entity = "TASK"
// AND tenantId = {tenantId}, ordered by createdAt`.
func (c *NativeCondition) Render() string {
	var parts []string
	for _, t := range append(slices.Clone(c.Partition), c.Sort...) {
		if t.Param != "" {
			parts = append(parts, fmt.Sprintf("%s = {%s}", t.Attr, t.Param))
		} else {
			parts = append(parts, fmt.Sprintf("%s = %s", t.Attr, strconv.Quote(t.Value)))
		}
	}
	s := strings.Join(parts, " AND ")
	if c.SortAttr != "" {
		s += ", ordered by " + c.SortAttr
	}
	return s
}

// KeyTypes are the DynamoDB types of a native index's key attributes (S
// for its discriminator), for its AttributeDefinitions; nil for a
// synthetic index (its keys are strings).
func (d *Design) KeyTypes(ix *Index) map[string]string {
	if !ix.Native() {
		return nil
	}
	out := map[string]string{}
	for i, a := range ix.KeyAttributes() {
		if i == 0 && ix.Discriminated() {
			out[a] = "S"
			continue
		}
		for t := range keyTypes(d.model, a) {
			out[a] = t
		}
	}
	return out
}

// checkNativeIndex checks a native index read back from a file: its
// attributes, within DynamoDB's bounds, each named once, the
// discriminator only first, no GSIxPK/GSIxSK.
func checkNativeIndex(m *model.Model, ix *Index) error {
	all := ix.KeyAttributes()
	switch {
	case ix.PK != "" || ix.SK != "":
		return fmt.Errorf("index %s is native (partitionKeys) but also keyed %s/%s", ix.Name, ix.PK, ix.SK)
	case len(ix.PartitionKeys) == 0:
		return fmt.Errorf("index %s has sortKeys but no partitionKeys", ix.Name)
	case len(ix.PartitionKeys) > model.MaxKeyAttributes || len(ix.SortKeys) > model.MaxKeyAttributes:
		return fmt.Errorf("index %s is keyed on %d partition and %d sort attributes; DynamoDB takes at most %d of each", ix.Name, len(ix.PartitionKeys), len(ix.SortKeys), model.MaxKeyAttributes)
	}
	for i, a := range all {
		if slices.Contains(all[:i], a) {
			return fmt.Errorf("index %s names key attribute %s twice", ix.Name, a)
		}
		if a == IndexEntityName(ix.Name) {
			if i != 0 {
				return fmt.Errorf("index %s: its discriminator %s must lead its partition key", ix.Name, a)
			}
			continue
		}
		if model.ReservedAttr(a) || a == model.TablePK || a == model.TableSK || len(keyTypes(m, a)) == 0 {
			return fmt.Errorf("index %s is keyed on %s, which no entity of the model has", ix.Name, a)
		}
	}
	return nil
}

// nativeHashOnly reports whether index is a native index without a sort
// key (its keys' sort templates are empty).
func nativeHashOnly(d *Design, index string) bool {
	ix := d.Index(index)
	return ix != nil && ix.Native() && len(ix.SortKeys) == 0
}

// checkNativeKey checks that an entity's key on a native index is the
// canonical form of the index's attributes.
func checkNativeKey(d *Design, ek *EntityKeys, k *EntityKey) error {
	ix := d.Index(k.Index)
	if ix == nil || !ix.Native() {
		return nil
	}
	pk, sk := nativeTemplates(ek.Tag, ix.Discriminated(), nativeOwnAttrs(ix), ix.SortKeys)
	if !k.PK.Equal(pk) || !k.SK.Equal(sk) || len(k.When) > 0 {
		return fmt.Errorf("entity %s: its key on native index %s is %s / %s; the index's attributes give %s / %s", ek.Name, ix.Name, k.PK, k.SK, pk, sk)
	}
	return nil
}

// validNative checks a native index of a phase read from a file: a
// native index of the design's (checkNativeIndex) with a DynamoDB key type
// for each attribute.
func (ix *PhaseIndex) validNative() error {
	all := append(slices.Clone(ix.PartitionKeys), ix.SortKeys...)
	switch {
	case ix.PK != "" || ix.SK != "":
		return fmt.Errorf("index %s is native (partitionKeys) but also keyed %s/%s", ix.Name, ix.PK, ix.SK)
	case len(ix.PartitionKeys) == 0 || len(ix.PartitionKeys) > model.MaxKeyAttributes || len(ix.SortKeys) > model.MaxKeyAttributes:
		return fmt.Errorf("index %s is keyed on %d partition and %d sort attributes; DynamoDB takes 1 to %d, and at most %d", ix.Name, len(ix.PartitionKeys), len(ix.SortKeys), model.MaxKeyAttributes, model.MaxKeyAttributes)
	case len(ix.KeyTypes) != len(all):
		return fmt.Errorf("index %s: keyTypes %v do not type its key attributes %v", ix.Name, ix.KeyTypes, all)
	}
	for i, a := range all {
		if slices.Contains(all[:i], a) || !model.ValidName(a) {
			return fmt.Errorf("index %s: key attribute %q named twice, or not a name", ix.Name, a)
		}
		if t := ix.KeyTypes[a]; t != "S" && t != "N" && t != "B" {
			return fmt.Errorf("index %s: key attribute %s of type %q; expected S, N or B", ix.Name, a, t)
		}
	}
	return nil
}

package dynamo

import (
	"fmt"
	"hash/fnv"
	"maps"
	"sort"
	"strconv"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/keyplan/keyplan/patterns"
	"github.com/keyplan/keyplan/patterns/model"
)

// render fills a key template from values. A shard segment takes the
// item's shard: a hash of its id, so an item stays on one shard.
func render(e *model.Entity, tmpl model.Template, v map[string]any) (string, error) {
	var b strings.Builder
	for _, s := range tmpl {
		switch {
		case s.Shards > 0:
			n, err := shardOf(e, v, s.Shards)
			if err != nil {
				return "", err
			}
			b.WriteString(strconv.Itoa(n))
		case s.Attr != "":
			x, ok := v[s.Attr]
			if !ok || x == nil {
				return "", fmt.Errorf("%w: %s", ErrMissing, s.Attr)
			}
			enc, err := e.Attr(s.Attr).EncodeKey(x)
			if err != nil {
				return "", err
			}
			b.WriteString(enc)
		default:
			b.WriteString(s.Lit)
		}
	}
	return b.String(), nil
}

func shardOf(e *model.Entity, v map[string]any, n int) (int, error) {
	h := fnv.New32a()
	for _, id := range e.ID {
		enc, err := e.Attr(id).EncodeKey(v[id])
		if err != nil {
			return 0, err
		}
		h.Write([]byte(enc))
		h.Write([]byte{model.Sep})
	}
	return int(h.Sum32() % uint32(n)), nil
}

// stored converts a value to how the attribute is stored: its DynamoDB
// type (patterns.ScalarType.Dynamo) holding its stored form.
func stored(a *model.Attribute, v any) (types.AttributeValue, error) {
	return storedChecked(a, v, false)
}

// storedChecked is stored for a value whose key encoding already checked
// it (checked: skip checking again).
func storedChecked(a *model.Attribute, v any, checked bool) (types.AttributeValue, error) {
	if !a.Scalar() {
		return storedMany(a, v)
	}
	x, err := a.StoredValue(v, checked)
	if err != nil {
		return nil, err
	}
	return member(a, x)
}

// member is a stored form (patterns.Attribute.StoredValue) in the member
// of its DynamoDB type.
func member(a *model.Attribute, x any) (types.AttributeValue, error) {
	switch t := a.DynamoType(); t {
	case "S", "N":
		s, ok := x.(string)
		if ok && t == "N" {
			return &types.AttributeValueMemberN{Value: s}, nil
		} else if ok {
			return &types.AttributeValueMemberS{Value: s}, nil
		}
	case "B":
		if b, ok := x.([]byte); ok {
			return &types.AttributeValueMemberB{Value: b}, nil
		}
	case "BOOL":
		if b, ok := x.(bool); ok {
			return &types.AttributeValueMemberBOOL{Value: b}, nil
		}
	}
	return nil, fmt.Errorf("attribute %s: a stored %s form %T", a.Name, a.DynamoType(), x)
}

// number renders a number attribute's value in DynamoDB's N form; bounded
// numbers (and ttls) must be integers in range.
func number(a *model.Attribute, v any, checked bool) (string, error) {
	return a.NumberText(v, checked)
}

// fromStored converts a stored attribute back: string, int64 or float64,
// time.Time, bool, []byte.
func fromStored(a *model.Attribute, av types.AttributeValue) (any, error) {
	if !a.Scalar() {
		return fromStoredMany(a, av)
	}
	switch x := av.(type) {
	case *types.AttributeValueMemberS:
		return a.FromStoredText(x.Value)
	case *types.AttributeValueMemberN:
		if i, err := strconv.ParseInt(x.Value, 10, 64); err == nil {
			return i, nil
		}
		return strconv.ParseFloat(x.Value, 64)
	case *types.AttributeValueMemberBOOL:
		return x.Value, nil
	case *types.AttributeValueMemberB:
		return x.Value, nil
	}
	return nil, fmt.Errorf("attribute %s: unexpected %T", a.Name, av)
}

// entityPlan is an entity's keys compiled for building items fast:
// attributes by position, templates as literal/attribute-position steps.
type entityPlan struct {
	e      *model.Entity
	keyed  []bool // the attribute appears in some synthetic key
	keys   []keyPlan
	byName map[string]int
	// discs are the discriminators of the native indexes keying the
	// entity (its items carry no other attribute for them).
	discs []discriminator
}

type keyPlan struct {
	table bool
	// pkName is "" on an LSI: its partition key is the table's, which
	// the item's base key writes (and an update never sets).
	pkName, skName string
	pk, sk         []step
	needs          []int       // attributes the key reads
	when           []whenConst // constants a sparse key needs
}

// step is a literal (attr < 0), an attribute by position, or a shard.
type step struct {
	lit    string
	attr   int
	shards int
}

type whenConst struct {
	attr int
	enc  string
}

func compile(d *patterns.Design, ek *patterns.EntityKeys) *entityPlan {
	e := d.Model().Entity(ek.Name)
	p := &entityPlan{e: e, keyed: make([]bool, len(e.Attributes)), byName: map[string]int{}}
	for i, a := range e.Attributes {
		p.byName[a.Name] = i
	}
	steps := func(t model.Template, needs *[]int) []step {
		out := make([]step, len(t))
		for i, s := range t {
			out[i] = step{lit: s.Lit, attr: -1, shards: s.Shards}
			if s.Attr != "" {
				out[i].attr = p.byName[s.Attr]
				p.keyed[out[i].attr] = true
				*needs = append(*needs, out[i].attr)
			}
		}
		return out
	}
	p.discs = discriminators(d, ek)
	for _, k := range ek.Keys {
		if ix := d.Index(k.Index); ix != nil && ix.Native() {
			continue // the item's own attributes are its key
		}
		kp := keyPlan{table: k.Index == model.BaseIndex}
		kp.pkName, kp.skName = d.KeyNames(k.Index)
		if ix := d.Index(k.Index); ix != nil && ix.Local() {
			kp.pkName = "" // the base key's partition key: written once, by it
		} else {
			kp.pk = steps(k.PK, &kp.needs)
		}
		kp.sk = steps(k.SK, &kp.needs)
		for _, c := range k.When {
			i := p.byName[c.Attr]
			enc, _ := e.Attributes[i].EncodeKey(c.Value)
			kp.when = append(kp.when, whenConst{i, enc})
			p.keyed[i] = true
		}
		p.keys = append(p.keys, kp)
	}
	return p
}

// build renders compiled steps from encoded attribute values.
func (p *entityPlan) build(steps []step, enc []string, v Values) (string, error) {
	if len(steps) == 1 && steps[0].attr < 0 && steps[0].shards == 0 {
		return steps[0].lit, nil // a constant: no copy
	}
	n := 0
	for _, s := range steps {
		n += len(s.lit) + len(enc[max(s.attr, 0)])
	}
	var b strings.Builder
	b.Grow(n + 4)
	for _, s := range steps {
		switch {
		case s.shards > 0:
			shard, err := shardOf(p.e, v, s.shards)
			if err != nil {
				return "", err
			}
			b.WriteString(strconv.Itoa(shard))
		case s.attr >= 0:
			b.WriteString(enc[s.attr])
		default:
			b.WriteString(s.lit)
		}
	}
	return b.String(), nil
}

// Item builds the entity's full item: its attributes, the base table's
// PK/SK, and exactly the GSI key attributes the design gives it. A GSI key
// is left out (the index stays sparse) when the item lacks one of its
// attributes or does not hold the constants the key is sparse on. A
// value kept in S3 (store: s3) is given as its object's key: a value
// is refused (ErrObjectInline), Put and Create store it.
func (t *Table) Item(entity string, v Values) (map[string]types.AttributeValue, error) {
	v, err := t.refuseInlineValues(entity, v)
	if err != nil {
		return nil, wrap("Item", entity, err)
	}
	item, err := t.item(entity, v)
	return item, wrap("Item", entity, err)
}

func (t *Table) item(entity string, v Values) (map[string]types.AttributeValue, error) {
	return t.build(entity, v, true)
}

// build is item; when not strict, values of other names (a write's other
// parameters) are left out instead of refused.
func (t *Table) build(entity string, v Values, strict bool) (map[string]types.AttributeValue, error) {
	p := t.plans[entity]
	if p == nil {
		_, _, err := t.entity(entity)
		return nil, err
	}
	e := p.e
	if err := e.CheckIDTimes(v); err != nil {
		return nil, err
	}
	v, err := withDerived(e, v)
	if err != nil {
		return nil, err
	}
	if e.Version != "" && v[e.Version] == nil { // a new item is at version 1
		v = maps.Clone(v)
		v[e.Version] = 1
	}
	item := make(map[string]types.AttributeValue, len(e.Attributes)+2*len(p.keys))
	var encBuf [16]string
	var presentBuf [16]bool
	var enc []string
	var present []bool
	if n := len(e.Attributes); n <= len(encBuf) {
		enc, present = encBuf[:n], presentBuf[:n]
	} else {
		enc, present = make([]string, n), make([]bool, n)
	}
	known := 0
	for i, a := range e.Attributes {
		x, ok := v[a.Name]
		if !a.Stored() {
			if ok && x != nil {
				return nil, fmt.Errorf("%w: %s.%s is a sharded counter: its shard items hold it (add to it with an update, read it with its pattern)", ErrUnknownAttr, entity, a.Name)
			}
			if ok {
				known++
			}
			continue
		}
		if !ok || x == nil {
			if !a.Optional && a.Type != model.TypeSet {
				if hint := t.d.RequiredHint(entity, a.Name); hint != "" {
					return nil, fmt.Errorf("%w: %s.%s is required: %s", ErrMissing, entity, a.Name, hint)
				}
				return nil, fmt.Errorf("%w: %s.%s is required", ErrMissing, entity, a.Name)
			}
			continue
		}
		known++
		present[i] = true
		if p.keyed[i] {
			s, err := a.EncodeKey(x)
			if err != nil {
				return nil, err
			}
			enc[i] = s
			if model.Scalar(a.Type).StoredAsKey { // stored as its key form
				item[a.Name] = &types.AttributeValueMemberS{Value: s}
				continue
			}
		}
		av, err := storedChecked(a, x, p.keyed[i])
		if err != nil {
			return nil, err
		}
		if av == nil { // an empty set: no value
			present[i] = false
			continue
		}
		if err := t.checkNativeValue(a, av); err != nil {
			return nil, err
		}
		item[a.Name] = av
	}
	for _, dc := range p.discs {
		item[dc.name] = &types.AttributeValueMemberS{Value: dc.value}
	}
	if strict && known < len(v) {
		for _, name := range sortedNames(v) {
			if _, ok := p.byName[name]; !ok && v[name] != nil {
				return nil, fmt.Errorf("%w %q of %s", ErrUnknownAttr, name, entity)
			}
		}
	}
	if err := p.putKeys(item, true, present, enc, v); err != nil {
		return nil, err
	}
	if err := t.expand(entity, v, item); err != nil {
		return nil, err
	}
	return item, nil
}

// putKeys writes into item the key attributes of every key the item
// holds (the base table's when table is true, and each GSI key whose
// attributes and sparse constants the item has).
func (p *entityPlan) putKeys(item map[string]types.AttributeValue, table bool, present []bool, enc []string, v Values) error {
	for _, k := range p.keys {
		if k.table && !table || !k.table && !p.holds(k, present, enc) {
			continue
		}
		pk, err := p.build(k.pk, enc, v)
		if err != nil {
			return err
		}
		sk, err := p.build(k.sk, enc, v)
		if err != nil {
			return err
		}
		if k.pkName != "" {
			item[k.pkName] = &types.AttributeValueMemberS{Value: pk}
		}
		item[k.skName] = &types.AttributeValueMemberS{Value: sk}
	}
	return nil
}

// id names a key plan by its index's own key attribute: the partition
// key's, or an LSI's sort key (its partition key is the table's).
func (k keyPlan) id() string {
	if k.pkName == "" {
		return k.skName
	}
	return k.pkName
}

// keyEdit sets (val) or removes (nil) a key's attributes: an LSI's sort
// key alone.
func keyEdit(edits []edit, k keyPlan, pk, sk types.AttributeValue) []edit {
	op := updSet
	if sk == nil {
		op = updRemove
	}
	if k.pkName != "" {
		edits = append(edits, edit{op, k.pkName, pk})
	}
	return append(edits, edit{op, k.skName, sk})
}

// holds reports whether an item with these attributes is on a GSI key:
// it has every attribute the key reads, and the constants the key is
// sparse on.
func (p *entityPlan) holds(k keyPlan, present []bool, enc []string) bool {
	for _, i := range k.needs {
		if !present[i] {
			return false // sparse: the item lacks an attribute
		}
	}
	for _, w := range k.when {
		if !present[w.attr] || enc[w.attr] != w.enc {
			return false // sparse: not the constant
		}
	}
	return true
}

// Key is the entity's primary key (PK and SK) for GetItem, UpdateItem and
// DeleteItem; v needs only the id attributes.
func (t *Table) Key(entity string, v Values) (map[string]types.AttributeValue, error) {
	key, err := t.key(entity, v)
	return key, wrap("Key", entity, err)
}

func (t *Table) key(entity string, v Values) (map[string]types.AttributeValue, error) {
	e, ek, err := t.entity(entity)
	if err != nil {
		return nil, err
	}
	if err := e.CheckIDTimes(v); err != nil {
		return nil, err
	}
	k := ek.Key(model.BaseIndex)
	pk, err := render(e, k.PK, v)
	if err != nil {
		return nil, err
	}
	sk, err := render(e, k.SK, v)
	if err != nil {
		return nil, err
	}
	return map[string]types.AttributeValue{
		t.d.PK: &types.AttributeValueMemberS{Value: pk},
		t.d.SK: &types.AttributeValueMemberS{Value: sk},
	}, nil
}

// Decode tells which entity an item is (by its base table keys, which
// every index projects) and returns its values: the stored attributes and
// those the keys hold. Any attribute that does not decode fails it; to
// read only some, Identify and DecodeAttrs.
func (t *Table) Decode(item map[string]types.AttributeValue) (string, Values, error) {
	ek, e, v, err := t.identify(item)
	if err != nil {
		return "", nil, err
	}
	if err := t.decodeRest(ek, e, item, v, nil); err != nil {
		return "", nil, err
	}
	return ek.Name, v, nil
}

// ReservedKind says whether an item is keyplan's own bookkeeping (its
// partition key, the attribute pk names, starts with
// patterns.ReservedPrefix) and which: its tag, such as patterns.GuardTag
// ("~UNIQUE") for a unique value's guard.
func ReservedKind(item map[string]types.AttributeValue, pk string) (string, bool) {
	p, _ := item[pk].(*types.AttributeValueMemberS)
	if p == nil || !strings.HasPrefix(p.Value, patterns.ReservedPrefix) {
		return "", false
	}
	kind, _, _ := strings.Cut(p.Value, string(model.Sep))
	return kind, true
}

// reservedError is Decode's refusal of a reserved item: it matches
// ErrReserved and ErrNotKeyplan.
type reservedError struct{ kind, pk string }

func (e *reservedError) Error() string {
	what := "keyplan's own item"
	if e.kind == patterns.GuardTag {
		what = "a unique value's guard item"
	}
	return fmt.Sprintf("%v: %s (%s), of no entity: skip it (errors.Is(err, dynamo.ErrReserved))", ErrReserved, what, e.pk)
}

func (e *reservedError) Is(target error) bool {
	return target == ErrReserved || target == ErrNotKeyplan
}

// parse matches a key value against a template, storing the attribute
// values it holds; false when the value is not of the template's form.
func parse(e *model.Entity, tmpl model.Template, s string, v Values) bool {
	for i, seg := range tmpl {
		switch {
		case seg.Lit != "":
			if !strings.HasPrefix(s, seg.Lit) {
				return false
			}
			s = s[len(seg.Lit):]
		default:
			// A value runs to the next separator (values never hold one).
			end := strings.IndexByte(s, model.Sep)
			if end < 0 {
				end = len(s)
			}
			if i+1 < len(tmpl) && tmpl[i+1].Lit != "" && !strings.HasPrefix(tmpl[i+1].Lit, string(model.Sep)) {
				// A literal glued to the value ("{x}Z"): the value ends where it
				// starts. One that ends the key is its suffix (the value may
				// hold its text: "aZbZ" in "{x}Z"); one within the key holds
				// a '#' (ParseTemplate), which no value holds, so its first
				// occurrence is the one.
				lit := tmpl[i+1].Lit
				if i+2 == len(tmpl) {
					if !strings.HasSuffix(s, lit) || len(s)-len(lit) > end {
						return false
					}
					end = len(s) - len(lit)
				} else if j := strings.Index(s, lit); j >= 0 && j < end {
					end = j
				}
			}
			text := s[:end]
			s = s[end:]
			if seg.Shards > 0 {
				if _, err := strconv.Atoi(text); err != nil {
					return false
				}
				continue
			}
			x, err := e.Attr(seg.Attr).DecodeKey(text)
			if err != nil {
				return false
			}
			v[seg.Attr] = x
		}
	}
	return s == ""
}

// sortedNames lists a map's keys in order, for deterministic errors.
func sortedNames[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// KeyText is an item's base key as messages name it: its partition and
// sort key strings, space-separated.
func KeyText(d *patterns.Design, key map[string]types.AttributeValue) string {
	var parts []string
	for _, k := range []string{d.PK, d.SK} {
		if s, ok := key[k].(*types.AttributeValueMemberS); ok {
			parts = append(parts, s.Value)
		}
	}
	return strings.Join(parts, " ")
}

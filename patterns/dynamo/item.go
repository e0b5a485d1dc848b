package dynamo

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/keyplan/keyplan/patterns"
)

// render fills a key template from values. A shard segment takes the
// item's shard: a hash of its id, so an item stays on one shard.
func render(e *patterns.Entity, tmpl patterns.Template, v map[string]any) (string, error) {
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

func shardOf(e *patterns.Entity, v map[string]any, n int) (int, error) {
	h := fnv.New32a()
	for _, id := range e.ID {
		enc, err := e.Attr(id).EncodeKey(v[id])
		if err != nil {
			return 0, err
		}
		h.Write([]byte(enc))
		h.Write([]byte{patterns.Sep})
	}
	return int(h.Sum32() % uint32(n)), nil
}

// stored converts a value to how the attribute is stored: strings and
// times as S (times fixed-width UTC, so they sort), numbers and ttls as N,
// bools as BOOL.
func stored(a *patterns.Attribute, v any) (types.AttributeValue, error) {
	switch a.Type {
	case patterns.TypeString:
		if err := a.Check(v); err != nil {
			return nil, err
		}
		s, _ := v.(string)
		if n, ok := v.(json.Number); ok {
			s = string(n)
		}
		return &types.AttributeValueMemberS{Value: s}, nil
	case patterns.TypeTime:
		s, err := a.EncodeKey(v)
		if err != nil {
			return nil, err
		}
		return &types.AttributeValueMemberS{Value: s}, nil
	case patterns.TypeBool:
		if err := a.Check(v); err != nil {
			return nil, err
		}
		b, _ := v.(bool)
		if s, ok := v.(string); ok {
			b, _ = strconv.ParseBool(s)
		}
		return &types.AttributeValueMemberBOOL{Value: b}, nil
	}
	n, err := number(a, v)
	if err != nil {
		return nil, err
	}
	return &types.AttributeValueMemberN{Value: n}, nil
}

// number renders a number attribute's value in DynamoDB's N form; bounded
// numbers (and ttls) must be integers in range.
func number(a *patterns.Attribute, v any) (string, error) {
	bounded := a.Type == patterns.TypeTTL || a.Min != nil || a.Max != nil || a.Digits > 0
	if bounded {
		if err := a.Check(v); err != nil {
			return "", err
		}
	}
	switch x := v.(type) {
	case int:
		return strconv.Itoa(x), nil
	case int32:
		return strconv.FormatInt(int64(x), 10), nil
	case int64:
		return strconv.FormatInt(x, 10), nil
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			break
		}
		return strconv.FormatFloat(x, 'f', -1, 64), nil
	case json.Number:
		if _, err := x.Float64(); err == nil {
			return string(x), nil
		}
	case string:
		if _, err := strconv.ParseFloat(x, 64); err == nil {
			return x, nil
		}
	}
	return "", &patterns.ValueError{Attr: a.Name, Value: v, Msg: "expected a number"}
}

// fromStored converts a stored attribute back: string, int64 or float64,
// time.Time, bool.
func fromStored(a *patterns.Attribute, av types.AttributeValue) (any, error) {
	switch x := av.(type) {
	case *types.AttributeValueMemberS:
		if a.Type == patterns.TypeTime {
			return time.Parse(patterns.TimeLayout, x.Value)
		}
		return x.Value, nil
	case *types.AttributeValueMemberN:
		if i, err := strconv.ParseInt(x.Value, 10, 64); err == nil {
			return i, nil
		}
		return strconv.ParseFloat(x.Value, 64)
	case *types.AttributeValueMemberBOOL:
		return x.Value, nil
	}
	return nil, fmt.Errorf("attribute %s: unexpected %T", a.Name, av)
}

// Item builds the entity's full item: its attributes, the base table's
// PK/SK, and exactly the GSI key attributes the design gives it. A GSI key
// is left out (the index stays sparse) when the item lacks one of its
// attributes or does not hold the constants the key is sparse on.
func (t *Table) Item(entity string, v Values) (map[string]types.AttributeValue, error) {
	item, err := t.item(entity, v)
	return item, wrap("Item", entity, err)
}

func (t *Table) item(entity string, v Values) (map[string]types.AttributeValue, error) {
	e, ek, err := t.entity(entity)
	if err != nil {
		return nil, err
	}
	item := make(map[string]types.AttributeValue, len(e.Attributes)+2+2*len(ek.Keys))
	for name := range v {
		if e.Attr(name) == nil {
			return nil, fmt.Errorf("%w %q of %s", ErrUnknownAttr, name, entity)
		}
	}
	for _, a := range e.Attributes {
		x, ok := v[a.Name]
		if !ok || x == nil {
			if !a.Optional {
				return nil, fmt.Errorf("%w: %s.%s is required", ErrMissing, entity, a.Name)
			}
			continue
		}
		av, err := stored(a, x)
		if err != nil {
			return nil, err
		}
		item[a.Name] = av
	}
	for _, k := range ek.Keys {
		if k.Index != patterns.Table && !holds(e, k, v) {
			continue
		}
		pkName, skName := t.d.KeyNames(k.Index)
		pk, err := render(e, k.PK, v)
		if err != nil {
			return nil, err
		}
		sk, err := render(e, k.SK, v)
		if err != nil {
			return nil, err
		}
		item[pkName] = &types.AttributeValueMemberS{Value: pk}
		item[skName] = &types.AttributeValueMemberS{Value: sk}
	}
	return item, nil
}

// holds reports whether an item with values v belongs on a GSI key: it has
// every attribute the key reads and the constants the key is sparse on.
func holds(e *patterns.Entity, k *patterns.EntityKey, v Values) bool {
	for _, t := range []patterns.Template{k.PK, k.SK} {
		for _, a := range t.Attrs() {
			if x, ok := v[a]; !ok || x == nil {
				return false
			}
		}
	}
	for _, c := range k.When {
		a := e.Attr(c.Attr)
		want, err1 := a.EncodeKey(c.Value)
		got, err2 := a.EncodeKey(v[c.Attr])
		if err1 != nil || err2 != nil || want != got {
			return false
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
	k := ek.Key(patterns.Table)
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
// those the keys hold.
func (t *Table) Decode(item map[string]types.AttributeValue) (string, Values, error) {
	pk, _ := item[t.d.PK].(*types.AttributeValueMemberS)
	sk, _ := item[t.d.SK].(*types.AttributeValueMemberS)
	if pk == nil || sk == nil {
		return "", nil, wrap("Decode", "item", fmt.Errorf("%w: no %s/%s string keys", ErrNotKeyplan, t.d.PK, t.d.SK))
	}
	for _, ek := range t.d.Entities {
		k := ek.Key(patterns.Table)
		e := t.m.Entity(ek.Name)
		v := Values{}
		if !parse(e, k.PK, pk.Value, v) || !parse(e, k.SK, sk.Value, v) {
			continue
		}
		for _, a := range e.Attributes {
			av, ok := item[a.Name]
			if !ok {
				continue
			}
			x, err := fromStored(a, av)
			if err != nil {
				return "", nil, wrap("Decode", ek.Name, err)
			}
			v[a.Name] = x
		}
		return ek.Name, v, nil
	}
	return "", nil, wrap("Decode", "item", fmt.Errorf("%w: %s=%q %s=%q", ErrNotKeyplan, t.d.PK, pk.Value, t.d.SK, sk.Value))
}

// parse matches a key value against a template, storing the attribute
// values it holds; false when the value is not of the template's form.
func parse(e *patterns.Entity, tmpl patterns.Template, s string, v Values) bool {
	for i, seg := range tmpl {
		switch {
		case seg.Lit != "":
			if !strings.HasPrefix(s, seg.Lit) {
				return false
			}
			s = s[len(seg.Lit):]
		default:
			// A value runs to the next separator (values never hold one).
			end := strings.IndexByte(s, patterns.Sep)
			if end < 0 {
				end = len(s)
			}
			if i+1 < len(tmpl) && tmpl[i+1].Lit != "" && !strings.HasPrefix(tmpl[i+1].Lit, string(patterns.Sep)) {
				// A literal glued to the value ("{x}Z"): the value ends where it starts.
				if j := strings.Index(s, tmpl[i+1].Lit); j >= 0 && j < end {
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

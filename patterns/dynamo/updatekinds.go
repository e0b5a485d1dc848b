package dynamo

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/keyplan/keyplan/patterns"
	"github.com/keyplan/keyplan/patterns/model"
)

// Updates of what kinds.go stores: sets (ADD, DELETE), lists
// (list_append), map entries (SET a.b, REMOVE a.b), sharded counters (ADD
// on a random shard item), and derived attributes (recomputed when a
// source changes).

// counterUpdate plans an update that adds to sharded counters: one write
// per counter, an ADD on a shard item picked at random (created by the
// add when it is not there yet). ok is false when the update adds to no
// counter.
func (t *Table) counterUpdate(e *model.Entity, key Values, ch Changes, step int) (ws []*itemWrite, ok bool, err error) {
	for _, name := range sortedNames(ch.Add) {
		a := e.Counter(name)
		if a == nil {
			continue
		}
		ok = true
		if len(ch.Add) > 1 && slices.ContainsFunc(sortedNames(ch.Add), func(n string) bool { return e.Counter(n) == nil }) ||
			len(ch.Set)+len(ch.Remove)+len(ch.With)+len(ch.If)+len(ch.Discard)+len(ch.Append) > 0 {
			return nil, true, fmt.Errorf("an add to the sharded counter %s.%s writes one of its shard items, not the %s item: it adds to counters only, without conditions", e.Name, name, e.Name)
		}
		ck := t.d.Entity(e.Name).Counter(name)
		if ck == nil {
			return nil, true, fmt.Errorf("%w: %s.%s has no counter keys in the design", ErrUnknownAttr, e.Name, name)
		}
		pk, err := render(e, ck.PK, key)
		if err != nil {
			return nil, true, err
		}
		n, err := number(&model.Attribute{Name: name, Type: model.TypeNumber}, ch.Add[name], false)
		if err != nil {
			return nil, true, err
		}
		shard := rand.IntN(ck.Shards)
		ws = append(ws, &itemWrite{kind: model.WriteUpdate, entity: e.Name, step: step,
			key: map[string]types.AttributeValue{
				t.d.PK: &types.AttributeValueMemberS{Value: pk},
				t.d.SK: &types.AttributeValueMemberS{Value: patterns.ShardKey(shard, ck.Shards)},
			},
			changes: []edit{{updAdd, name, &types.AttributeValueMemberN{Value: n}}}})
	}
	return ws, ok, nil
}

// counterDeletes are the deletes of an item's counters' shard items (a
// delete of the item takes them with it).
func (t *Table) counterDeletes(e *model.Entity, v Values, step int) ([]*itemWrite, error) {
	var out []*itemWrite
	for _, ck := range t.d.Entity(e.Name).Counters {
		pk, err := render(e, ck.PK, v)
		if err != nil {
			return nil, err
		}
		for i := range ck.Shards {
			out = append(out, &itemWrite{kind: model.WriteDelete, entity: e.Name, step: step, key: map[string]types.AttributeValue{
				t.d.PK: &types.AttributeValueMemberS{Value: pk},
				t.d.SK: &types.AttributeValueMemberS{Value: patterns.ShardKey(i, ck.Shards)},
			}})
		}
	}
	return out, nil
}

// splitPaths separates map entries (a.b) from attribute names.
func splitPaths(names []string) (plain, paths []string) {
	for _, n := range names {
		if strings.Contains(n, ".") {
			paths = append(paths, n)
		} else {
			plain = append(plain, n)
		}
	}
	return plain, paths
}

// plainValues are the values of v whose names are attributes, not map
// entries (a copy only when there are entries).
func plainValues(v Values) (plain Values, paths []string) {
	for k := range v {
		if strings.Contains(k, ".") {
			paths = append(paths, k)
		}
	}
	if len(paths) == 0 {
		return v, nil
	}
	plain = make(Values, len(v))
	for k, x := range v {
		if !strings.Contains(k, ".") {
			plain[k] = x
		}
	}
	slices.Sort(paths)
	return plain, paths
}

// entryEdits plans the changes of map entries: set (a value) or removed.
func (t *Table) entryEdits(e *model.Entity, w *itemWrite, set Values, setPaths, removePaths []string, changed map[string]bool) error {
	entry := func(path string) (*model.Attribute, error) {
		attr, key, _ := model.MapPath(path)
		a := e.Attr(attr)
		switch {
		case a == nil:
			return nil, fmt.Errorf("%w %q of %s", ErrUnknownAttr, attr, e.Name)
		case a.Type != model.TypeMap:
			return nil, fmt.Errorf("%s.%s is a %s: only a map has entries (%s)", e.Name, attr, a.Type, path)
		case key == "" || strings.Contains(key, "."):
			return nil, fmt.Errorf("%s: expected map.key", path)
		case changed[attr] || changed[path]:
			return nil, fmt.Errorf("%s.%s is changed twice", e.Name, path)
		}
		changed[path] = true
		return a, nil
	}
	for _, path := range setPaths {
		a, err := entry(path)
		if err != nil {
			return err
		}
		x, err := a.Entries(map[string]any{"k": set[path]})
		if err != nil {
			return err
		}
		w.changes = append(w.changes, edit{updSet, path, element(x["k"])})
	}
	for _, path := range removePaths {
		if _, err := entry(path); err != nil {
			return err
		}
		w.changes = append(w.changes, edit{updRemove, path, nil})
	}
	return nil
}

// elementEdits plans what an update adds to sets (numbers are added
// where the update's own loop does), takes out of sets, and appends to
// lists.
func elementEdits(e *model.Entity, w *itemWrite, ch Changes, mark func(string) (*model.Attribute, error)) error {
	for _, f := range []struct {
		v    Values
		op   updOp
		kind model.AttrType
		what string
	}{{ch.Discard, updDelete, model.TypeSet, "discard takes elements out of a set"}, {ch.Append, updAppend, model.TypeList, "append adds to a list"}} {
		for _, name := range sortedNames(f.v) {
			a, err := mark(name)
			if err != nil {
				return err
			}
			if a.Type != f.kind {
				return fmt.Errorf("%s.%s is a %s: %s", e.Name, name, a.Type, f.what)
			}
			av, err := elementsValue(a, f.v[name])
			if err != nil {
				return err
			}
			w.changes = append(w.changes, edit{f.op, name, av})
		}
	}
	return nil
}

// elementsValue is the elements a change adds or takes: a set's (SS,
// NS), or a list's (L); a set change of no element is refused (DynamoDB
// holds no empty set).
func elementsValue(a *model.Attribute, v any) (types.AttributeValue, error) {
	switch v.(type) {
	case string, float64, int, int64, bool, json.Number:
		v = []any{v} // one element
	}
	if a.Type == model.TypeList {
		return storedMany(a, v)
	}
	els, err := a.Elements(v)
	if err != nil {
		return nil, err
	}
	if len(els) == 0 {
		return nil, fmt.Errorf("%w: a change of the set %s with no element (DynamoDB holds no empty set)", ErrMissing, a.Name)
	}
	return setValue(a, els), nil
}

// rederive recomputes the derived attributes whose sources the update
// changes, from what the item holds after it (after: every source must be
// known, set or passed in With), and marks them changed so the keys they
// feed are rebuilt.
//
// It returns removed, with the derived attributes that become absent
// (allocated when it was nil).
func rederive(e *model.Entity, w *itemWrite, after Values, changed, removed map[string]bool, with Values) (map[string]bool, error) {
	for _, a := range e.Attributes {
		if a.Derived == nil {
			continue
		}
		srcs := a.Derived.Sources()
		if !slices.ContainsFunc(srcs, func(s string) bool { return changed[s] }) {
			continue
		}
		var missing []string
		for _, s := range srcs {
			if _, known := after[s]; !known && !removed[s] && !hasKey(with, s) {
				missing = append(missing, s)
			}
		}
		if len(missing) > 0 {
			return removed, fmt.Errorf("%w: the update changes a source of %s.%s, which also derives from %s: pass %s in With (as the item holds it)",
				ErrKeyChange, e.Name, a.Name, strings.Join(missing, ", "), strings.Join(missing, ", "))
		}
		x, ok, err := e.Derive(a, after)
		if err != nil {
			return removed, err
		}
		changed[a.Name] = true
		if !ok {
			if removed == nil {
				removed = map[string]bool{}
			}
			removed[a.Name] = true
			delete(after, a.Name)
			w.changes = append(w.changes, edit{updRemove, a.Name, nil})
			continue
		}
		av, err := stored(a, x)
		if err != nil {
			return removed, err
		}
		after[a.Name] = x
		w.changes = append(w.changes, edit{updSet, a.Name, av})
	}
	return removed, nil
}

// elementParams fills a declared update's discards and appends from the
// caller's parameters.
func elementParams(s *model.Write, params Params, ch *Changes) error {
	for _, f := range []struct {
		incs []*model.Increment
		into *Values
		what string
	}{{s.Discard, &ch.Discard, "discard from"}, {s.Append, &ch.Append, "append to"}} {
		for _, inc := range f.incs {
			x, ok := params[inc.Param]
			if !ok || x == nil {
				return fmt.Errorf("%w: parameter %s (%s %s)", ErrMissing, inc.Param, f.what, inc.Attr)
			}
			if *f.into == nil {
				*f.into = Values{}
			}
			(*f.into)[inc.Attr] = x
		}
	}
	return nil
}

// stepParams are the parameters one step of a write sees: all of them,
// or for a step that names its item (as: follower), the ones of its item
// by their attribute names (follower.userId as userId) and those its
// increments and conditions name as written.
func stepParams(s *model.Write, params Params) Params {
	if s.As == "" {
		return params
	}
	out := Params{}
	prefix := s.As + "."
	for k, v := range params {
		if rest, ok := strings.CutPrefix(k, prefix); ok {
			out[rest] = v
		}
	}
	for _, inc := range slices.Concat(s.Add, s.Discard, s.Append) {
		if v, ok := params[inc.Param]; ok && inc.Param != "" {
			out[inc.Param] = v
		}
	}
	for _, c := range s.Condition {
		if v, ok := params[c.Param]; ok && c.Param != "" {
			out[c.Param] = v
		}
	}
	return out
}

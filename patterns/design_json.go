package patterns

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"

	"github.com/keyplan/keyplan/patterns/model"
)

// DesignFormat is the version of a design's JSON form. A design read back
// must carry it: a file from another version is refused, not guessed at.
const DesignFormat = 1

// A design's JSON form is self-contained: besides the plan it carries the
// model it was planned from (canonical: entities, patterns and each
// entity's attributes by name; no examples, no file positions), so the
// runtime, the checks, the handlers and the construct can work from the
// file alone (ReadDesign).

type designFields Design

// MarshalJSON writes the design with its model (its LSIs after its GSIs
// in indexes: joinIndexes).
func (d *Design) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		*designFields
		Model *model.Model `json:"model"`
	}{joinIndexes(d), canonicalModel(d.model)})
}

// canonicalModel is a copy of m in canonical order, without what a plan
// does not depend on (examples, file positions).
func canonicalModel(m *model.Model) *model.Model {
	if m == nil {
		return nil
	}
	// consistency: eventual says the default: the lock records none.
	c := &model.Model{Table: m.Table, IndexKeys: m.IndexKeys, Headroom: m.Headroom, Principals: canonicalPrincipals(m.Principals)}
	if m.Strong() {
		c.Consistency = model.ConsistencyStrong
	}
	for _, e := range m.Entities {
		ce := *e
		ce.Attributes = slices.Clone(e.Attributes)
		sort.SliceStable(ce.Attributes, func(i, j int) bool { return ce.Attributes[i].Name < ce.Attributes[j].Name })
		c.Entities = append(c.Entities, &ce)
	}
	sort.SliceStable(c.Entities, func(i, j int) bool { return c.Entities[i].Name < c.Entities[j].Name })
	c.Patterns = patternsByName(m)
	c.Writes = slices.Clone(m.Writes)
	sort.SliceStable(c.Writes, func(i, j int) bool { return c.Writes[i].Name < c.Writes[j].Name })
	return c
}

// ErrDesign is matched (errors.Is) by every error about a design file that
// cannot be used.
var ErrDesign = errors.New("unusable design")

// DesignError says what is wrong with a design (or lock) file.
type DesignError struct {
	File string
	Msg  string
}

func (e *DesignError) Error() string {
	if e.File == "" {
		return "design: " + e.Msg
	}
	return e.File + ": " + e.Msg
}

// Is makes *DesignError match ErrDesign.
func (e *DesignError) Is(target error) bool { return target == ErrDesign }

// maxDesignBytes bounds a design file read back.
const maxDesignBytes = 64 << 20

// ReadDesign reads a design written by keyplan (keyplan plan --format json,
// the design generated code embeds, or a lock's design), naming file in
// errors. It refuses another format version, a model that does not
// validate, and keys that do not hold together; every pattern's plan is
// derived again from the keys, and where the file records another (an
// earlier keyplan's request: RecordedPlans) the derived one is what the
// design serves. The design it returns is ready for the runtime and the
// checks.
func ReadDesign(file string, r io.Reader) (*Design, error) {
	data, err := io.ReadAll(io.LimitReader(r, maxDesignBytes+1))
	if err != nil {
		return nil, &DesignError{file, err.Error()}
	}
	if len(data) > maxDesignBytes {
		return nil, &DesignError{file, fmt.Sprintf("larger than %d MB; a design is far smaller", maxDesignBytes>>20)}
	}
	var raw json.RawMessage
	if err := strictJSON(data, &raw); err != nil {
		return nil, &DesignError{file, err.Error()}
	}
	return decodeDesign(file, raw)
}

// strictJSON decodes one JSON value, refusing trailing data.
func strictJSON(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("not valid JSON: %v", err)
	}
	if dec.More() {
		return errors.New("not valid JSON: more after the value")
	}
	return nil
}

// decodeDesign reads one design from its JSON.
func decodeDesign(file string, raw json.RawMessage) (*Design, error) {
	var in struct {
		*designFields
		Model *model.Model `json:"model"`
	}
	in.designFields = &designFields{}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&in); err != nil {
		var probe struct {
			Format int `json:"format"`
		}
		if json.Unmarshal(raw, &probe) == nil && probe.Format != DesignFormat {
			return nil, formatError(file, probe.Format)
		}
		return nil, &DesignError{file, fmt.Sprintf("not a keyplan design: %v", err)}
	}
	d := (*Design)(in.designFields)
	if d.Format != DesignFormat {
		return nil, formatError(file, d.Format)
	}
	splitIndexes(d)
	if in.Model == nil {
		return nil, &DesignError{file, "no model: a design carries the model it was planned from"}
	}
	m := in.Model
	m.Source = file
	if err := m.Validate(); err != nil {
		return nil, &DesignError{file, "its model does not validate: " + err.Error()}
	}
	memoize(m)
	if d.Table != m.Table {
		return nil, &DesignError{file, fmt.Sprintf("the design is for table %q but its model is for %q", d.Table, m.Table)}
	}
	d.model = m
	if err := d.rederive(); err != nil {
		return nil, &DesignError{file, err.Error()}
	}
	if d.Cost == nil {
		d.Cost = EstimateCost(d) // a lock records no estimate
	}
	return d, nil
}

func formatError(file string, got int) error {
	return &DesignError{file, fmt.Sprintf("format %d; this keyplan reads format %d (written by another version of keyplan?)", got, DesignFormat)}
}

// rederive checks a design read back against its own keys and rebuilds
// what the JSON does not carry: every pattern's plan is served again from
// the entity keys; a plan the file states otherwise is kept in recorded
// (RecordedPlans), and the derived one serves.
func (d *Design) rederive() error {
	m := d.model
	if d.PK != model.TablePK || d.SK != model.TableSK {
		return fmt.Errorf("base key %s/%s; keyplan tables are keyed %s/%s", d.PK, d.SK, model.TablePK, model.TableSK)
	}
	ly := &layout{m: m, indexes: []string{model.BaseIndex}, keys: map[string][]*EntityKey{}}
	for _, ix := range d.Indexes {
		if ix == nil || !model.ValidTableName(ix.Name) || ix.Name == model.BaseIndex || slices.Contains(ly.indexes, ix.Name) {
			return fmt.Errorf("index %v: expected a unique name of %s", ix, model.NameRule)
		}
		if ix.Kind != IndexGlobal {
			return fmt.Errorf("index %s: kind %q; expected %q or none", ix.Name, ix.Kind, IndexLocal)
		}
		if ix.Native() || len(ix.SortKeys) > 0 {
			if err := checkNativeIndex(m, ix); err != nil {
				return err
			}
		} else if pk, sk := model.IndexKeyNames(ix.Name); ix.PK != pk || ix.SK != sk {
			return fmt.Errorf("index %s is keyed %s/%s; keyplan keys it %s/%s", ix.Name, ix.PK, ix.SK, pk, sk)
		}
		ly.indexes = append(ly.indexes, ix.Name)
	}
	if err := rederiveLocal(d, ly); err != nil {
		return err
	}
	seen := map[string]bool{}
	for _, ek := range d.Entities {
		if ek == nil {
			return errors.New("an entity entry is empty")
		}
		e := m.Entity(ek.Name)
		if e == nil || seen[ek.Name] {
			return fmt.Errorf("entity %q: not in the model, or listed twice", ek.Name)
		}
		seen[ek.Name] = true
		hasBase := false
		for _, k := range ek.Keys {
			if k == nil || len(k.PK) == 0 || len(k.SK) == 0 && !nativeHashOnly(d, k.Index) {
				return fmt.Errorf("entity %s: a key without partition or sort template", ek.Name)
			}
			if err := checkNativeKey(d, ek, k); err != nil {
				return err
			}
			if k.Index == model.BaseIndex {
				hasBase = true
			} else if !slices.Contains(ly.indexes, k.Index) {
				return fmt.Errorf("entity %s: a key on %s, which is no index of the design", ek.Name, k.Index)
			}
			for _, a := range append(k.PK.Attrs(), k.SK.Attrs()...) {
				if e.Attr(a) == nil {
					return fmt.Errorf("entity %s: its key on %s reads %q, which is no attribute of it", ek.Name, k.Index, a)
				}
			}
			for _, c := range k.When {
				if a := e.Attr(c.Attr); a == nil || a.Check(c.Value) != nil {
					return fmt.Errorf("entity %s: its key on %s is sparse on %s=%s, no value of it", ek.Name, k.Index, c.Attr, c.Value)
				}
			}
			ly.keys[ek.Name] = append(ly.keys[ek.Name], k)
		}
		if !hasBase {
			return fmt.Errorf("entity %s has no base table key", ek.Name)
		}
		if err := checkLocalKeys(d, ek); err != nil {
			return err
		}
		if want := counterKeys(e); !sameCounters(ek.Counters, want) {
			return fmt.Errorf("entity %s: its counters' keys are not those of its model's counters (%d declared): edited by hand?", ek.Name, len(want))
		}
	}
	for _, e := range m.Entities {
		if !seen[e.Name] {
			return fmt.Errorf("entity %s of the model has no keys in the design", e.Name)
		}
	}
	stated := map[string]*PatternPlan{}
	for _, p := range d.Patterns {
		if p == nil || stated[p.Name] != nil {
			return errors.New("a pattern plan is empty or listed twice")
		}
		stated[p.Name] = p
	}
	var plans []*PatternPlan
	for _, p := range patternsByName(m) {
		want := stated[p.Name]
		if want == nil {
			return fmt.Errorf("pattern %s of the model has no plan in the design", p.Name)
		}
		got := ly.serve(p)
		if ix := d.Index(got.Index); got.Served() && ix != nil && ix.Native() && len(got.Entities) == 1 {
			got.Text = nativeCondition(m, p, ix, d.Entity(got.Entities[0]).Tag).Render()
		}
		if got.Operation != want.Operation || got.Index != want.Index || got.Requests != want.Requests || got.Text != want.Text {
			// Another keyplan's request on these keys (or a hand edit):
			// the design serves the one derived (an upgrade change).
			d.recorded = append(d.recorded, want)
		}
		plans = append(plans, got)
	}
	if len(stated) != len(plans) {
		return errors.New("the design plans patterns its model does not have")
	}
	d.Patterns = plans
	d.index()
	return nil
}

// canonicalPrincipals are the principals by name, each pattern list
// sorted (what the lock records).
func canonicalPrincipals(ps []*model.Principal) []*model.Principal {
	out := make([]*model.Principal, len(ps))
	for i, p := range ps {
		c := *p
		c.Patterns = slices.Sorted(slices.Values(p.Patterns))
		out[i] = &c
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

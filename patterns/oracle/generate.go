package oracle

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/keyplan/keyplan/patterns/model"
)

// Generator draws values, items, reads and writes for a model,
// deterministically from a seed, biased toward what breaks single-table
// keys: ids that are prefixes of each other (a, ab, a#b), values holding
// the separator '#', the escape '%' and the bytes below them, the
// longest and shortest strings allowed, numbers at their bounds, zero and
// negative, equal sort values and times a millisecond apart, optional
// attributes present and absent, few values for the attributes patterns
// select on (many items in one partition), and one pool of values per
// attribute name, so items of different entities share values.
type Generator struct {
	m     *model.Model
	r     *rand.Rand
	pools map[string][]any // attribute name + type -> valid values
	fresh int
	// Invalid is the share of writes and reads given an invalid value
	// or a missing parameter (default 0.05).
	Invalid float64
	// Size is how many items of each entity the caller means to create
	// (default 12): an id's last attribute draws from that many values,
	// so that most creates make a new item. Set it before drawing.
	Size int
	// Now is the clock items expire by (State.SetNow): ttl values are
	// drawn around it, a second before, at and after it leading. Zero:
	// far in the future (nothing expires). Set it before drawing.
	Now time.Time
}

// NewGenerator returns a generator for the model.
func NewGenerator(m *model.Model, seed uint64) *Generator {
	return &Generator{m: m, r: rand.New(rand.NewPCG(seed, seed^0x5bd1e9955bd1e995)), pools: map[string][]any{}, Invalid: 0.05}
}

// Rand is the generator's source of randomness.
func (g *Generator) Rand() *rand.Rand { return g.r }

// Generate returns n valid items of every entity of the model, each of a
// new identity and keeping unique values unique, so they load in order
// (a table's starting content). The same model, n and seed give the same
// items. Their values are canonical (a number is a Number): Item.Plain
// gives them as keyplan's runtime takes them (dynamo.Values).
func Generate(m *model.Model, n int, seed uint64) []*Item {
	g := NewGenerator(m, seed)
	g.Size = n
	s := NewState(m)
	var out []*Item
	for _, e := range m.Entities {
		made := 0
		for try := 0; made < n && try < 20*n+20; try++ {
			it := g.Item(e.Name)
			if try >= 4*n {
				g.freshen(e, it) // the pools are used up: new values
			}
			if s.Create(it.Entity, it.Values) == nil {
				out = append(out, s.Get(it.Entity, mustNormalizeID(e, it.Values)))
				made++
			}
		}
	}
	return out
}

func mustNormalizeID(e *model.Entity, v map[string]any) Values {
	id, _ := normalizeID(e, v)
	return id
}

// freshen gives an item new values for its id's last attribute and its
// unique attributes.
func (g *Generator) freshen(e *model.Entity, it *Item) {
	names := []string{e.ID[len(e.ID)-1]}
	for _, u := range Unique(g.m, e.Name) {
		names = append(names, g.m.Where(u)...)
	}
	for _, n := range names {
		if a := e.Attr(n); a != nil {
			if v, ok := g.freshValue(a); ok {
				it.Values[n] = v
			}
		}
	}
}

// freshValue is a value of the attribute unlikely to be in use.
func (g *Generator) freshValue(a *model.Attribute) (any, bool) {
	g.fresh++
	var v any
	switch a.Type {
	case model.TypeString:
		if len(a.Values) > 0 {
			return nil, false
		}
		v = fmt.Sprintf("f%d", g.fresh)
	case model.TypeNumber, model.TypeTTL:
		v = int64(g.r.IntN(1 << 30))
	case model.TypeTime:
		v = time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(g.fresh) * time.Millisecond)
	case model.TypeBinary:
		v = []byte(fmt.Sprintf("\xfef%d", g.fresh))
	default:
		return nil, false
	}
	if _, err := Normalize(a, v); err != nil {
		return nil, false
	}
	return v, true
}

// Item draws a valid item of the entity (its optional attributes present
// or absent at random), in the plain forms the runtime takes.
func (g *Generator) Item(entity string) *Item {
	e := g.m.Entity(entity)
	it := &Item{Entity: entity, Values: Values{}}
	for _, a := range e.Attributes {
		if a.Optional && g.r.IntN(2) == 0 || a.Type == model.TypeCounter || a.Derived != nil {
			continue // a counter is on no item, a derived value computed
		}
		if v := g.Value(e, a); v != nil {
			it.Values[a.Name] = v
		}
	}
	return it
}

// Value draws a valid value of an attribute of the entity from its pool,
// a third of the time one of the adversarial values that lead it (a, ab,
// a#b; the bounds; times a millisecond apart), so that they meet however
// large the pool.
func (g *Generator) Value(e *model.Entity, a *model.Attribute) any {
	pool := g.pool(e, a)
	if lead := min(leading(a), len(pool)); lead > 0 && g.r.IntN(3) == 0 {
		return pool[g.r.IntN(lead)]
	}
	return pool[g.r.IntN(len(pool))]
}

// role says how many values an attribute's pool holds: few for those
// patterns select on and ids' leading attributes (many items share a
// partition), more for an id's last attribute and the rest.
func (g *Generator) poolSize(e *model.Entity, a *model.Attribute) int {
	size := 6
	for _, p := range g.m.Patterns {
		if slices.Contains(g.m.Where(p), a.Name) && !(p.Op == model.ReadGet && len(p.Where) == 0) {
			size = 3
		}
		if slices.Contains(p.Sort, a.Name) {
			size = max(size, 8)
		}
	}
	for _, x := range g.m.Entities {
		if i := slices.Index(x.ID, a.Name); i >= 0 && i < len(x.ID)-1 {
			size = min(size, 3)
		}
	}
	if i := slices.Index(e.ID, a.Name); i >= 0 && i == len(e.ID)-1 {
		size = max(12, g.Size)
	}
	for _, x := range g.m.Entities {
		for _, u := range Unique(g.m, x.Name) {
			if slices.Contains(g.m.Where(u), a.Name) {
				size = max(size, 10, g.Size)
			}
		}
	}
	if a.Cardinality > 0 {
		size = min(size, a.Cardinality)
	}
	return max(size, 1)
}

func (g *Generator) pool(e *model.Entity, a *model.Attribute) []any {
	key := poolKey(a)
	if p, ok := g.pools[key]; ok {
		return p
	}
	n := g.poolSize(e, a)
	var cands []any
	switch {
	case many(a):
		cands = g.collections(a, n)
	case a.Type == model.TypeTTL && !g.Now.IsZero():
		now := g.Now.Unix()
		cands = []any{now - 1, now, now + 1, now - 86400, now + 86400}
		for range max(n, 16) {
			cands = append(cands, now+g.r.Int64N(2e6)-1e6)
		}
	default:
		cands = candidates(a, g.r, n)
	}
	var valid []any
	for _, c := range cands {
		if _, err := Normalize(a, c); err == nil {
			valid = append(valid, c)
		}
	}
	if len(valid) == 0 { // a declaration no candidate fits: a value of its own
		if v, ok := g.freshValue(a); ok {
			valid = append(valid, v)
		} else {
			valid = append(valid, cands[0])
		}
	}
	// The first candidates are the adversarial ones: keep them, then a
	// random choice of the rest.
	n = min(n, len(valid))
	head := min(n, leading(a))
	rest := valid[head:]
	g.r.Shuffle(len(rest), func(i, j int) { rest[i], rest[j] = rest[j], rest[i] })
	p := append(slices.Clone(valid[:head]), rest[:n-head]...)
	g.pools[key] = p
	return p
}

// collections draws sets, lists and maps of the attribute's elements
// (adversarial ones among them): empty first, then one element, then
// random ones up to maxItems (at most 4 elements).
func (g *Generator) collections(a *model.Attribute, n int) []any {
	el := element(a)
	var valid []any
	for _, c := range candidates(el, g.r, 8) {
		if _, err := Normalize(el, c); err == nil {
			valid = append(valid, c)
		}
	}
	most := 4
	if a.MaxItems > 0 {
		most = min(most, a.MaxItems)
	}
	var out []any
	for i := range max(n, 6) {
		k := min(i, most)
		if i > 2 {
			k = g.r.IntN(most + 1)
		}
		els := make([]any, k)
		for j := range els {
			els[j] = Plain(mustNormalize(el, valid[g.r.IntN(len(valid))]))
		}
		if a.Type != model.TypeMap {
			out = append(out, els)
			continue
		}
		m := map[string]any{}
		for j, x := range els {
			key, _ := valid[(j*7+i)%len(valid)].(string)
			if key == "" {
				key = fmt.Sprintf("k%d", j)
			}
			m[key] = x
		}
		out = append(out, m)
	}
	return out
}

func mustNormalize(a *model.Attribute, v any) any {
	n, err := Normalize(a, v)
	if err != nil {
		panic(err)
	}
	return n
}

// poolKey is one pool per attribute name and declaration: attributes of
// one name share values across entities unless their types differ.
func poolKey(a *model.Attribute) string {
	k := a.Name + "\x00" + string(a.Type) + "\x00" + strings.Join(a.Values, ",")
	if a.Min != nil {
		k += fmt.Sprintf("\x00min%d", *a.Min)
	}
	if a.Max != nil {
		k += fmt.Sprintf("\x00max%d", *a.Max)
	}
	return k + fmt.Sprintf("\x00%d\x00%d", a.Digits, a.MaxLength)
}

// leading is how many of an attribute's candidates are always kept.
func leading(a *model.Attribute) int {
	switch a.Type {
	case model.TypeString:
		if len(a.Values) > 0 {
			return len(a.Values)
		}
		if a.MaxLength > 0 {
			return 4 // a, ab, a#b, the longest
		}
		return 3 // a, ab, a#b
	case model.TypeTime:
		return 3 // equal and a millisecond apart
	case model.TypeBinary:
		return 4 // 0x00, 0x0000, 0x00ff, 0xff: prefixes and the extremes
	case model.TypeNumber:
		if _, _, declared := bounds(a); !declared {
			return 3 // a fraction, zero, past 19 digits
		}
		return 2 // the bounds
	}
	return 2
}

// adversarial strings: prefixes of each other, the separator, the escape
// and bytes below them, a character many bytes long.
var adversarial = []string{"a", "ab", "a#b", "a#", "#", "#a", "%", "%23", "a%b", "$", "a$", "a~", "~", "A", "b", "a b", " ", "a\tb", "é", "日本", "a.b", "0", "-1", "z", "aa", "a!"}

var baseTime = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// candidates lists values of an attribute, the adversarial ones first,
// then at least extra drawn at random.
func candidates(a *model.Attribute, r *rand.Rand, extra int) []any {
	extra = max(extra, 16)
	var out []any
	switch a.Type {
	case model.TypeString:
		if len(a.Values) > 0 {
			for _, v := range a.Values {
				out = append(out, v)
			}
			return out
		}
		for _, s := range adversarial {
			out = append(out, s)
		}
		if a.MaxLength > 0 {
			// The longest allowed, in one-byte and in two-byte characters.
			long := strings.Repeat("m", a.MaxLength)
			out = append([]any{out[0], out[1], out[2], long}, out[3:]...)
			if a.MaxLength >= 2 {
				out = append(out, strings.Repeat("é", a.MaxLength/2))
			}
		} else {
			out = append(out, strings.Repeat("m", 300))
		}
		for i := range extra {
			out = append(out, fmt.Sprintf("v%d%c", i, 'a'+rune(r.IntN(26))))
		}
	case model.TypeNumber:
		lo, hi, declared := bounds(a)
		switch {
		case declared && lo != nil && hi != nil:
			l, h := lo.Num().Int64(), hi.Num().Int64()
			out = append(out, l, h, l+1, h-1, int64(0), int64(-1), int64(1))
			for range extra {
				out = append(out, l+r.Int64N(max(h-l, 1)))
			}
		case declared && lo != nil:
			l := lo.Num().Int64()
			out = append(out, l, l+1, int64(0), int64(1), l+1000, int64(1e15), l+2)
			for range extra {
				out = append(out, l+r.Int64N(1e6))
			}
		case declared:
			h := hi.Num().Int64()
			out = append(out, h, h-1, int64(0), int64(-1), h-1000, int64(-1e15), h-2)
			for range extra {
				out = append(out, h-r.Int64N(1e6))
			}
		default:
			// A fraction and a number past 19 digits lead: the model
			// allows them (no min, max or digits).
			out = append(out, json.Number("-2.25"), int64(0), json.Number("100000000000000000000"), int64(-1), int64(1), int64(1e15), int64(-1e15), int64(42), json.Number("0.5"))
			for range extra {
				out = append(out, r.Int64N(2e6)-1e6)
			}
		}
	case model.TypeTTL:
		far := int64(4102444800) // 2100-01-01: no engine expires it during a run
		out = append(out, far, far+1, far+86400, far+2)
		for range extra {
			out = append(out, far+r.Int64N(1e8))
		}
	case model.TypeTime:
		out = append(out, baseTime, baseTime.Add(time.Millisecond), baseTime.Add(-time.Millisecond),
			baseTime.Add(time.Second), baseTime.Add(time.Hour), baseTime.Add(24*time.Hour),
			time.Unix(0, 0).UTC(), time.Date(0, 1, 1, 0, 0, 0, 0, time.UTC),
			time.Date(9999, 12, 31, 23, 59, 59, 999e6, time.UTC), time.Date(2000, 2, 29, 0, 0, 0, 1e6, time.UTC))
		for range extra {
			out = append(out, baseTime.Add(time.Duration(r.IntN(1e6))*time.Millisecond))
		}
	case model.TypeBool:
		out = append(out, true, false)
	case model.TypeBinary:
		for _, b := range adversarialBytes {
			out = append(out, b)
		}
		if a.MaxLength > 0 {
			out = append(out, bytes.Repeat([]byte{0xff}, a.MaxLength))
		} else {
			out = append(out, bytes.Repeat([]byte{0xab}, 300))
		}
		for range extra {
			b := make([]byte, 1+r.IntN(6))
			for i := range b {
				b[i] = byte(r.IntN(256))
			}
			out = append(out, b)
		}
	}
	if a.MaxLength > 0 && a.Type == model.TypeBinary {
		out = slices.DeleteFunc(out, func(v any) bool { return len(v.([]byte)) > a.MaxLength })
	}
	return out
}

// adversarialBytes: the extremes 0x00 and 0xff, prefixes of each other,
// the separator, the bound and the escape as bytes, and bytes that are no
// UTF-8.
var adversarialBytes = [][]byte{{0x00}, {0x00, 0x00}, {0x00, 0xff}, {0xff}, {0xff, 0xff}, {0xff, 0x00}, {0x01}, {'#'}, {'$'}, {'%'}, {'a', '#', 'b'}, {'a'}, {'a', 'b'}, {0x7f}, {0x80}, {0xc3, 0x28}}

// InvalidValue draws a value the attribute does not allow.
func (g *Generator) InvalidValue(e *model.Entity, a *model.Attribute) any {
	var out []any
	switch a.Type {
	case model.TypeString:
		out = append(out, "", int64(5))
		if a.MaxLength > 0 {
			out = append(out, strings.Repeat("x", a.MaxLength+1))
		}
		if len(a.Values) > 0 {
			out = append(out, "NOT-"+a.Values[0])
		}
	case model.TypeNumber, model.TypeTTL:
		out = append(out, "many", true)
		lo, hi, declared := bounds(a)
		if a.Type == model.TypeTTL {
			out = append(out, int64(-1), json.Number("1.5"))
		}
		if declared {
			out = append(out, json.Number("1.5"))
			if lo != nil && lo.Num().Int64() > math.MinInt64 {
				out = append(out, lo.Num().Int64()-1)
			}
			if hi != nil && hi.Num().Int64() < math.MaxInt64 {
				out = append(out, hi.Num().Int64()+1)
			}
		}
	case model.TypeTime:
		out = append(out, "yesterday", time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC), int64(3))
		if e != nil && e.IsID(a.Name) {
			out = append(out, baseTime.Add(time.Microsecond))
		}
	case model.TypeBool:
		out = append(out, "maybe", int64(1))
	case model.TypeBinary:
		out = append(out, []byte{}, "not base64!", int64(5))
		if a.MaxLength > 0 {
			out = append(out, bytes.Repeat([]byte{0}, a.MaxLength+1))
		}
	case model.TypeSet, model.TypeList, model.TypeMap:
		out = append(out, "one", []any{int64(1), "a"}, map[string]any{"": "x"})
		if a.Type == model.TypeMap {
			out = append(out, []string{"a"})
		}
		if a.MaxItems > 0 && a.MaxItems < 1000 {
			long := make([]string, a.MaxItems+1)
			for i := range long {
				long[i] = fmt.Sprintf("e%d", i)
			}
			out = append(out, long)
		}
	case model.TypeCounter:
		out = append(out, int64(1)) // a counter is on no item
	default:
		out = append(out, struct{}{})
	}
	return out[g.r.IntN(len(out))]
}

// Read is one read of a pattern: its parameters and an optional range;
// a batch pattern's, its IDs instead (each a get's parameters).
type Read struct {
	Pattern string
	Params  map[string]any
	Range   *Range
	IDs     []map[string]any
}

func (r *Read) String() string {
	if r.IDs != nil {
		ids := make([]string, len(r.IDs))
		for i, id := range r.IDs {
			ids[i] = "{" + paramText(id) + "}"
		}
		return r.Pattern + "[" + strings.Join(ids, ", ") + "]"
	}
	s := r.Pattern + "(" + paramText(r.Params) + ")"
	if r.Range != nil {
		s += " range " + r.Range.String()
	}
	return s
}

// Read draws a read of the pattern: mostly with the values of an item the
// state holds, else values from the pools (often of no item, or of an
// item whose values start the same), sometimes ranged over the sort
// attribute, seldom invalid.
func (g *Generator) Read(s *State, p *model.Pattern) *Read {
	if p.Batch {
		return g.readBatch(s, p)
	}
	rd := &Read{Pattern: p.Name, Params: g.params(s, p)}
	if len(p.Sort) > 0 && g.r.Float64() < 0.4 {
		rd.Range = g.rangeOn(s, p, sortAttr(g.m, p), rd.Params)
	}
	g.invalidate(p, rd.Params)
	return rd
}

// invalidate makes one of a read's parameters invalid, seldom.
func (g *Generator) invalidate(p *model.Pattern, params map[string]any) {
	where := g.m.Where(p)
	e := g.m.Entity(p.Entities[0])
	if len(where) > 0 && g.r.Float64() < g.Invalid/2 {
		w := where[g.r.IntN(len(where))]
		params[w] = g.InvalidValue(e, e.Attr(w))
	}
}

// params draws a read's parameters: mostly the values of an item the
// state holds, else values from the pools.
func (g *Generator) params(s *State, p *model.Pattern) map[string]any {
	where := g.m.Where(p)
	params := map[string]any{}
	var from []*Item
	for _, it := range s.Items() {
		if slices.Contains(p.Entities, it.Entity) {
			if _, ok := values(it, where); ok {
				from = append(from, it)
			}
		}
	}
	e := g.m.Entity(p.Entities[0])
	if len(from) > 0 && g.r.Float64() < 0.75 {
		it := from[g.r.IntN(len(from))]
		for _, w := range where {
			params[w] = Plain(it.Values[w])
			// Now and then a value the item's starts with (a for ab): the
			// keys of one must not answer for the other.
			if s, ok := params[w].(string); ok && len(s) > 1 && g.r.IntN(5) == 0 {
				if cut := prefixOf(s, g.r); cut != "" {
					if _, err := Normalize(e.Attr(w), cut); err == nil {
						params[w] = cut
					}
				}
			}
		}
	} else {
		for _, w := range where {
			params[w] = g.Value(e, e.Attr(w))
		}
	}
	return params
}

// rangeOn draws a range on a sort attribute, its bounds mostly values
// items of the read hold.
func (g *Generator) rangeOn(s *State, p *model.Pattern, a *model.Attribute, params map[string]any) *Range {
	var held []any
	if ans, err := s.Read(p, params, nil); err == nil {
		for _, it := range ans.Items {
			if v, ok := it.Values[a.Name]; ok {
				held = append(held, Plain(v))
			}
		}
	}
	e := g.m.Entity(p.Entities[0])
	if sorted := g.m.SortedMember(p); sorted != "" {
		e = g.m.Entity(sorted)
	}
	value := func() any {
		if len(held) > 0 && g.r.IntN(3) > 0 {
			return held[g.r.IntN(len(held))]
		}
		return g.Value(e, a)
	}
	ops := []RangeOp{Eq, Lt, Le, Gt, Ge, Between}
	if a.Type == model.TypeString && len(a.Values) == 0 {
		ops = append(ops, BeginsWith)
	}
	r := &Range{Op: ops[g.r.IntN(len(ops))], Value: value()}
	switch r.Op {
	case Between:
		r.Upper = value()
		x, err1 := Normalize(a, r.Value)
		y, err2 := Normalize(a, r.Upper)
		if c, _ := compareValues(x, y); err1 == nil && err2 == nil && c > 0 {
			r.Value, r.Upper = r.Upper, r.Value
		}
	case BeginsWith:
		if s, _ := r.Value.(string); utf8.RuneCountInString(s) > 1 {
			r.Value = prefixOf(s, g.r)
		}
	}
	return r
}

// prefixOf is a shorter value s starts with, cut between characters.
func prefixOf(s string, r *rand.Rand) string {
	runes := []rune(s)
	if len(runes) < 2 {
		return ""
	}
	return string(runes[:1+r.IntN(len(runes)-1)])
}

func paramText(p map[string]any) string {
	var parts []string
	for _, k := range sortedKeys(p) {
		parts = append(parts, k+"="+showValue(p[k]))
	}
	return strings.Join(parts, ", ")
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// showValue writes a plain value for a sequence a person replays.
func showValue(v any) string {
	switch x := v.(type) {
	case string:
		return fmt.Sprintf("%q", x)
	case time.Time:
		return x.UTC().Format(time.RFC3339Nano)
	case []byte:
		return Text(Binary(x))
	case nil:
		return "nil"
	}
	return fmt.Sprintf("%v", v)
}

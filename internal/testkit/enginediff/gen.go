package enginediff

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
)

// Step is one request of a sequence: a DynamoDB operation and its JSON
// body. Table names are placeholders (TableT, TableU) that a run
// replaces with names of its own. Query and Scan steps are followed page
// by page to their end (every segment, for a Scan with TotalSegments and
// no Segment).
type Step struct {
	Op  string         `json:"op"`
	Req map[string]any `json:"req"`
}

// The table names a sequence uses: TableT is created by its first step;
// TableU is where a table definition DynamoDB must refuse is tried.
const (
	TableT = "@T"
	TableU = "@U"
)

// av is an attribute value on the wire: {"S": "a"}, {"L": [...]}.
type av = map[string]any

// The values requests are made of: the classic mistakes first (ids that
// are prefixes of each other, '#' and '%', equal numbers spelt
// differently, the ends of the number range, empty values).
var (
	strPool = []string{"", "a", "ab", "a#b", "a%b", "%23", "A", "b", "#", "%", "1", "10", "9", "é", "a b"}
	numPool = []string{"0", "-0", "1", "1.0", "1e3", "1000", "-1", "1.5", "10", "9", "0.001", "1E-130", "-1E-130",
		"9.9999999999999999999999999999999999999E+125", "12345678901234567890123456789012345678", "0.1", "-12.50", "01"}
	// numbers DynamoDB refuses: 39 digits, out of range, not numbers
	badNumPool = []string{"123456789012345678901234567890123456789", "1e126", "1E-131", "abc", "", " 1", "0x10", "Infinity", "NaN", "1..2"}
	binPool    = []string{"", "AA==", "YQ==", "YWI=", "/w=="}
	// strings over a small alphabet, prefixes, suffixes and infixes of
	// each other (a condition's begins_with, contains and ranges tell
	// them apart)
	shortStrPool = []string{"a", "b", "ab", "ba", "aa", "a#", "#a", "a#b", "b#a"}

	hashStrPool  = []string{"a", "ab", "a#b", "a%b", "%23", "A"}
	hashNumPool  = []string{"1", "10", "-0", "1e3", "0.5", "12345678901234567890123456789012345678", "-1E-130"}
	rangeStrPool = []string{"x", "x#1", "x#10", "x#2", "#", "%", "x%", "y"}
	rangeNumPool = []string{"1", "1.0", "2", "10", "-1", "1e3", "1000", "9.9999999999999999999999999999999999999E+125"}
	keyBinPool   = []string{"YQ==", "YWI=", "AA==", "/w=="}
	idxStrPool   = []string{"g", "h", "g#1", "g%", "gh"}
	idxNumPool   = []string{"1", "2", "1e0", "-0", "10"}

	// the attributes no index keys on ("name" is one of DynamoDB's
	// reserved words: an expression must name it through a placeholder),
	// and the map keys nested paths use
	plainAttrs = []string{"a", "b", "c", "name"}
	mapKeys    = []string{"x", "y", "a#b"}
)

// KeyAttr is a key attribute and its type (S, N or B).
type KeyAttr struct {
	Name string
	Type string
}

// Index is a secondary index of the generated table.
type Index struct {
	Name       string
	Local      bool
	Hash       KeyAttr
	Range      *KeyAttr
	Projection string
	NonKey     []string
}

// Schema is the generated table's keys and indexes.
type Schema struct {
	Hash    KeyAttr
	Range   *KeyAttr
	Indexes []Index
}

// KeyNames are the table's key attributes.
func (s Schema) KeyNames() []string {
	if s.Range == nil {
		return []string{s.Hash.Name}
	}
	return []string{s.Hash.Name, s.Range.Name}
}

// index is the index named n (nil for the table or an unknown name).
func (s Schema) index(n string) *Index {
	for i := range s.Indexes {
		if s.Indexes[i].Name == n {
			return &s.Indexes[i]
		}
	}
	return nil
}

type gen struct {
	r     *rand.Rand
	sch   Schema
	types map[string]string // every key attribute's type, tables' and indexes'
	// usual is the type each plain attribute mostly holds in this
	// sequence, so conditions compare like with like (prefixes, ranges,
	// members) more often than across types
	usual  map[string]string
	hashes []av // the few partition and sort key values items share
	ranges []av
}

// Generate is the request sequence of seed: a CreateTable (keys of
// several types, GSIs and LSIs of every projection) and then n steps or
// a few more.
func Generate(seed uint64, n int) []Step {
	g := &gen{r: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)), types: map[string]string{}, usual: map[string]string{}}
	steps := []Step{g.createTable()}
	for len(steps) < n+1 {
		steps = append(steps, g.step()...)
	}
	return steps
}

func (g *gen) chance(p float64) bool { return g.r.Float64() < p }

func pick[T any](g *gen, xs []T) T { return xs[g.r.IntN(len(xs))] }

func (g *gen) keyType() string {
	switch x := g.r.IntN(20); {
	case x < 11:
		return "S"
	case x < 18:
		return "N"
	}
	return "B"
}

func (g *gen) createTable() Step {
	s := Schema{Hash: KeyAttr{"pk", g.keyType()}}
	if g.chance(0.8) {
		s.Range = &KeyAttr{"sk", g.keyType()}
	}
	for _, n := range []string{"g1", "g2", "r1", "r2", "l1"} {
		g.types[n] = "S"
		if g.chance(0.4) {
			g.types[n] = "N"
		}
	}
	g.types["pk"] = s.Hash.Type
	if s.Range != nil {
		g.types["sk"] = s.Range.Type
	}
	proj := func(ix *Index) {
		switch g.r.IntN(3) {
		case 0:
			ix.Projection = "KEYS_ONLY"
		case 1:
			ix.Projection = "INCLUDE"
			ix.NonKey = []string{pick(g, plainAttrs)}
			if g.chance(0.4) {
				if o := pick(g, plainAttrs); o != ix.NonKey[0] {
					ix.NonKey = append(ix.NonKey, o)
				}
			}
		default:
			ix.Projection = "ALL"
		}
	}
	for i := range g.r.IntN(4) {
		hashes, ranges := []string{"g1", "g2"}, []string{"r1", "r2", "pk"}
		if s.Range != nil {
			hashes = append(hashes, "sk")
		}
		ix := Index{Name: fmt.Sprintf("Gix%d", i)}
		h := pick(g, hashes)
		ix.Hash = KeyAttr{h, g.types[h]}
		if g.chance(0.65) {
			if r := pick(g, ranges); r != h {
				ix.Range = &KeyAttr{r, g.types[r]}
			}
		}
		proj(&ix)
		s.Indexes = append(s.Indexes, ix)
	}
	if s.Range != nil {
		for i := range g.r.IntN(3) {
			r := pick(g, []string{"l1", "r1"})
			ix := Index{Name: fmt.Sprintf("Lix%d", i), Local: true, Hash: s.Hash, Range: &KeyAttr{r, g.types[r]}}
			proj(&ix)
			s.Indexes = append(s.Indexes, ix)
		}
	}
	g.sch = s
	for _, n := range plainAttrs {
		g.usual[n] = pick(g, []string{"S", "S", "N", "N", "L", "M", "SS", "NS"})
	}
	for _, v := range pickN(g, poolOf(s.Hash.Type, hashStrPool, hashNumPool, keyBinPool), 2+g.r.IntN(2)) {
		g.hashes = append(g.hashes, av{s.Hash.Type: v})
	}
	if s.Range != nil {
		for _, v := range pickN(g, poolOf(s.Range.Type, rangeStrPool, rangeNumPool, keyBinPool), 4) {
			g.ranges = append(g.ranges, av{s.Range.Type: v})
		}
	}
	return Step{Op: "CreateTable", Req: CreateTableRequest(TableT, s)}
}

func poolOf(t string, str, num, bin []string) []string {
	switch t {
	case "N":
		return num
	case "B":
		return bin
	}
	return str
}

func pickN(g *gen, xs []string, n int) []string {
	p := g.r.Perm(len(xs))
	out := []string{}
	for _, i := range p[:min(n, len(xs))] {
		out = append(out, xs[i])
	}
	return out
}

// CreateTableRequest is the CreateTable body of table name with schema s.
func CreateTableRequest(name string, s Schema) map[string]any {
	defs := map[string]string{}
	ks := func(h KeyAttr, r *KeyAttr) []any {
		defs[h.Name] = h.Type
		out := []any{map[string]any{"AttributeName": h.Name, "KeyType": "HASH"}}
		if r != nil {
			defs[r.Name] = r.Type
			out = append(out, map[string]any{"AttributeName": r.Name, "KeyType": "RANGE"})
		}
		return out
	}
	req := map[string]any{"TableName": name, "BillingMode": "PAY_PER_REQUEST", "KeySchema": ks(s.Hash, s.Range)}
	var gsis, lsis []any
	for _, ix := range s.Indexes {
		p := map[string]any{"ProjectionType": ix.Projection}
		if len(ix.NonKey) > 0 {
			p["NonKeyAttributes"] = anys(ix.NonKey)
		}
		d := map[string]any{"IndexName": ix.Name, "KeySchema": ks(ix.Hash, ix.Range), "Projection": p}
		if ix.Local {
			lsis = append(lsis, d)
		} else {
			gsis = append(gsis, d)
		}
	}
	if gsis != nil {
		req["GlobalSecondaryIndexes"] = gsis
	}
	if lsis != nil {
		req["LocalSecondaryIndexes"] = lsis
	}
	names := make([]string, 0, len(defs))
	for n := range defs {
		names = append(names, n)
	}
	slices.Sort(names)
	var ad []any
	for _, n := range names {
		ad = append(ad, map[string]any{"AttributeName": n, "AttributeType": defs[n]})
	}
	req["AttributeDefinitions"] = ad
	return req
}

func anys[T any](xs []T) []any {
	out := make([]any, len(xs))
	for i, x := range xs {
		out[i] = x
	}
	return out
}

// step is the next request (a state check is several).
func (g *gen) step() []Step {
	switch x := g.r.IntN(100); {
	case x < 20:
		return []Step{{"PutItem", g.putItem()}}
	case x < 40:
		return []Step{{"UpdateItem", g.updateItem()}}
	case x < 47:
		return []Step{{"DeleteItem", g.deleteItem()}}
	case x < 54:
		return []Step{{"GetItem", g.getItem()}}
	case x < 60:
		return []Step{{"BatchWriteItem", g.batchWrite()}}
	case x < 64:
		return []Step{{"BatchGetItem", g.batchGet()}}
	case x < 72:
		return []Step{{"TransactWriteItems", g.transactWrite()}}
	case x < 75:
		return []Step{{"TransactGetItems", g.transactGet()}}
	case x < 87:
		return []Step{{"Query", g.query()}}
	case x < 94:
		return []Step{{"Scan", g.scan()}}
	case x < 98:
		return CheckSteps(g.sch)
	}
	return g.badTable()
}

// CheckSteps read everything the table and its indexes hold.
func CheckSteps(s Schema) []Step {
	out := []Step{{"Scan", map[string]any{"TableName": TableT, "ConsistentRead": true}}}
	for _, ix := range s.Indexes {
		out = append(out, Step{"Scan", map[string]any{"TableName": TableT, "IndexName": ix.Name}})
	}
	return out
}

// ---- values

func (g *gen) scalar() av {
	switch g.r.IntN(6) {
	case 0, 1:
		return av{"S": pick(g, strPool)}
	case 2, 3:
		if g.chance(0.03) {
			return av{"N": pick(g, badNumPool)}
		}
		return av{"N": pick(g, numPool)}
	case 4:
		return av{"B": pick(g, binPool)}
	}
	if g.chance(0.5) {
		return av{"NULL": true}
	}
	return av{"BOOL": g.chance(0.5)}
}

func (g *gen) set(t string) av {
	pool := poolOf(t, strPool, numPool, binPool)
	if t == "S" && g.chance(0.5) {
		pool = shortStrPool
	}
	n := 1 + g.r.IntN(3)
	if g.chance(0.04) {
		n = 0 // empty: refused
	}
	members := pickN(g, pool, n)
	if len(members) > 0 && g.chance(0.04) {
		members = append(members, members[0]) // a duplicate: refused
	}
	if t == "N" && g.chance(0.05) {
		members = append(members, "1", "1.0") // equal numbers: a duplicate
	}
	return av{t + "S": anys(members)}
}

func (g *gen) value(depth int) av {
	k := g.r.IntN(10)
	if depth >= 2 && k >= 7 {
		k = 0
	}
	switch k {
	case 0, 1, 2, 3:
		return g.scalar()
	case 4, 5:
		return g.set(pick(g, []string{"S", "N", "B"}))
	case 6:
		return av{"N": pick(g, numPool)}
	case 7, 8:
		var l []any
		for range g.r.IntN(4) {
			l = append(l, g.value(depth+1))
		}
		return av{"L": orEmpty(l)}
	}
	m := map[string]any{}
	for range g.r.IntN(4) {
		m[pick(g, mapKeys)] = g.value(depth + 1)
	}
	return av{"M": m}
}

// valueOf is a value of type t.
func (g *gen) valueOf(t string) av {
	switch t {
	case "S":
		if g.chance(0.6) {
			return av{"S": pick(g, shortStrPool)}
		}
		return av{"S": pick(g, strPool)}
	case "N":
		return av{"N": pick(g, numPool)}
	case "B":
		return av{"B": pick(g, binPool)}
	case "SS", "NS", "BS":
		return g.set(t[:1])
	case "L":
		var l []any
		for range g.r.IntN(4) {
			l = append(l, g.scalar())
		}
		return av{"L": orEmpty(l)}
	case "M":
		m := map[string]any{}
		for range g.r.IntN(4) {
			m[pick(g, mapKeys)] = g.scalar()
		}
		return av{"M": m}
	}
	return g.value(1)
}

func orEmpty(l []any) []any {
	if l == nil {
		return []any{}
	}
	return l
}

// keyValue is a value for an index key attribute n: mostly of its type,
// sometimes of another or empty, which DynamoDB must refuse without
// applying the write.
func (g *gen) keyValue(n string) av {
	t := g.types[n]
	switch {
	case g.chance(0.05):
		o := pick(g, []string{"S", "N", "B", "BOOL"})
		if o == "BOOL" {
			return av{"BOOL": true}
		}
		if o != t {
			return av{o: pick(g, poolOf(o, idxStrPool, idxNumPool, keyBinPool))}
		}
	case g.chance(0.03) && t != "N":
		return av{t: ""}
	}
	return av{t: pick(g, poolOf(t, idxStrPool, idxNumPool, keyBinPool))}
}

// key is a primary key of the table, now and then a broken one.
func (g *gen) key() map[string]any {
	k := map[string]any{g.sch.Hash.Name: pick(g, g.hashes)}
	if g.sch.Range != nil {
		k[g.sch.Range.Name] = pick(g, g.ranges)
	}
	if g.chance(0.01) && g.sch.Hash.Type == "S" {
		// past the 2,048 bytes of a partition key, or the 1,024 of a sort key
		k[g.sch.Hash.Name] = av{"S": strings.Repeat("p", 2049)}
		if g.sch.Range != nil && g.sch.Range.Type == "S" && g.chance(0.5) {
			k[g.sch.Hash.Name] = pick(g, g.hashes)
			k[g.sch.Range.Name] = av{"S": strings.Repeat("s", 1025)}
		}
	}
	if g.chance(0.03) {
		switch g.r.IntN(4) {
		case 0:
			if g.sch.Range != nil {
				delete(k, g.sch.Range.Name)
			} else {
				k["sk"] = av{"S": "x"}
			}
		case 1:
			k[g.sch.Hash.Name] = av{g.sch.Hash.Type: ""}
		case 2:
			if g.sch.Hash.Type == "S" {
				k[g.sch.Hash.Name] = av{"N": "1"}
			} else {
				k[g.sch.Hash.Name] = av{"S": "1"}
			}
		case 3:
			k["a"] = av{"S": "a"}
		}
	}
	return k
}

// indexAttrs are the key attributes of indexes that are not the table's.
func (g *gen) indexAttrs() []string {
	var out []string
	for _, ix := range g.sch.Indexes {
		for _, a := range []*KeyAttr{&ix.Hash, ix.Range} {
			if a != nil && a.Name != "pk" && a.Name != "sk" && !slices.Contains(out, a.Name) {
				out = append(out, a.Name)
			}
		}
	}
	slices.Sort(out)
	return out
}

func (g *gen) item() map[string]any {
	it := g.key()
	for _, n := range g.indexAttrs() {
		if g.chance(0.7) {
			it[n] = g.keyValue(n)
		}
	}
	for _, n := range plainAttrs {
		if g.chance(0.6) {
			if g.chance(0.7) {
				it[n] = g.valueOf(g.usual[n])
			} else {
				it[n] = g.value(0)
			}
		}
	}
	if g.chance(0.01) {
		// near DynamoDB's 400 KB item limit, or past it
		it["a"] = av{"S": strings.Repeat("x", pick(g, []int{300_000, 410_000}))}
	}
	return it
}

// ---- expressions

// expr collects an expression's placeholders.
type expr struct {
	g      *gen
	names  map[string]any
	values map[string]any
}

func (g *gen) expr() *expr { return &expr{g: g, names: map[string]any{}, values: map[string]any{}} }

// name is n in an expression: as it is, or through a #placeholder.
func (e *expr) name(n string) string {
	p := 0.3
	if n == "name" {
		p = 0.85
	}
	if e.g.chance(p) || strings.ContainsAny(n, "#%. ") {
		for p, v := range e.names {
			if v == n {
				return p
			}
		}
		p := fmt.Sprintf("#n%d", len(e.names))
		e.names[p] = n
		return p
	}
	return n
}

func (e *expr) val(v av) string {
	p := fmt.Sprintf(":v%d", len(e.values))
	e.values[p] = v
	return p
}

// attach puts the placeholders into req (an action of a transaction
// has its own).
func (e *expr) attach(req map[string]any) {
	if e.g.chance(0.01) {
		e.names["#unused"] = "a" // refused: every placeholder must be used
	}
	if len(e.names) > 0 {
		req["ExpressionAttributeNames"] = e.names
	}
	if len(e.values) > 0 {
		req["ExpressionAttributeValues"] = e.values
	}
}

// kw is a keyword as DynamoDB reads it: in any case.
func (e *expr) kw(k string) string {
	switch e.g.r.IntN(10) {
	case 0:
		return strings.ToLower(k)
	case 1:
		return k[:1] + strings.ToLower(k[1:])
	}
	return k
}

// path is a document path: mostly the plain attributes, sometimes an
// index's or the table's key, nested into maps and lists (indexes past
// a list's end included).
func (e *expr) path() string {
	var top string
	switch x := e.g.r.IntN(20); {
	case x < 15:
		top = pick(e.g, plainAttrs)
	case x < 18 && len(e.g.indexAttrs()) > 0:
		top = pick(e.g, e.g.indexAttrs())
	default:
		top = pick(e.g, e.g.sch.KeyNames())
	}
	p := e.name(top)
	nest := 0.3
	if !slices.Contains(plainAttrs, top) {
		nest = 0.05 // DynamoDB refuses a nested path into any key attribute
	}
	for e.g.chance(nest) && strings.Count(p, ".")+strings.Count(p, "[") < 3 {
		if e.g.chance(0.5) {
			p += "." + e.name(pick(e.g, mapKeys))
		} else {
			p += fmt.Sprintf("[%d]", e.g.r.IntN(3))
		}
	}
	return p
}

// typedPath is a plain attribute and the type it mostly holds.
func (e *expr) typedPath() (string, string) {
	n := pick(e.g, plainAttrs)
	return e.name(n), e.g.usual[n]
}

// stringPath is a plain attribute that mostly holds strings in this
// sequence (any plain attribute when none does).
func (e *expr) stringPath() string {
	var strs []string
	for _, n := range plainAttrs {
		if e.g.usual[n] == "S" {
			strs = append(strs, n)
		}
	}
	if len(strs) == 0 {
		p, _ := e.typedPath()
		return p
	}
	return e.name(pick(e.g, strs))
}

// stringTest is begins_with or contains on a string attribute, with a
// short value that many of its strings hold, at their start or inside.
func (e *expr) stringTest() string {
	p, v := e.stringPath(), e.val(av{"S": pick(e.g, []string{"a", "b", "#", "a#", "ab", "ba"})})
	if e.g.chance(0.5) {
		return "contains(" + p + ", " + v + ")"
	}
	return "begins_with(" + p + ", " + v + ")"
}

func (e *expr) operand() string {
	switch x := e.g.r.IntN(20); {
	case x < 12:
		return e.path()
	case x < 14:
		return "size(" + e.path() + ")"
	}
	return e.val(e.g.value(1))
}

var comparators = []string{"=", "<>", "<", "<=", ">", ">="}

func (e *expr) cond(depth int) string {
	k := e.g.r.IntN(13)
	if depth >= 2 && k >= 9 {
		k = e.g.r.IntN(9)
	}
	typed := e.g.chance(0.6)
	switch k {
	case 0, 1:
		if typed {
			p, t := e.typedPath()
			if e.g.chance(0.5) {
				return p + " " + pick(e.g, comparators) + " " + e.val(e.g.valueOf(t))
			}
			return e.val(e.g.valueOf(t)) + " " + pick(e.g, comparators) + " " + p
		}
		return e.operand() + " " + pick(e.g, comparators) + " " + e.operand()
	case 2:
		if typed {
			p, t := e.typedPath()
			return p + " " + e.kw("BETWEEN") + " " + e.val(e.g.valueOf(t)) + " " + e.kw("AND") + " " + e.val(e.g.valueOf(t))
		}
		return e.operand() + " " + e.kw("BETWEEN") + " " + e.operand() + " " + e.kw("AND") + " " + e.operand()
	case 3:
		vals := []string{}
		p, t := e.operand(), ""
		if typed {
			p, t = e.typedPath()
		}
		for range 1 + e.g.r.IntN(3) {
			if typed {
				vals = append(vals, e.val(e.g.valueOf(t)))
			} else {
				vals = append(vals, e.val(e.g.value(1)))
			}
		}
		return p + " " + e.kw("IN") + " (" + strings.Join(vals, ", ") + ")"
	case 4:
		return "attribute_exists(" + e.path() + ")"
	case 5:
		return "attribute_not_exists(" + e.path() + ")"
	case 6:
		t := pick(e.g, []string{"S", "N", "B", "BOOL", "NULL", "L", "M", "SS", "NS", "BS"})
		if e.g.chance(0.03) {
			t = "X"
		}
		return "attribute_type(" + e.path() + ", " + e.val(av{"S": t}) + ")"
	case 7:
		v := av{"S": pick(e.g, strPool)}
		if e.g.chance(0.2) {
			v = e.g.scalar()
		}
		p := e.path()
		if typed || e.g.chance(0.75) {
			// mostly a string attribute: a value it holds may contain v without
			// starting with it (begins_with is not contains)
			p = e.stringPath()
			v = av{"S": pick(e.g, shortStrPool)}
		}
		return "begins_with(" + p + ", " + e.val(v) + ")"
	case 8:
		if typed {
			// a member of a set or list, a substring of a string
			p, t := e.typedPath()
			v := e.g.value(1)
			switch t {
			case "SS", "S", "L":
				v = av{"S": pick(e.g, shortStrPool)}
			case "NS":
				v = av{"N": pick(e.g, numPool)}
			}
			return "contains(" + p + ", " + e.val(v) + ")"
		}
		return "contains(" + e.path() + ", " + e.val(e.g.value(1)) + ")"
	case 9:
		return e.cond(depth+1) + " " + e.kw("AND") + " " + e.cond(depth+1)
	case 10:
		return e.cond(depth+1) + " " + e.kw("OR") + " " + e.cond(depth+1)
	case 11:
		return e.kw("NOT") + " " + e.cond(depth+1)
	}
	return "(" + e.cond(depth+1) + ")"
}

// update is an UpdateExpression of one to four actions.
func (e *expr) update() string {
	clauses := map[string][]string{}
	var order []string
	for range 1 + e.g.r.IntN(4) {
		var c, a string
		switch x := e.g.r.IntN(20); {
		case x < 11:
			c, a = "SET", e.path()+" = "+e.setValue()
		case x < 15:
			c, a = "REMOVE", e.path()
		case x < 18:
			c = "ADD"
			v := av{"N": pick(e.g, numPool)}
			if e.g.chance(0.4) {
				v = e.g.set(pick(e.g, []string{"S", "N"}))
			}
			a = e.path() + " " + e.val(v)
		default:
			c, a = "DELETE", e.path()+" "+e.val(e.g.set(pick(e.g, []string{"S", "N", "B"})))
		}
		if _, ok := clauses[c]; !ok {
			order = append(order, c)
		}
		clauses[c] = append(clauses[c], a)
	}
	var parts []string
	for _, c := range order {
		parts = append(parts, e.kw(c)+" "+strings.Join(clauses[c], ", "))
	}
	return strings.Join(parts, " ")
}

func (e *expr) setValue() string {
	num := func() string {
		if e.g.chance(0.7) {
			return e.val(av{"N": pick(e.g, numPool)})
		}
		return e.path()
	}
	switch e.g.r.IntN(12) {
	case 0, 1, 2, 3:
		return e.val(e.g.value(0))
	case 4:
		return e.path()
	case 5:
		return num() + " + " + num()
	case 6:
		return num() + " - " + num()
	case 7, 8:
		return "if_not_exists(" + e.path() + ", " + e.val(e.g.value(1)) + ")"
	case 9:
		return "list_append(" + e.path() + ", " + e.val(e.g.listValue()) + ")"
	case 10:
		return "list_append(" + e.val(e.g.listValue()) + ", " + e.path() + ")"
	}
	if e.g.chance(0.3) {
		return "list_append(" + e.val(e.g.listValue()) + ")" // one argument: refused
	}
	return "if_not_exists(" + e.path() + ", " + e.path() + ")"
}

func (g *gen) listValue() av {
	var l []any
	for range g.r.IntN(3) {
		l = append(l, g.scalar())
	}
	return av{"L": orEmpty(l)}
}

func (e *expr) projection() string {
	var ps []string
	for range 1 + e.g.r.IntN(3) {
		ps = append(ps, e.path())
	}
	return strings.Join(ps, ", ")
}

// ---- requests

func (g *gen) returnValues(req map[string]any, choices ...string) {
	if g.chance(0.4) {
		req["ReturnValues"] = pick(g, choices)
		if g.chance(0.03) {
			req["ReturnValues"] = pick(g, []string{"ALL_NEW", "UPDATED_OLD", "all_old", "NOTHING"})
		}
	}
}

func (g *gen) conditional(req map[string]any, e *expr) {
	if g.chance(0.4) {
		req["ConditionExpression"] = e.cond(0)
		if g.chance(0.35) {
			req["ReturnValuesOnConditionCheckFailure"] = pick(g, []string{"ALL_OLD", "NONE"})
		}
	}
}

func (g *gen) putItem() map[string]any {
	req := map[string]any{"TableName": TableT, "Item": g.item()}
	e := g.expr()
	g.conditional(req, e)
	e.attach(req)
	if g.chance(0.04) {
		// the legacy condition: alone, or beside an expression (refused)
		a := pick(g, plainAttrs)
		switch g.r.IntN(3) {
		case 0:
			req["Expected"] = map[string]any{a: map[string]any{"Exists": false}}
		case 1:
			req["Expected"] = map[string]any{a: map[string]any{"Value": g.scalar()}}
		default:
			req["Expected"] = map[string]any{a: map[string]any{"ComparisonOperator": pick(g, []string{"EQ", "NE", "LT", "GE", "NOT_NULL", "NULL", "BEGINS_WITH"}),
				"AttributeValueList": []any{g.scalar()}}}
		}
	}
	g.returnValues(req, "NONE", "ALL_OLD")
	return req
}

func (g *gen) updateItem() map[string]any {
	req := map[string]any{"TableName": TableT, "Key": g.key()}
	e := g.expr()
	if g.chance(0.96) {
		req["UpdateExpression"] = e.update()
	}
	g.conditional(req, e)
	e.attach(req)
	g.returnValues(req, "NONE", "ALL_OLD", "UPDATED_OLD", "ALL_NEW", "UPDATED_NEW")
	return req
}

func (g *gen) deleteItem() map[string]any {
	req := map[string]any{"TableName": TableT, "Key": g.key()}
	e := g.expr()
	g.conditional(req, e)
	e.attach(req)
	g.returnValues(req, "NONE", "ALL_OLD")
	return req
}

func (g *gen) getItem() map[string]any {
	req := map[string]any{"TableName": TableT, "Key": g.key()}
	if g.chance(0.5) {
		req["ConsistentRead"] = true
	}
	if g.chance(0.05) {
		req["AttributesToGet"] = anys(pickN(g, append(slices.Clone(plainAttrs), g.sch.KeyNames()...), 1+g.r.IntN(2)))
	}
	if g.chance(0.3) {
		e := g.expr()
		req["ProjectionExpression"] = e.projection()
		e.attach(req)
	}
	return req
}

func (g *gen) batchWrite() map[string]any {
	var reqs []any
	for range 1 + g.r.IntN(5) {
		if g.chance(0.7) {
			reqs = append(reqs, map[string]any{"PutRequest": map[string]any{"Item": g.item()}})
		} else {
			reqs = append(reqs, map[string]any{"DeleteRequest": map[string]any{"Key": g.key()}})
		}
	}
	return map[string]any{"RequestItems": map[string]any{TableT: reqs}}
}

func (g *gen) batchGet() map[string]any {
	var keys []any
	for range 1 + g.r.IntN(4) {
		keys = append(keys, g.key())
	}
	r := map[string]any{"Keys": keys}
	if g.chance(0.4) {
		r["ConsistentRead"] = true
	}
	if g.chance(0.3) {
		e := g.expr()
		r["ProjectionExpression"] = e.projection()
		e.attach(r)
	}
	return map[string]any{"RequestItems": map[string]any{TableT: r}}
}

func (g *gen) transactWrite() map[string]any {
	var items []any
	for range 1 + g.r.IntN(4) {
		e := g.expr()
		var kind string
		var a map[string]any
		switch g.r.IntN(4) {
		case 0:
			kind, a = "Put", map[string]any{"TableName": TableT, "Item": g.item()}
			if g.chance(0.4) {
				a["ConditionExpression"] = e.cond(0)
			}
		case 1:
			kind, a = "Update", map[string]any{"TableName": TableT, "Key": g.key(), "UpdateExpression": e.update()}
			if g.chance(0.4) {
				a["ConditionExpression"] = e.cond(0)
			}
		case 2:
			kind, a = "Delete", map[string]any{"TableName": TableT, "Key": g.key()}
			if g.chance(0.4) {
				a["ConditionExpression"] = e.cond(0)
			}
		default:
			kind, a = "ConditionCheck", map[string]any{"TableName": TableT, "Key": g.key(), "ConditionExpression": e.cond(0)}
		}
		if _, ok := a["ConditionExpression"]; ok && g.chance(0.5) {
			a["ReturnValuesOnConditionCheckFailure"] = "ALL_OLD"
		}
		e.attach(a)
		items = append(items, map[string]any{kind: a})
	}
	return map[string]any{"TransactItems": items}
}

func (g *gen) transactGet() map[string]any {
	var items []any
	for range 1 + g.r.IntN(4) {
		a := map[string]any{"TableName": TableT, "Key": g.key()}
		if g.chance(0.3) {
			e := g.expr()
			a["ProjectionExpression"] = e.projection()
			e.attach(a)
		}
		items = append(items, map[string]any{"Get": a})
	}
	return map[string]any{"TransactItems": items}
}

// keyCondition is a KeyConditionExpression on hash (= v) and range, now
// and then one DynamoDB must refuse.
func (e *expr) keyCondition(hash KeyAttr, rng *KeyAttr, v av) string {
	h := e.name(hash.Name) + " = " + e.val(v)
	if e.g.chance(0.04) {
		switch e.g.r.IntN(4) {
		case 0:
			return e.name(hash.Name) + " < " + e.val(v)
		case 1:
			return h + " " + e.kw("OR") + " " + e.name(hash.Name) + " = " + e.val(v)
		case 2:
			return h + " " + e.kw("AND") + " " + e.name("a") + " = " + e.val(e.g.scalar())
		default:
			return "begins_with(" + e.name(hash.Name) + ", " + e.val(v) + ")"
		}
	}
	if rng == nil || e.g.chance(0.4) {
		return h
	}
	if rng.Type == "S" && e.g.chance(0.15) {
		// a prefix of the universe's sort keys (x#1 of x#10, #, x)
		return h + " " + e.kw("AND") + " begins_with(" + e.name(rng.Name) + ", " + e.val(av{"S": pick(e.g, []string{"x", "x#", "x#1", "#", "%", "y"})}) + ")"
	}
	rv := func() av {
		if rng.Name == "pk" || rng.Name == "sk" {
			if rng.Name == e.g.sch.Hash.Name {
				return pick(e.g, e.g.hashes)
			}
			if e.g.chance(0.8) {
				return pick(e.g, e.g.ranges)
			}
		}
		return e.g.keyValue(rng.Name)
	}
	rn := e.name(rng.Name)
	var r string
	switch e.g.r.IntN(8) {
	case 0, 1, 2, 3:
		r = rn + " " + pick(e.g, []string{"=", "<", "<=", ">", ">="}) + " " + e.val(rv())
	case 4, 5:
		r = rn + " " + e.kw("BETWEEN") + " " + e.val(rv()) + " " + e.kw("AND") + " " + e.val(rv())
	default:
		r = "begins_with(" + rn + ", " + e.val(rv()) + ")"
	}
	if e.g.chance(0.2) {
		return r + " " + e.kw("AND") + " " + h
	}
	return h + " " + e.kw("AND") + " " + r
}

func (g *gen) query() map[string]any {
	req := map[string]any{"TableName": TableT}
	hash, rng := g.sch.Hash, g.sch.Range
	v := pick(g, g.hashes)
	if n := len(g.sch.Indexes); n > 0 && g.chance(0.6) {
		ix := g.sch.Indexes[g.r.IntN(n)]
		req["IndexName"] = ix.Name
		hash, rng = ix.Hash, ix.Range
		switch hash.Name {
		case "pk":
		case "sk":
			v = pick(g, g.ranges)
		default:
			v = g.keyValue(hash.Name)
		}
	}
	e := g.expr()
	req["KeyConditionExpression"] = e.keyCondition(hash, rng, v)
	g.readOptions(req, e)
	g.startKey(req)
	if g.chance(0.4) {
		req["ScanIndexForward"] = false
	}
	e.attach(req)
	return req
}

func (g *gen) scan() map[string]any {
	req := map[string]any{"TableName": TableT}
	if n := len(g.sch.Indexes); n > 0 && g.chance(0.4) {
		req["IndexName"] = g.sch.Indexes[g.r.IntN(n)].Name
	}
	e := g.expr()
	g.readOptions(req, e)
	g.startKey(req)
	_, started := req["ExclusiveStartKey"]
	switch {
	case started:
	case g.chance(0.03):
		seg := pick(g, []map[string]any{{"Segment": 2, "TotalSegments": 2}, {"TotalSegments": 0}, {"Segment": 0}, {"Segment": -1, "TotalSegments": 2}})
		for k, v := range seg {
			req[k] = v
		}
	case g.chance(0.2):
		req["TotalSegments"] = 1 + g.r.IntN(3)
	}
	e.attach(req)
	return req
}

// readOptions adds a Query's or Scan's filter, projection, Select, Limit
// and ConsistentRead.
func (g *gen) readOptions(req map[string]any, e *expr) {
	switch {
	case g.chance(0.3):
		req["FilterExpression"] = e.cond(0)
	case g.chance(0.35):
		// a string test on a string attribute: a read that tells
		// begins_with, contains and equality apart on many items at once
		req["FilterExpression"] = e.stringTest()
	}
	if g.chance(0.25) {
		req["ProjectionExpression"] = e.projection()
		if g.chance(0.2) {
			req["Select"] = "SPECIFIC_ATTRIBUTES"
		}
	} else if g.chance(0.2) {
		req["Select"] = pick(g, []string{"COUNT", "COUNT", "ALL_ATTRIBUTES", "ALL_PROJECTED_ATTRIBUTES", "SPECIFIC_ATTRIBUTES"})
	}
	if g.chance(0.5) {
		req["Limit"] = 1 + g.r.IntN(4)
		if g.chance(0.03) {
			req["Limit"] = 0
		}
	}
	if g.chance(0.2) {
		req["ConsistentRead"] = true
	}
}

// badTable tries a table definition DynamoDB refuses (or, rarely, one it
// accepts), and deletes it.
func (g *gen) badTable() []Step {
	s := g.sch
	s.Indexes = slices.Clone(s.Indexes)
	req := CreateTableRequest(TableU, s)
	switch g.r.IntN(8) {
	case 0: // INCLUDE without attributes
		s.Indexes = append(s.Indexes, Index{Name: "Bad", Hash: KeyAttr{"g1", g.types["g1"]}, Projection: "INCLUDE"})
		req = CreateTableRequest(TableU, s)
	case 1: // KEYS_ONLY with attributes
		s.Indexes = append(s.Indexes, Index{Name: "Bad", Hash: KeyAttr{"g1", g.types["g1"]}, Projection: "KEYS_ONLY", NonKey: []string{"a"}})
		req = CreateTableRequest(TableU, s)
	case 2: // an attribute defined and never used as a key
		req["AttributeDefinitions"] = append(req["AttributeDefinitions"].([]any), map[string]any{"AttributeName": "zz", "AttributeType": "S"})
	case 3: // a key attribute not defined
		req["AttributeDefinitions"] = req["AttributeDefinitions"].([]any)[1:]
	case 4: // two indexes of one name
		s.Indexes = append(s.Indexes, Index{Name: "Twice", Hash: KeyAttr{"g1", g.types["g1"]}, Projection: "ALL"},
			Index{Name: "Twice", Hash: KeyAttr{"g2", g.types["g2"]}, Projection: "ALL"})
		req = CreateTableRequest(TableU, s)
	case 5: // an LSI on a table without a sort key, or with another partition key
		ix := Index{Name: "BadL", Local: true, Hash: KeyAttr{"g1", g.types["g1"]}, Range: &KeyAttr{"l1", g.types["l1"]}, Projection: "ALL"}
		if s.Range == nil {
			ix.Hash = s.Hash
		}
		s.Indexes = append(s.Indexes, ix)
		req = CreateTableRequest(TableU, s)
	case 6: // a table name too short, or an index name
		if len(s.Indexes) > 0 && g.chance(0.5) {
			s.Indexes[0].Name = "G"
			req = CreateTableRequest(TableU, s)
		} else {
			req["TableName"] = "ab"
		}
	default: // an index key of type BOOL
		req["AttributeDefinitions"] = append([]any{}, req["AttributeDefinitions"].([]any)...)
		for i, d := range req["AttributeDefinitions"].([]any) {
			if i == 0 {
				d := asMap(d)
				req["AttributeDefinitions"].([]any)[0] = map[string]any{"AttributeName": d["AttributeName"], "AttributeType": "BOOL"}
			}
		}
	}
	return []Step{{"CreateTable", req}, {"DeleteTable", map[string]any{"TableName": req["TableName"]}}}
}

func asMap(v any) map[string]any {
	m, _ := v.(map[string]any)
	return m
}

// startKey now and then starts a read after a key of the universe (an
// item that may never have been written, or was deleted), or gives a
// key DynamoDB must refuse (empty, one key short). Only a Query of the
// table gets a valid one: where a Scan or a read of an index with equal
// keys goes on after a given key is the engine's own order.
func (g *gen) startKey(req map[string]any) {
	if !g.chance(0.1) {
		return
	}
	k := map[string]any{g.sch.Hash.Name: pick(g, g.hashes)}
	if g.sch.Range != nil {
		k[g.sch.Range.Name] = pick(g, g.ranges)
	}
	_, index := req["IndexName"]
	_, query := req["KeyConditionExpression"]
	switch {
	case !query || index || g.chance(0.15):
		if g.chance(0.5) {
			k = map[string]any{}
		} else {
			delete(k, g.sch.Hash.Name)
			k["a"] = av{"S": "a"}
		}
	}
	req["ExclusiveStartKey"] = k
}

package adopt

import (
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/keyplan/keyplan/patterns/model"
)

// inferKeys gives an entity a key template on every index its items are
// on: the base table first (its attributes become the id), then each GSI
// some item holds a key of.
func (im *importer) inferKeys(e *entity) {
	e.keys = map[string][2]string{}
	for i, ix := range im.indexes {
		subject := "entity " + e.name + ", " + indexLabel(ix.name)
		held := 0
		for _, s := range e.samples {
			if _, ok := s[ix.pk]; ok {
				held++
			}
		}
		if i > 0 && held == 0 {
			continue // not on this GSI
		}
		pkAlias, skAlias := "", ""
		if i == 0 {
			pkAlias, skAlias = e.alias.PartitionKeyAlias, e.alias.SortKeyAlias
		}
		pk, ok := im.template(e, subject+" partition key "+ix.pk, ix.pk, pkAlias)
		if !ok {
			if i == 0 {
				pk = model.Tag(e.name)
				im.note(subject, true, "no item gives its partition key: %s is a constant guess", pk)
			} else {
				continue
			}
		}
		var sk string
		if ix.sk == "" {
			sk = model.Tag(e.name)
			im.note(subject, false, "it has no sort key; keyplan's keys all have one: the constant %s", sk)
		} else if sk, ok = im.template(e, subject+" sort key "+ix.sk, ix.sk, skAlias); !ok {
			sk = model.Tag(e.name)
			im.note(subject, true, "no item gives its sort key: %s is a constant guess", sk)
		}
		e.keys[ix.name] = [2]string{pk, sk}
		if i > 0 && held < len(e.samples) {
			im.sparse(e, ix, subject, held)
		}
		if i == 0 {
			for _, t := range []string{pk, sk} {
				tt, _ := model.ParseTemplate(t)
				for _, a := range tt.Attrs() {
					if !contains(e.id, a) {
						e.id = append(e.id, a)
					}
				}
			}
		}
	}
	if len(e.id) == 0 && len(e.attrs) > 0 {
		e.id = []string{e.attrs[0].name}
		im.note("entity "+e.name, true, "its base key holds no attribute (every item has the same key): its id is taken to be %s, which its key does not hold", e.id[0])
	}
}

func indexLabel(ix string) string {
	if ix == model.BaseIndex {
		return "base table"
	}
	return ix
}

func contains(s []string, x string) bool {
	for _, y := range s {
		if y == x {
			return true
		}
	}
	return false
}

// dropped marks a sample left out of the examples (its key has a shape
// the entity's template does not take).
const dropped = "\x00dropped"

// render fills a template from a sample, as keyplan writes keys.
func (e *entity) render(t model.Template, s map[string]sampleValue) (string, bool) {
	var b strings.Builder
	for _, seg := range t {
		switch {
		case seg.Attr != "":
			a := e.attr(seg.Attr)
			if a == nil {
				return "", false
			}
			v, ok := e.value(s, a)
			if !ok {
				return "", false
			}
			enc, ok := a.encode(v)
			if !ok {
				return "", false
			}
			b.WriteString(enc)
		case seg.Shards > 0:
			return "", false // a shard is a hash of the id: not from one value
		default:
			b.WriteString(seg.Lit)
		}
	}
	return b.String(), true
}

// template infers the template of one key attribute of an entity from the
// values its items hold: the alias when it is a template every item
// agrees with; else, part by part ('#'-separated), an attribute whose
// encoded value every item holds there, a literal where every item holds
// the same text, and otherwise a new attribute made from the part.
func (im *importer) template(e *entity, subject, key, alias string) (string, bool) {
	var holders []map[string]sampleValue
	for _, s := range e.samples {
		if _, out := s[dropped]; out {
			continue
		}
		if v, ok := s[key]; ok && (v.typ == "S" || v.typ == "N") {
			holders = append(holders, s)
		}
	}
	// A template alias every item agrees with (keyplan's own export);
	// one that is a constant only when the items hold it (an alias that
	// names the key, "AccountId", is no constant the items agree with).
	if alias != "" && (strings.Contains(alias, "{") || len(holders) > 0) {
		if t, err := model.ParseTemplate(alias); err == nil && im.agrees(e, t, holders, key) {
			return alias, true
		}
	}
	if len(holders) == 0 {
		return "", false
	}
	values := make([]string, len(holders))
	for j, s := range holders {
		values[j] = s[key].text
	}
	// The whole value one attribute's.
	if a := im.match(e, holders, values, nil, nil); a != nil {
		im.bound(e, subject, a)
		return "{" + a.name + "}", true
	}
	split := make([][]string, len(values))
	n := -1
	for j, v := range values {
		split[j] = strings.Split(v, "#")
		if n >= 0 && len(split[j]) != n {
			n = -2
		}
		if n == -1 {
			n = len(split[j])
		}
	}
	if n < 0 {
		// Items hold keys of different shapes: the shape most of them
		// have is the entity's; the others are left out of the examples
		// (the note keeps their keys).
		count := map[int]int{}
		for _, p := range split {
			count[len(p)]++
		}
		best := 0
		for c, k := range count {
			if k > count[best] || k == count[best] && c < best {
				best = c
			}
		}
		var keep []map[string]sampleValue
		for j, p := range split {
			if len(p) == best {
				keep = append(keep, holders[j])
				continue
			}
			holders[j][dropped] = sampleValue{text: values[j]}
			im.note(subject, false, "an item holds %q, which does not have the shape of the others (%d '#' parts): it is left out of the examples; its key needs fixing", values[j], best)
		}
		if len(keep) == 0 {
			return "", false
		}
		// Infer again from the items that agree.
		saved := e.samples
		e.samples = keep
		t, ok := im.template(e, subject, key, alias)
		e.samples = saved
		return t, ok
	}
	tokens := aliasTokens(alias)
	if len(tokens) == 1 && strings.EqualFold(tokens[0], key) {
		tokens = nil // the alias is the attribute's own name: no alias
	}
	named := aliasNames(tokens, split[0])
	var out []string
	var used []string
	for i := 0; i < n; i++ {
		texts := make([]string, len(values))
		for j := range values {
			texts[j] = split[j][i]
		}
		same := true
		for _, x := range texts {
			same = same && x == texts[0]
		}
		if token := named[i]; token != "" && !(same && isUpperWord(texts[0]) && len(holders) > 1) {
			// The alias names this part: the attribute of that name.
			a := e.attrNamed(token)
			if a == nil || !im.holds(e, a, holders, texts) {
				if a = im.match(e, holders, texts, used, []string{token}); a != nil && !strings.EqualFold(a.name, token) {
					im.note(subject, true, "the alias calls part %d %s; %s holds the same value in the items, but is taken to be another attribute", i+1, token, a.name)
				}
				if a == nil || !strings.EqualFold(a.name, token) {
					if own := e.attrNamed(token); own != nil {
						v, _ := e.value(holders[0], own)
						a = im.makeAttr(e, holders, texts, key, token, subject)
						im.note(subject, true, "the alias calls part %d %s, but the items' %s (%q) is not what the key holds (%q): made attribute %s from the key", i+1, token, own.name, v, texts[0], a.name)
					} else {
						a = im.makeAttr(e, holders, texts, key, token, subject)
						im.note(subject, true, "part %d (%q…) is attribute %s, as the alias names it", i+1, texts[0], a.name)
					}
				}
			}
			used = append(used, a.name)
			im.bound(e, subject, a)
			out = append(out, "{"+a.name+"}")
			continue
		}
		if texts[0] != "" || !same {
			if a := im.match(e, holders, texts, used, tokens); a != nil {
				used = append(used, a.name)
				im.bound(e, subject, a)
				switch {
				case same && len(holders) > 1:
					im.note(subject, true, "every item holds %q in part %d, as its %s: taken as {%s}; were it a constant, the template would say %s", texts[0], i+1, a.name, a.name, texts[0])
				case len(holders) == 1:
					im.note(subject, true, "one item only: %q in part %d is taken as {%s}, the attribute that holds it; were it a constant, the template would say %s", texts[0], i+1, a.name, texts[0])
				}
				out = append(out, "{"+a.name+"}")
				continue
			}
		}
		if same && (len(holders) > 1 || isWord(texts[0]) || texts[0] == "") {
			out = append(out, literal(texts[0]))
			continue
		}
		// A value no attribute holds: split off a literal prefix and suffix
		// the items share, and make an attribute of the rest.
		pre, suf := affixes(texts)
		mid := make([]string, len(texts))
		for j, x := range texts {
			mid[j] = x[len(pre) : len(x)-len(suf)]
		}
		name := ""
		if pre != "" {
			name = strings.ToLower(strings.TrimFunc(pre, func(r rune) bool { return !unicode.IsLetter(r) })) + "Id"
		}
		if name == "" && i > 0 && isWord(split[0][i-1]) {
			name = strings.ToLower(strings.Trim(split[0][i-1], `"`)) + "Id"
		}
		var a *attr
		if pre != "" || suf != "" {
			a = im.match(e, holders, mid, used, tokens)
		}
		if a == nil {
			a = im.makeAttr(e, holders, mid, key, name, subject)
			why := "the items hold different values there"
			if len(holders) == 1 {
				why = "one item only, and it does not look like a constant"
			}
			im.note(subject, true, "part %d (%q…) is held by no attribute and %s: made attribute %s from it", i+1, texts[0], why, a.name)
		}
		used = append(used, a.name)
		out = append(out, literal(pre)+"{"+a.name+"}"+literal(suf))
	}
	t := strings.Join(out, "#")
	tt, err := model.ParseTemplate(t)
	if err != nil {
		a := im.makeAttr(e, holders, values, key, "", subject)
		im.note(subject, true, "the template %s it would take is not one keyplan reads (%v): the whole value is taken as attribute %s", t, err, a.name)
		return "{" + a.name + "}", true
	}
	for j, s := range holders {
		if got, ok := e.render(tt, s); !ok || got != values[j] {
			im.note(subject, false, "keyplan writes %q for an item that holds %q (%s): the key's bytes change", got, values[j], t)
			break
		}
	}
	return t, true
}

// literal is text as a template's literal (its braces doubled).
func literal(s string) string { return model.Template{{Lit: s}}.String() }

// agrees reports whether every holder renders to the value it holds, and
// every attribute of the template is the entity's.
func (im *importer) agrees(e *entity, t model.Template, holders []map[string]sampleValue, key string) bool {
	for _, a := range t.Attrs() {
		if e.attr(a) == nil {
			return false
		}
	}
	for _, s := range holders {
		if got, ok := e.render(t, s); !ok || got != s[key].text {
			return false
		}
	}
	return true
}

// match finds the attribute whose encoded value every holder has at this
// place (texts), not one used already in the template; an alias token
// names the preferred one among several.
func (im *importer) match(e *entity, holders []map[string]sampleValue, texts, used, tokens []string) *attr {
	var found []*attr
	for _, a := range e.attrs {
		if contains(used, a.name) {
			continue
		}
		if im.holds(e, a, holders, texts) {
			found = append(found, a)
		}
	}
	if len(found) == 0 {
		return nil
	}
	for _, a := range found {
		for _, tok := range tokens {
			if strings.EqualFold(tok, a.name) || strings.EqualFold(tok, a.from) {
				return a
			}
		}
	}
	return found[0]
}

// bound says so when a number in a key was given a range from its items.
func (im *importer) bound(e *entity, subject string, a *attr) {
	if a.typ == model.TypeNumber && a.max != nil {
		im.note(subject, true, "number %s is written at %d digits, as its items are: its range is taken to be %d..%d", a.name, len(strconv.FormatInt(*a.max, 10)), *a.min, *a.max)
	}
}

// makeAttr adds a string attribute holding texts (one per holder).
func (im *importer) makeAttr(e *entity, holders []map[string]sampleValue, texts []string, key, name, subject string) *attr {
	if name == "" {
		name = strings.ToLower(sanitize(key)) + "Value"
	}
	name = sanitize(name)
	base := name
	for i := 2; e.attr(name) != nil || e.taken(name); i++ {
		name = base + strconv.Itoa(i)
	}
	a := &attr{name: name, from: "\x00" + name, typ: model.TypeString}
	for j, s := range holders {
		s[a.from] = sampleValue{typ: "S", text: texts[j]}
	}
	if im.allTimes(e, a.from) {
		a.typ = model.TypeTime
	}
	e.attrs = append(e.attrs, a)
	e.made[a.name] = true
	return a
}

// taken reports whether an item holds a Workbench attribute of this name.
func (e *entity) taken(name string) bool {
	for _, s := range e.samples {
		if _, ok := s[name]; ok {
			return true
		}
	}
	return false
}

// aliasTokens are the names an alias gives ("SubId#SKU" → SubId, SKU).
func aliasTokens(alias string) []string {
	var out []string
	for _, t := range strings.Split(alias, "#") {
		t = strings.Trim(t, "{}<> ")
		if t != "" {
			out = append(out, t)
		}
	}
	return out
}

// aliasNames maps the parts of a key to the names its alias gives them:
// with as many tokens as parts, part by part (tokens in upper case are
// the literals); else the tokens name, in order, the parts that are not
// literals (not words in upper case, not empty), when the counts agree.
func aliasNames(tokens, parts []string) map[int]string {
	out := map[int]string{}
	if len(tokens) == len(parts) {
		for i, t := range tokens {
			if !isUpperWord(t) && t != parts[i] {
				out[i] = t
			}
		}
		return out
	}
	var vars []int
	for i, p := range parts {
		if p != "" && !isUpperWord(p) {
			vars = append(vars, i)
		}
	}
	if len(vars) == len(tokens) {
		for k, i := range vars {
			out[i] = tokens[k]
		}
	}
	return out
}

// attrNamed finds an attribute by a name given in any case.
func (e *entity) attrNamed(name string) *attr {
	for _, a := range e.attrs {
		if strings.EqualFold(a.name, name) || strings.EqualFold(a.from, name) {
			return a
		}
	}
	return nil
}

// holds reports whether every holder has the attribute's encoded value
// at this place. A number with no range yet takes the one the texts show
// when they are its values written at one width, offset by one lower
// bound (as keyplan writes numbers); numbers the texts hold unpadded
// match too (keyplan would pad them: the verification says so).
func (im *importer) holds(e *entity, a *attr, holders []map[string]sampleValue, texts []string) bool {
	vals := make([]string, len(holders))
	for j, s := range holders {
		v, ok := e.value(s, a)
		if !ok {
			return false
		}
		vals[j] = v
	}
	if a.typ == model.TypeNumber && a.min == nil {
		if lo, hi, ok := offsetWidth(vals, texts); ok {
			a.min, a.max = &lo, &hi
			if encodesAll(a, vals, texts) {
				return true
			}
			a.min, a.max = nil, nil
		}
	}
	if encodesAll(a, vals, texts) {
		return true
	}
	// The items hold the values as they are, where keyplan would pad a
	// number or escape a string: the same attribute (the verification
	// says the bytes change).
	return slices.Equal(vals, texts)
}

func encodesAll(a *attr, vals, texts []string) bool {
	for j := range vals {
		if enc, good := a.encode(vals[j]); !good || enc != texts[j] {
			return false
		}
	}
	return true
}

// offsetWidth finds the range a number written as texts (digits, one
// width) was declared over: the lower bound every value is offset by.
func offsetWidth(vals, texts []string) (lo, hi int64, ok bool) {
	w := len(texts[0])
	if w == 0 || w > 18 {
		return 0, 0, false
	}
	for j, t := range texts {
		if len(t) != w {
			return 0, 0, false
		}
		u, err := strconv.ParseUint(t, 10, 63)
		if err != nil {
			return 0, 0, false
		}
		v, err := strconv.ParseInt(vals[j], 10, 64)
		if err != nil {
			return 0, 0, false
		}
		off := v - int64(u)
		if j > 0 && off != lo {
			return 0, 0, false
		}
		lo = off
	}
	return lo, lo + int64(math.Pow10(w)) - 1, true
}

func isUpperWord(s string) bool {
	return isWord(s) && strings.ToUpper(s) == s
}

// affixes are the literal prefix and suffix texts share, each ending (or
// starting) at a character that is no letter nor digit, so that "User:A1"
// and "User:B2" share "User:".
func affixes(texts []string) (string, string) {
	pre := texts[0]
	for _, x := range texts[1:] {
		for !strings.HasPrefix(x, pre) {
			pre = pre[:len(pre)-1]
		}
	}
	// A prefix is a word and one separator ("User:"), a suffix one
	// separator and a word: never a piece of a date or a number.
	if i := strings.IndexFunc(pre, notLetter); i > 0 && notAlnum(rune(pre[i])) {
		pre = pre[:i+1]
	} else {
		pre = ""
	}
	suf := texts[0][len(pre):]
	for _, x := range texts[1:] {
		for !strings.HasSuffix(x[len(pre):], suf) {
			suf = suf[1:]
		}
	}
	if i := strings.LastIndexFunc(suf, notLetter); i >= 0 && i < len(suf)-1 && notAlnum(rune(suf[i])) {
		suf = suf[i:]
	} else {
		suf = ""
	}
	for _, x := range texts {
		if len(x) <= len(pre)+len(suf) {
			return "", ""
		}
	}
	return pre, suf
}

func notAlnum(r rune) bool  { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }
func notLetter(r rune) bool { return !unicode.IsLetter(r) }

// keyAttrs lists the attributes a template reads.
func keyAttrs(t string) []string {
	tt, err := model.ParseTemplate(t)
	if err != nil {
		return nil
	}
	return tt.Attrs()
}

// sortAttr is the first attribute of a sort key template that is not in
// where, when only literals come before it.
func sortAttr(sk string, where []string) string {
	tt, err := model.ParseTemplate(sk)
	if err != nil {
		return ""
	}
	for _, s := range tt {
		if s.Attr == "" {
			continue
		}
		if contains(where, s.Attr) {
			continue
		}
		return s.Attr
	}
	return ""
}

// sparse says how an entity's key on a GSI that only some of its items
// hold is sparse: by construction (every other item lacks an attribute
// the key reads: keyplan writes no key then), or on a constant (when:
// the holders all have one value of an attribute no other item that
// holds the key's attributes has); else keyplan would write the key on
// items the table leaves off the index, which the note says.
func (im *importer) sparse(e *entity, ix index, subject string, held int) {
	k := e.keys[ix.name]
	reads := append(keyAttrs(k[0]), keyAttrs(k[1])...)
	var holders, others []map[string]sampleValue
	for _, s := range e.samples {
		if _, out := s[dropped]; out {
			continue
		}
		if _, ok := s[ix.pk]; ok {
			holders = append(holders, s)
			continue
		}
		all := true
		for _, name := range reads {
			if a := e.attr(name); a == nil {
				all = false
			} else if _, ok := e.value(s, a); !ok {
				all = false
			}
		}
		if all {
			others = append(others, s) // would get the key from keyplan
		}
	}
	if len(others) == 0 {
		im.note(subject, false, "%d of %d items hold its key (a sparse index): the others lack an attribute it reads, so keyplan writes no key on them either", held, len(e.samples))
		return
	}
	for _, a := range e.attrs {
		if e.made[a.name] || a.typ != model.TypeString && a.typ != model.TypeBool && a.typ != model.TypeNumber {
			continue
		}
		v, ok := "", true
		for j, s := range holders {
			x, has := e.value(s, a)
			if !has || j > 0 && x != v {
				ok = false
				break
			}
			v = x
		}
		for _, s := range others {
			if x, has := e.value(s, a); ok && has && x == v {
				ok = false
			}
		}
		if !ok || v == "" {
			continue
		}
		if e.when == nil {
			e.when = map[string][]model.Const{}
		}
		e.when[ix.name] = []model.Const{{Attr: a.name, Value: v}}
		im.note(subject, true, "%d of %d items hold its key: those with %s=%s, and no other (a sparse index): the key says when: {%s: %s}, and the patterns that read it filter on it", held, len(e.samples), a.name, v, a.name, v)
		return
	}
	im.note(subject, false, "%d of %d items hold its key, but %d others hold every attribute it reads and no constant tells them apart: keyplan would write the key on them too (they would join the index)", held, len(e.samples), len(others))
}

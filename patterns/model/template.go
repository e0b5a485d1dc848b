package model

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// Segment is one piece of a key template: a literal, an attribute whose
// encoded value is substituted, or a shard number.
type Segment struct {
	Lit  string
	Attr string
	// Shards > 0 marks a shard segment: the item's shard, from 0 to Shards-1.
	Shards int
}

// Template is a key value's recipe, e.g. PLAYER#{playerId}. Attribute values
// never contain the separator, so the parts between separators decode back
// to values.
type Template []Segment

// ParseTemplate reads the text form: literals with {attr} placeholders
// (and {shard:N}). A literal brace is written twice: "{{" is "{", "}}"
// is "}" (Template.String writes every constant so), so that any
// constant reads back as itself. Two placeholders must be separated by a
// literal containing '#', so that the key decodes.
func ParseTemplate(s string) (Template, error) {
	var t Template
	var lit strings.Builder
	flush := func() {
		if lit.Len() > 0 {
			t = append(t, Segment{Lit: lit.String()})
			lit.Reset()
		}
	}
	for i := 0; i < len(s); {
		switch c := s[i]; {
		case c == '{' && i+1 < len(s) && s[i+1] == '{', c == '}' && i+1 < len(s) && s[i+1] == '}':
			lit.WriteByte(c)
			i += 2
			continue
		case c == '}':
			return nil, fmt.Errorf("unmatched '}' in key template (a literal brace is written twice: }})")
		case c != '{':
			lit.WriteByte(c)
			i++
			continue
		}
		j := strings.IndexByte(s[i:], '}')
		if j < 0 {
			return nil, fmt.Errorf("unclosed '{' in key template (a literal brace is written twice: {{)")
		}
		name := s[i+1 : i+j]
		flush()
		if n, ok := strings.CutPrefix(name, "shard:"); ok {
			k, err := strconv.Atoi(n)
			if err != nil || k < 1 || k > MaxShards {
				return nil, fmt.Errorf("{shard:N} needs N from 1 to %d", MaxShards)
			}
			t = append(t, Segment{Shards: k})
		} else {
			if !ValidName(name) {
				return nil, fmt.Errorf("{%s} is not an attribute placeholder; expected {attributeName} (a literal brace is written twice: {{)", name)
			}
			t = append(t, Segment{Attr: name})
		}
		i += j + 1
	}
	flush()
	for i := 1; i < len(t); i++ {
		if t[i].Lit == "" && t[i-1].Lit == "" {
			return nil, fmt.Errorf("placeholders %s and %s must be separated by a literal containing '#'", t[i-1], t[i])
		}
		if t[i].Lit != "" && i+1 < len(t) && t[i-1].Lit == "" && !strings.ContainsRune(t[i].Lit, Sep) {
			return nil, fmt.Errorf("placeholders %s and %s must be separated by a literal containing '#'", t[i-1], t[i+1])
		}
	}
	if len(t) == 0 {
		return nil, fmt.Errorf("a key template cannot be empty")
	}
	return t, nil
}

// litBraces escapes a constant for the text form: each brace doubled
// (ParseTemplate). A constant without braces is written as it is, so
// every template written before braces were escaped reads the same.
var litBraces = strings.NewReplacer("{", "{{", "}", "}}")

func (s Segment) String() string {
	switch {
	case s.Shards > 0:
		return fmt.Sprintf("{shard:%d}", s.Shards)
	case s.Attr != "":
		return "{" + s.Attr + "}"
	}
	if strings.ContainsAny(s.Lit, "{}") {
		return litBraces.Replace(s.Lit)
	}
	return s.Lit
}

func (t Template) String() string {
	var b strings.Builder
	for _, s := range t {
		b.WriteString(s.String())
	}
	return b.String()
}

// MarshalJSON writes the text form.
func (t Template) MarshalJSON() ([]byte, error) { return json.Marshal(t.String()) }

// UnmarshalJSON reads the text form.
func (t *Template) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	if s == "" {
		*t = nil
		return nil
	}
	v, err := ParseTemplate(s)
	*t = v
	return err
}

// Attrs lists the attributes the template reads, in order.
func (t Template) Attrs() []string {
	var out []string
	for _, s := range t {
		if s.Attr != "" {
			out = append(out, s.Attr)
		}
	}
	return out
}

// Shards returns the shard count of a sharded template, else 0.
func (t Template) Shards() int {
	for _, s := range t {
		if s.Shards > 0 {
			return s.Shards
		}
	}
	return 0
}

// Equal reports whether two templates are the same recipe.
func (t Template) Equal(u Template) bool {
	if len(t) != len(u) {
		return false
	}
	for i := range t {
		if t[i] != u[i] {
			return false
		}
	}
	return true
}

// Lit builds a template from alternating pieces; used by the planner.
func (t Template) Lit(s string) Template {
	if s == "" {
		return t
	}
	if n := len(t); n > 0 && t[n-1].Lit != "" {
		out := append(Template{}, t...)
		out[n-1].Lit += s
		return out
	}
	return append(append(Template{}, t...), Segment{Lit: s})
}

func (t Template) Attr(a string) Template { return append(append(Template{}, t...), Segment{Attr: a}) }

// part is one '#'-separated piece of a template: literals and placeholders.
type part []Segment

// parts splits a template at every separator inside its literals.
func (t Template) parts() []part {
	out := []part{{}}
	for _, s := range t {
		if s.Lit == "" {
			out[len(out)-1] = append(out[len(out)-1], s)
			continue
		}
		pieces := strings.Split(s.Lit, string(Sep))
		for i, p := range pieces {
			if i > 0 {
				out = append(out, part{})
			}
			if p != "" {
				out[len(out)-1] = append(out[len(out)-1], Segment{Lit: p})
			}
		}
	}
	return out
}

func (p part) literal() (string, bool) {
	var b strings.Builder
	for _, s := range p {
		if s.Lit == "" {
			return "", false
		}
		b.WriteString(s.Lit)
	}
	return b.String(), true
}

// mayMatch reports whether two parts can render to the same text. A part
// with placeholders can match a literal when the literal pieces around the
// placeholders agree.
func (p part) mayMatch(q part) bool {
	pl, pok := p.literal()
	ql, qok := q.literal()
	switch {
	case pok && qok:
		return pl == ql
	case pok:
		return q.mayRender(pl)
	case qok:
		return p.mayRender(ql)
	}
	return leadLit(p) == "" || leadLit(q) == "" || strings.HasPrefix(leadLit(p), leadLit(q)) || strings.HasPrefix(leadLit(q), leadLit(p))
}

// mayRender reports whether the part can render to the literal s.
func (p part) mayRender(s string) bool {
	lead := leadLit(p)
	trail := ""
	if n := len(p); n > 0 && p[n-1].Lit != "" {
		trail = p[n-1].Lit
	}
	return strings.HasPrefix(s, lead) && strings.HasSuffix(s[len(lead):], trail)
}

func leadLit(p part) string {
	if len(p) > 0 {
		return p[0].Lit
	}
	return ""
}

// MayEqual reports whether the two templates can render the same value.
func (t Template) MayEqual(u Template) bool {
	// Fast path: leading constant parts (up to a separator) that differ.
	if len(t) > 0 && len(u) > 0 {
		a, aok := firstPart(t[0].Lit)
		b, bok := firstPart(u[0].Lit)
		if aok && bok && a != b {
			return false
		}
	}
	tp, up := t.parts(), u.parts()
	if len(tp) != len(up) {
		return false
	}
	for i := range tp {
		if !tp[i].mayMatch(up[i]) {
			return false
		}
	}
	return true
}

// firstPart returns a literal's text before its first separator, if it has one.
func firstPart(lit string) (string, bool) {
	i := strings.IndexByte(lit, Sep)
	if i < 0 {
		return "", false
	}
	return lit[:i], true
}

// MayStartWith reports whether a value rendered from t can begin with a
// value rendered from prefix. The last part of the prefix may be partial.
func (t Template) MayStartWith(prefix Template) bool {
	if len(prefix) == 0 {
		return true
	}
	tp, pp := t.parts(), prefix.parts()
	if len(pp) > len(tp) {
		return false
	}
	for i := 0; i < len(pp)-1; i++ {
		if !tp[i].mayMatch(pp[i]) {
			return false
		}
	}
	last := pp[len(pp)-1]
	tl := tp[len(pp)-1]
	if ll, ok := last.literal(); ok {
		if tlit, ok := tl.literal(); ok {
			return strings.HasPrefix(tlit, ll)
		}
		lead := leadLit(tl)
		return strings.HasPrefix(ll, lead) || strings.HasPrefix(lead, ll)
	}
	return true
}

// CommonPrefix is the longest template both start with: equal segments,
// then the common start of two literals that differ.
func (t Template) CommonPrefix(u Template) Template {
	var out Template
	for i := 0; i < len(t) && i < len(u); i++ {
		a, b := t[i], u[i]
		if a == b {
			out = append(out, a)
			continue
		}
		if a.Lit != "" && b.Lit != "" {
			n := 0
			for n < len(a.Lit) && n < len(b.Lit) && a.Lit[n] == b.Lit[n] {
				n++
			}
			if n > 0 {
				out = append(out, Segment{Lit: a.Lit[:n]})
			}
		}
		break
	}
	return out
}

// Cut returns what follows prefix in t (see commonPrefix: prefix's last
// literal may end inside one of t's); false when t does not start so.
func (t Template) Cut(prefix Template) (Template, bool) {
	if len(prefix) > len(t) {
		return nil, false
	}
	for i, s := range prefix {
		if s == t[i] {
			continue
		}
		if i == len(prefix)-1 && s.Lit != "" && t[i].Lit != "" && strings.HasPrefix(t[i].Lit, s.Lit) {
			return append(Template{{Lit: t[i].Lit[len(s.Lit):]}}, t[i+1:]...), true
		}
		return nil, false
	}
	return t[len(prefix):], true
}

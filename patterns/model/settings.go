package model

import (
	"regexp"
	"slices"

	"go.yaml.in/yaml/v3"
)

// The table's settings beside its keys, decided from the model: the
// headroom its throughput is bounded by (throughput.go), the multi-Region
// consistency of a global table, and the principals its resource policy
// grants patterns to.
//
//	headroom: 2
//	consistency: strong
//	principals:
//	  Analytics: {arn: "arn:aws:iam::111122223333:role/analytics", patterns: [GetPlayer]}

// Consistency is a global table's multi-Region consistency.
type Consistency string

// Consistency modes (DynamoDB's MREC and MRSC).
const (
	// ConsistencyEventual: each replica takes writes and replicates them
	// (the default, "").
	ConsistencyEventual Consistency = "eventual"
	// ConsistencyStrong: a strongly consistent read in any Region sees
	// the latest write made in any of them (three Regions: two replicas
	// and a witness, or three replicas).
	ConsistencyStrong Consistency = "strong"
)

// Strong reports whether the model asks for multi-Region strong
// consistency.
func (m *Model) Strong() bool { return m.Consistency == ConsistencyStrong }

// Principal is one principal the table's resource policy grants the
// actions of some patterns.
type Principal struct {
	Name string `json:"name"`
	// ARN is an IAM role, user or account root ARN, or a 12-digit account.
	ARN string `json:"arn"`
	// Patterns are read or write patterns' names.
	Patterns []string `json:"patterns"`
	Pos      Pos      `json:"-"`
}

// principalARN is what a principal may be: an account, its root, a role
// or a user.
var principalARN = regexp.MustCompile(`^(\d{12}|arn:aws[a-z-]*:iam::\d{12}:(root|(role|user)/[\w+=,.@/-]{1,512}))$`)

// MinHeadroom is the least headroom: a bound below the declared load
// would throttle it.
const MinHeadroom = 1

// setting decodes one of the table's settings.
func (l *loader) setting(m *Model, f field) {
	m.FieldPos[f.key] = pos(f.val)
	switch f.key {
	case "headroom":
		m.Headroom = l.number(f.val, f.key)
	case "consistency":
		m.Consistency = Consistency(l.str(f.val, f.key))
	case "principals":
		for _, pf := range l.fields(f.val, f.key, nil) {
			path := join(f.key, pf.key)
			p := &Principal{Name: l.name(&yaml.Node{Kind: yaml.ScalarNode, Value: pf.key, Line: pf.keyAt.Line, Column: pf.keyAt.Col}, path), Pos: pf.keyAt}
			for _, g := range l.fields(pf.val, path, []string{"arn", "patterns"}) {
				switch g.key {
				case "arn":
					p.ARN = l.str(g.val, join(path, g.key))
				case "patterns":
					p.Patterns = l.strs(g.val, join(path, g.key))
				}
			}
			m.Principals = append(m.Principals, p)
		}
	}
}

// PosOf returns where a table setting was declared, falling back to the
// table.
func (m *Model) PosOf(name string) Pos {
	if p, ok := m.FieldPos[name]; ok {
		return p
	}
	return m.Pos
}

// validateSettings checks the table's settings and every peak.
func (m *Model) validateSettings(l *errorList) {
	if h := m.Headroom; h != 0 && h < MinHeadroom {
		l.add(m.PosOf("headroom"), "headroom", "expected a multiple of the declared load of at least %d (2: twice what the patterns declare), found %v", MinHeadroom, h)
	}
	switch m.Consistency {
	case "", ConsistencyEventual, ConsistencyStrong:
	default:
		l.add(m.PosOf("consistency"), "consistency", "%q: expected %s (the default: each Region's writes replicate to the others) or %s (multi-Region strong consistency)", string(m.Consistency), ConsistencyEventual, ConsistencyStrong)
	}
	var granted []string
	for _, p := range m.Patterns {
		granted = append(granted, p.Name)
		checkPeak(l, p.PosOf("peak"), "patterns."+p.Name+".peak", p.Peak, p.Rate, "rate")
	}
	for _, w := range m.Writes {
		granted = append(granted, w.Name)
	}
	for _, e := range m.Entities {
		checkPeak(l, e.PosOf("peakWrites"), "entities."+e.Name+".peakWrites", e.PeakWrites, e.Writes, "writes")
	}
	seen := map[string]bool{}
	for _, p := range m.Principals {
		path := "principals." + p.Name
		if seen[p.Name] {
			l.add(p.Pos, path, "duplicate principal %q", p.Name)
		}
		seen[p.Name] = true
		if !principalARN.MatchString(p.ARN) {
			l.add(p.Pos, path+".arn", "%q: expected an IAM role or user ARN (arn:aws:iam::111122223333:role/NAME), an account's root (arn:aws:iam::111122223333:root) or a 12-digit account", p.ARN)
		}
		if len(p.Patterns) == 0 {
			l.add(p.Pos, path+".patterns", "expected the read or write patterns the principal may use")
		}
		for i, name := range p.Patterns {
			switch {
			case !slices.Contains(granted, name):
				l.unknown(p.Pos, path+".patterns", "pattern", name, granted)
			case slices.Contains(p.Patterns[:i], name):
				l.add(p.Pos, path+".patterns", "%q is listed twice", name)
			}
		}
	}
}

// checkPeak: a peak is a number of requests per second, at least the
// rate it peaks from.
func checkPeak(l *errorList, at Pos, path string, peak, rate float64, rateField string) {
	switch {
	case peak < 0:
		l.add(at, path, "expected the most requests per second, zero or more, found %v", peak)
	case peak != 0 && peak < rate:
		l.add(at, path, "%v is below the %s %v: the peak is the most per second, at least the %s", peak, rateField, rate, rateField)
	}
}

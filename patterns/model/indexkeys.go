package model

import "go.yaml.in/yaml/v3"

// How a model's GSIs are keyed (indexKeys: auto, native or synthetic):
// the setting, its loader and its validation; the planner's native keys
// are in patterns/native.go.

// IndexKeys says how a model's GSIs are keyed.
type IndexKeys string

// How GSIs are keyed.
const (
	// IndexKeysAuto (the default): each GSI native when its keys can be
	// (the plan says why not otherwise); a locked GSI stays as deployed.
	IndexKeysAuto IndexKeys = "auto"
	// IndexKeysNative: every GSI native; one that cannot be is an error
	// saying why (KP210, KP211, KP212).
	IndexKeysNative IndexKeys = "native"
	// IndexKeysSynthetic: every new GSI keyed by synthetic strings.
	IndexKeysSynthetic IndexKeys = "synthetic"
)

// Keying is the model's IndexKeys, auto when not given.
func (m *Model) Keying() IndexKeys {
	if m.IndexKeys == "" {
		return IndexKeysAuto
	}
	return m.IndexKeys
}

// ValidIndexKeys reports whether k is auto, native or synthetic.
func ValidIndexKeys(k string) bool {
	return k == string(IndexKeysAuto) || k == string(IndexKeysNative) || k == string(IndexKeysSynthetic)
}

func (l *loader) indexKeys(n *yaml.Node) IndexKeys {
	s := l.str(n, "indexKeys")
	if ValidIndexKeys(s) {
		return IndexKeys(s)
	}
	if s != "" || n.Kind == yaml.ScalarNode {
		l.add(pos(n), "indexKeys", "%q: expected auto, native or synthetic", s)
	}
	return ""
}

// validateIndexKeys checks indexKeys against the rest of the model.
func (m *Model) validateIndexKeys(l *errorList) {
	switch m.IndexKeys {
	case "", IndexKeysAuto, IndexKeysNative, IndexKeysSynthetic:
	default:
		l.add(m.IndexKeysPos, "indexKeys", "%q: expected auto, native or synthetic", string(m.IndexKeys))
		return
	}
	if m.IndexKeys == IndexKeysNative && m.Explicit() {
		l.add(m.IndexKeysPos, "indexKeys", "native, but the entities give hand-made keys, which are synthetic templates; drop indexKeys or the keys")
	}
}

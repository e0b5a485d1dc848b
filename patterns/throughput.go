package patterns

import (
	"math"

	"github.com/keyplan/keyplan/patterns/model"
)

// Throughput settings decided from the model. The estimate (cost.go)
// gives each index's load at the declared rates; at the declared peaks
// (a pattern's or write's peak, an entity's peakWrites; the rate where
// none is given) it gives the peak load. From them:
//
//   - the most request units per second an index takes, headroom × the
//     larger of its load and its peak load, rounded up (the on-demand
//     maximum throughput; provisioned auto-scaling's default Max), when
//     the model declares a headroom and the index a load;
//   - the warm throughput an index is created with, its peak load, when
//     that is above what DynamoDB gives a new table or GSI
//     (DefaultWarmReadUnits, DefaultWarmWriteUnits).
//
// A pattern, write or entity without a rate adds nothing to the load it
// is bounded by: KP406 warns of it.

// IndexThroughput is what the model decides of one index's throughput
// ("table" or a GSI's name), in request (or capacity) units per second;
// zero where it decides nothing.
type IndexThroughput struct {
	Name string `json:"name"`
	// PeakReadUnits and PeakWriteUnits are the load at the declared
	// peaks.
	PeakReadUnits  float64 `json:"peakReadUnitsPerSecond"`
	PeakWriteUnits float64 `json:"peakWriteUnitsPerSecond"`
	// MaxReadUnits and MaxWriteUnits bound the index's throughput
	// (headroom × the larger load, rounded up; at least 1).
	MaxReadUnits  float64 `json:"maxReadUnitsPerSecond,omitempty"`
	MaxWriteUnits float64 `json:"maxWriteUnitsPerSecond,omitempty"`
	// WarmReadUnits and WarmWriteUnits are the warm throughput to create
	// the index with: the peak load, rounded up, where it is above
	// DynamoDB's default.
	WarmReadUnits  float64 `json:"warmReadUnitsPerSecond,omitempty"`
	WarmWriteUnits float64 `json:"warmWriteUnitsPerSecond,omitempty"`
}

// rates are the requests per second an estimate assumes.
type rates struct {
	read   func(*model.Pattern) float64
	write  func(*model.Write) float64
	entity func(*model.Entity) float64
}

// declared are the model's rates; peaks its peaks, the rate where none is
// declared.
var (
	declared = rates{
		read:   func(p *model.Pattern) float64 { return p.Rate },
		write:  func(w *model.Write) float64 { return w.Rate },
		entity: func(e *model.Entity) float64 { return e.Writes },
	}
	peaks = rates{
		read:   func(p *model.Pattern) float64 { return max(p.Peak, p.Rate) },
		write:  func(w *model.Write) float64 { return max(w.Peak, w.Rate) },
		entity: func(e *model.Entity) float64 { return max(e.PeakWrites, e.Writes) },
	}
)

// throughput decides each index's throughput settings from the estimate
// at the declared rates (c) and at the peaks; nil when the model declares
// no headroom and no peak.
func throughput(d *Design, c *Cost) []*IndexThroughput {
	m := d.model
	if m.Headroom == 0 && !declaresPeaks(m) {
		return nil
	}
	peak := estimate(d, peaks)
	var out []*IndexThroughput
	for i, l := range c.Indexes {
		p := peak.Indexes[i]
		t := &IndexThroughput{Name: l.Name, PeakReadUnits: p.ReadUnits, PeakWriteUnits: p.WriteUnits}
		if h := m.Headroom; h > 0 {
			t.MaxReadUnits = bound(max(l.ReadUnits, p.ReadUnits), h)
			t.MaxWriteUnits = bound(max(l.WriteUnits, p.WriteUnits), h)
		}
		if p.ReadUnits > model.DefaultWarmReadUnits {
			t.WarmReadUnits = math.Ceil(p.ReadUnits)
		}
		if p.WriteUnits > model.DefaultWarmWriteUnits {
			t.WarmWriteUnits = math.Ceil(p.WriteUnits)
		}
		out = append(out, t)
	}
	return out
}

// bound is headroom × load, rounded up and at least 1; 0 (no bound) for
// no load.
func bound(load, headroom float64) float64 {
	if load <= 0 {
		return 0
	}
	return math.Max(1, math.Ceil(load*headroom))
}

// IndexThroughput returns the index's settings, or nil when the model decides
// none.
func (c *Cost) IndexThroughput(index string) *IndexThroughput {
	for _, t := range c.Throughput {
		if t.Name == index {
			return t
		}
	}
	return nil
}

// declaresPeaks reports whether the model declares a peak anywhere.
func declaresPeaks(m *model.Model) bool {
	for _, p := range m.Patterns {
		if p.Peak > 0 {
			return true
		}
	}
	for _, w := range m.Writes {
		if w.Peak > 0 {
			return true
		}
	}
	for _, e := range m.Entities {
		if e.PeakWrites > 0 {
			return true
		}
	}
	return false
}

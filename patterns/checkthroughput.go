package patterns

import (
	"fmt"
	"strings"

	"github.com/keyplan/keyplan/patterns/model"
)

// Checks of the table's settings: the throughput its model decides
// (throughput.go) and the multi-Region consistency it asks for
// (settings.go).

// KP406: with a headroom, each index's throughput is bounded by what its
// patterns declare; a pattern, write or entity that declares no rate adds
// nothing to the bound, and its requests may be throttled by it.
func ruleHeadroomRates(d *Design) []finding {
	m := d.model
	if m.Headroom == 0 {
		return nil
	}
	var out []finding
	for _, pp := range d.Patterns {
		p := m.Pattern(pp.Name)
		if !pp.Served() || p.Rate > 0 || p.Peak > 0 {
			continue
		}
		out = append(out, finding{pattern(p), p.Pos,
			fmt.Sprintf("declares no rate: the most read units %s takes (headroom %g × what its patterns declare) do not count its %ss, which it may throttle", indexName(pp.Index), m.Headroom, pp.Operation),
			"give it a rate (requests per second; and a peak if it has one), or remove headroom"})
	}
	written := map[string]bool{}
	for _, w := range m.Writes {
		for _, s := range w.Items() {
			written[s.Entity] = true
		}
		if w.Rate > 0 || w.Peak > 0 {
			continue
		}
		out = append(out, finding{write(w), w.Pos,
			fmt.Sprintf("declares no rate: the most write units each index takes (headroom %g × what is declared) do not count its writes, which may be throttled", m.Headroom),
			"give it a rate (writes per second; and a peak if it has one), or remove headroom"})
	}
	for _, e := range m.Entities {
		if written[e.Name] || e.Writes > 0 || e.PeakWrites > 0 {
			continue
		}
		out = append(out, finding{entity(e), e.Pos,
			fmt.Sprintf("no write pattern writes it and it declares no writes: the most write units each index takes (headroom %g × what is declared) do not count its writes, which may be throttled", m.Headroom),
			"give it writes (item writes per second), or write patterns with a rate, or remove headroom"})
	}
	return out
}

// indexName names an index in messages: "the table" or "GSI2".
func indexName(index string) string {
	if index == model.BaseIndex {
		return "the table"
	}
	return index
}

// KP407: an index's declared load (at its peaks) above an account's
// default per-table quota is throttled at launch unless the quota is
// raised first.
func ruleThroughputQuota(d *Design) []finding {
	if d.Cost == nil {
		return nil
	}
	var out []finding
	for i, l := range d.Cost.Indexes {
		read, write := l.ReadUnits, l.WriteUnits
		if i < len(d.Cost.Throughput) {
			t := d.Cost.Throughput[i]
			read, write = max(read, t.PeakReadUnits), max(write, t.PeakWriteUnits)
		}
		var over []string
		if read > model.TableThroughputQuota {
			over = append(over, fmt.Sprintf("%.0f read units/s", read))
		}
		if write > model.TableThroughputQuota {
			over = append(over, fmt.Sprintf("%.0f write units/s", write))
		}
		if len(over) == 0 {
			continue
		}
		out = append(out, finding{table(d), d.model.Pos,
			fmt.Sprintf("%s is declared to take %s, above an account's default quota of %d per table or index: it is throttled there until the quota is raised", indexName(l.Name), strings.Join(over, " and "), model.TableThroughputQuota),
			"ask for a higher per-table quota (Service Quotas, DynamoDB) before the launch, or spread the load"})
	}
	return out
}

// KP307: a multi-Region strongly consistent global table refuses
// transactions: no transact write, no unique alternate key (its guard
// items move with their item in one), no counters handler (it counts
// each change once with a marker item in one).
func ruleStrongTransactions(d *Design) []finding {
	m := d.model
	if !m.Strong() {
		return nil
	}
	at := m.PosOf("consistency")
	var out []finding
	for _, w := range m.Writes {
		if w.Op == model.WriteTransact {
			out = append(out, finding{write(w), w.Pos,
				"is a transaction (TransactWriteItems), which a multi-Region strongly consistent table (consistency: strong) refuses",
				"make it single writes the application orders, or keep consistency eventual"})
		}
	}
	for _, e := range m.Entities {
		if u := m.UniquePatterns(e); len(u) > 0 {
			out = append(out, finding{pattern(u[0]), u[0].Pos,
				fmt.Sprintf("keeps %s's %s unique with guard items written in one transaction with the item, which a multi-Region strongly consistent table (consistency: strong at %s) refuses", e.Name, strings.Join(u[0].Where, ", "), at),
				"drop unique (and keep the values unique in the application), or keep consistency eventual"})
		}
		if len(e.Counters) > 0 {
			out = append(out, finding{entity(e), e.Pos,
				fmt.Sprintf("has counters, which the counters handler keeps with transactions (each change counted once), which a multi-Region strongly consistent table (consistency: strong at %s) refuses", at),
				"count in the application, or keep consistency eventual"})
		}
	}
	return out
}

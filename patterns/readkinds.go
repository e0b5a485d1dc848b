package patterns

import (
	"fmt"
	"slices"

	"github.com/keyplan/keyplan/patterns/model"
)

// What kinds.go adds to reads: hiding expired items, counts, and the
// sums of sharded counters.

// ReadNeeds are the attributes a read needs of the items an index
// returns: what the pattern returns and verifies, and the TTL attribute
// it hides expired items by (a filter on an attribute the index does not
// hold would find it absent, and hide nothing).
func ReadNeeds(p *model.Pattern, pp *PatternPlan) []string {
	out := append(slices.Clone(p.Returns), pp.Verify...)
	if pp.HideExpired != "" && !slices.Contains(out, pp.HideExpired) {
		out = append(out, pp.HideExpired)
	}
	return out
}

// counterKeys are where an entity's sharded counters keep their shards.
func counterKeys(e *model.Entity) []*CounterKeys {
	var out []*CounterKeys
	for _, a := range e.Attributes {
		if a.Type == model.TypeCounter {
			out = append(out, &CounterKeys{Attr: a.Name, Shards: a.Shards, PK: CounterKey(e, a.Name)})
		}
	}
	return out
}

// counterPlan is the read of a sharded counter: one Query of its shard
// items' partition, summed.
func (ly *layout) counterPlan(p *model.Pattern, attr string) *PatternPlan {
	e := ly.m.Entity(p.Entities[0])
	kc := &KeyCondition{PK: CounterKey(e, attr)}
	plan := ly.plan(p, model.BaseIndex, kc, kc.PK)
	plan.Operation, plan.Sum, plan.HideExpired = Query, attr, ""
	plan.Text = kc.Render(model.TablePK, model.TableSK)
	return plan
}

// sameCounters reports whether two lists of counter keys are the same.
func sameCounters(a, b []*CounterKeys) bool {
	return slices.EqualFunc(a, b, func(x, y *CounterKeys) bool {
		return x.Attr == y.Attr && x.Shards == y.Shards && x.PK.Equal(y.PK)
	})
}

// CounterTag keys the shard items of sharded counters (a reserved item:
// no entity's key starts with it).
const CounterTag = ReservedPrefix + "COUNTER"

// CounterKey is the partition key of a sharded counter's shard items:
// the counter tag, the entity's tag, the attribute, then the item's id.
// One Query of it reads every shard, whatever their number.
func CounterKey(e *model.Entity, attr string) model.Template {
	t := model.Template{}.Lit(CounterTag + string(model.Sep) + model.TagOf(e) + string(model.Sep) + attr)
	for _, id := range e.ID {
		t = t.Lit(string(model.Sep)).Attr(id)
	}
	return t
}

// ShardKey is the sort key of shard i of a counter spread over n shards.
func ShardKey(i, n int) string {
	return fmt.Sprintf("%0*d", model.DecimalLen(int64(max(n-1, 0))), i)
}

// hides is the TTL attribute a pattern's read filters expired items on:
// the ttl of an entity it reads, unless it says expired: include.
func hides(m *model.Model, p *model.Pattern) string {
	if p.Expired == model.ExpiredInclude {
		return ""
	}
	for _, name := range p.Entities {
		if e := m.Entity(name); e != nil {
			if a := e.TTLAttr(); a != nil {
				return a.Name
			}
		}
	}
	return ""
}

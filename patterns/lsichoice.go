package patterns

import (
	"fmt"
	"slices"
	"strings"

	"github.com/keyplan/keyplan/patterns/model"
)

// Why a pattern is or is not on an LSI: for every pattern an LSI serves,
// and every pattern a key in its entities' base partition could serve
// from an LSI but the plan serves otherwise (the plan's
// localIndexChoices, a line under the patterns in the text report). A
// strong read that only a new LSI would serve carries the key that would
// (KP102 names it in its fix; with a lock, KP623 refuses it).

// LocalChoice says why a pattern is on an LSI, or why not.
type LocalChoice struct {
	Pattern string `json:"pattern"`
	// Index is where the pattern is served ("" when nothing serves it).
	Index string `json:"index,omitempty"`
	// Local is true when an LSI serves it.
	Local bool   `json:"local"`
	Why   string `json:"why"`
	// Key is the LSI key a new LSI would serve the pattern with, when
	// one would and the plan has none (a strong read on a GSI).
	Key *EntityKey `json:"wouldServeWith,omitempty"`

	// cause is why the plan has no such LSI (with Key).
	cause localCause
}

// localCause is why a plan has no LSI that would serve a strong read.
type localCause int

const (
	causeNone     localCause = iota
	causeLock                // the table is deployed: no LSI can be added (KP623)
	causeExplicit            // the hand-made layout has none
	causeLimit               // the table has MaxLSIs
	causeBudget              // the search's budget ran out
)

// localChoices explains, pattern by pattern, the plan's use of LSIs.
func localChoices(d *Design, ly *layout, pn *pins) []*LocalChoice {
	var out []*LocalChoice
	for _, pp := range d.Patterns {
		p := d.model.Pattern(pp.Name)
		if pp.Sum != "" || pp.Index == model.BaseIndex && pp.Served() {
			continue
		}
		c := &LocalChoice{Pattern: pp.Name}
		if pp.Served() {
			c.Index = pp.Index
		}
		if ly.local[pp.Index] && pp.Served() {
			c.Local = true
			if p.Consistent {
				c.Why = fmt.Sprintf("on %s: a strongly consistent read in another order than the base table's; only the table and its LSIs read consistently (GSIs are eventually consistent)", pp.Index)
			} else {
				c.Why = fmt.Sprintf("on %s, an LSI the table has anyway: cheaper than a GSI (no index of its own: its reads and writes are in the table's capacity, and its entries hold one key attribute, not two)", pp.Index)
			}
			out = append(out, c)
			continue
		}
		k := ly.localKeyFor(p, d)
		if k == nil {
			if p.Consistent && pp.Served() {
				c.Why = "no LSI serves it: " + ly.whyNoLocal(p, d)
				out = append(out, c)
			}
			continue
		}
		switch {
		case p.Consistent && pn != nil:
			c.Key, c.cause = k, causeLock
			c.Why = fmt.Sprintf("needs an LSI (%s / %s), which the deployed table cannot get: DynamoDB creates LSIs only with the table (KP623)", k.PK, k.SK)
		case p.Consistent && d.Explicit:
			c.Key, c.cause = k, causeExplicit
			c.Why = fmt.Sprintf("an LSI keyed %s / %s would serve it strongly consistent; the hand-made layout has none that does", k.PK, k.SK)
		case p.Consistent && len(d.LocalIndexes) >= model.MaxLSIs:
			c.Key, c.cause = k, causeLimit
			c.Why = fmt.Sprintf("an LSI keyed %s / %s would serve it, but the table has %d LSIs already, DynamoDB's limit", k.PK, k.SK, model.MaxLSIs)
		case p.Consistent:
			c.Key, c.cause = k, causeBudget
			c.Why = fmt.Sprintf("an LSI keyed %s / %s would serve it, but the search found no layout with it within its budget (Options.Budget)", k.PK, k.SK)
		case pp.Served() && len(d.LocalIndexes) == 0:
			c.Why = fmt.Sprintf("on %s, not an LSI: an LSI in its base partition (%s / %s) would serve it too, but no strong read needs one; an LSI would limit every item collection to 10 GB and stay for good (it is removed only with the table), where a GSI costs the same writes and can be dropped", pp.Index, k.PK, k.SK)
		case pp.Served():
			c.Why = fmt.Sprintf("on %s, not an LSI: an LSI in its base partition (%s / %s) would serve it too, but the table's %d LSI(s) are what its strong reads need, and one more would stay for good (an LSI is removed only with the table), where a GSI costs the same writes and can be dropped", pp.Index, k.PK, k.SK, len(d.LocalIndexes))
		default:
			continue
		}
		out = append(out, c)
	}
	return out
}

// localKeyFor is the key a new LSI would serve one pattern with (nil
// when none would: the pattern does not give its entities' base partition
// key, or no sort key in it orders it so).
func (ly *layout) localKeyFor(p *model.Pattern, d *Design) *EntityKey {
	r := derive(ly.m, p).req
	if r.shards > 0 {
		return nil
	}
	const probe = "new.lsi.probe"
	trial := &layout{m: ly.m, indexes: []string{model.BaseIndex, probe}, keys: map[string][]*EntityKey{}, local: map[string]bool{probe: true}}
	var first *EntityKey
	for _, name := range p.Entities {
		e := ly.m.Entity(name)
		ek := d.Entity(name)
		if e == nil || ek == nil || ek.Key(model.BaseIndex) == nil {
			return nil
		}
		base := ek.Key(model.BaseIndex)
		if !subset(base.PK.Attrs(), r.eq) || base.PK.Shards() > 0 {
			return nil
		}
		k, ok := fit(e, []*req{r}, fitOptions{pk: sortedCopy(base.PK.Attrs()), cool: true})
		if !ok {
			return nil
		}
		owner := name
		if r.multi {
			owner = r.owner
		}
		lk := &EntityKey{Index: probe, PK: base.PK, SK: renderSK(e, sortedPrefix(ly.m.Entity(owner), e, []*req{r}, true), k.pk, k.sk)}
		trial.keys[name] = []*EntityKey{base, lk}
		if first == nil {
			first = lk
		}
	}
	// Other entities' base keys: what shares the partition.
	for _, ek := range d.Entities {
		if _, ok := trial.keys[ek.Name]; !ok && ek.Key(model.BaseIndex) != nil {
			trial.keys[ek.Name] = []*EntityKey{ek.Key(model.BaseIndex)}
		}
	}
	trial.quiet = true
	if plan := trial.serve(p); !plan.Served() || plan.Index != probe {
		return nil
	}
	c := *first
	c.Index = ""
	return &c
}

// whyNoLocal says why no LSI can serve a strong read.
func (ly *layout) whyNoLocal(p *model.Pattern, d *Design) string {
	r := derive(ly.m, p).req
	if r.shards > 0 {
		return "it is write-sharded (shards), and an LSI's partition key is the table's"
	}
	for _, name := range p.Entities {
		if ek := d.Entity(name); ek != nil && ek.Key(model.BaseIndex) != nil {
			base := ek.Key(model.BaseIndex)
			if missing := minus(base.PK.Attrs(), r.eq); len(missing) > 0 {
				return fmt.Sprintf("an LSI is keyed by the table's partition key, and %s's is %s: the pattern's where does not give %s", name, base.PK, strings.Join(missing, ", "))
			}
		}
	}
	return "no sort key in its entities' base partitions orders it as it asks"
}

// LocalChoice returns the plan's LSI choice for a pattern, or nil.
func (d *Design) LocalChoice(pattern string) *LocalChoice {
	i := slices.IndexFunc(d.LocalChoices, func(c *LocalChoice) bool { return c.Pattern == pattern })
	if i < 0 {
		return nil
	}
	return d.LocalChoices[i]
}

// strongFix is KP102's fix for a strong read on a GSI: with the LSI that
// would serve it when one would.
func (d *Design) strongFix(pp *PatternPlan) string {
	c := d.LocalChoice(pp.Name)
	if c == nil || c.Key == nil {
		return "drop consistent: true, or read by the base table's key (get by id)"
	}
	k := c.Key
	switch c.cause {
	case causeLock:
		return fmt.Sprintf("an LSI keyed %s / %s would serve it, but the deployed table cannot get one (DynamoDB creates LSIs only with the table): drop consistent: true (%s serves it eventually consistent), or create a new table with the LSI and copy the items", k.PK, k.SK, pp.Index)
	case causeExplicit:
		return fmt.Sprintf("add a local index to %s's keys: {local: true, sk: %q} serves it strongly consistent; or drop consistent: true", pp.Entities[0], k.SK.String())
	case causeLimit:
		return fmt.Sprintf("an LSI keyed %s / %s would serve it, but a table has at most %d: drop consistent: true, or order it like another strong read so that they share an LSI", k.PK, k.SK, model.MaxLSIs)
	}
	return fmt.Sprintf("an LSI keyed %s / %s would serve it: raise the search's budget (Options.Budget), or drop consistent: true", k.PK, k.SK)
}

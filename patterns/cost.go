package patterns

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"sort"
	"strings"
)

// Prices used by the estimate: us-east-1, Standard table class, from
// https://aws.amazon.com/dynamodb/pricing/ (on-demand prices as cut on
// 2024-11-01; provisioned unchanged), read 2026-11-21. Other regions cost
// more; the ratios between designs hold.
const (
	// PriceWRU is the on-demand price of one write request unit, in USD.
	PriceWRU = 0.625 / 1e6
	// PriceRRU is the on-demand price of one read request unit, in USD.
	PriceRRU = 0.125 / 1e6
	// PriceWCUHour is the provisioned price of one write capacity unit-hour.
	PriceWCUHour = 0.00065
	// PriceRCUHour is the provisioned price of one read capacity unit-hour.
	PriceRCUHour = 0.00013
	// HoursPerMonth is AWS's billing month.
	HoursPerMonth = 730
	// TargetUtilizationPercent is the auto-scaling target provisioned
	// capacity is sized for (the singletable construct's default).
	TargetUtilizationPercent = 70
)

// Assumptions where the model is silent.
const (
	// DefaultPage is the number of items a query without limit is assumed
	// to return per request.
	DefaultPage = 25
	// DefaultStringBytes is the size assumed of a string without maxLength
	// or values.
	DefaultStringBytes = 32
	// DefaultNumberBytes is the size assumed of a number without a range.
	DefaultNumberBytes = 8
	// DefaultElements is the number of elements assumed of a set, list or
	// map without maxItems.
	DefaultElements = 10
	// ExpiredShare is the share of the items a read that hides expired
	// items is assumed to read and drop: items past their TTL that
	// DynamoDB has not deleted yet (it deletes within days, typically
	// two; the share is that delay over the items' lifetime).
	ExpiredShare = 0.1
)

// Cost is the estimate from declared rates and sizes: a typical size
// where the model gives one (size), else an upper bound where it declares
// one (maxLength, maxItems, ranges: UpperBounds names them), else a
// default; see Assumptions.
type Cost struct {
	Patterns []*PatternCost `json:"patterns"`
	// Writes are the write patterns with a rate; Entities the entities
	// none of them writes, from their writes guess.
	Writes   []*WriteCost  `json:"writes,omitempty"`
	Entities []*EntityCost `json:"entities"`
	// Indexes holds the read and write units per second on each index
	// ("table" first), what provisioned capacity is sized from.
	Indexes []*IndexLoad `json:"indexes"`
	// ReadUnits and WriteUnits are per second, over all indexes.
	ReadUnits  float64 `json:"readUnitsPerSecond"`
	WriteUnits float64 `json:"writeUnitsPerSecond"`
	// OnDemand is the monthly cost in on-demand mode, in USD.
	OnDemand float64 `json:"onDemandMonthlyUSD"`
	// Provisioned is the monthly cost with provisioned capacity at
	// TargetUtilizationPercent, each index sized on its own, in USD.
	Provisioned float64  `json:"provisionedMonthlyUSD"`
	Assumptions []string `json:"assumptions,omitempty"`
	// UpperBounds are the attributes taken at their maxLength or maxItems
	// (no size given), each with the bytes taken: every figure that
	// counts one (its UpperBound) is an upper bound, not a typical cost.
	UpperBounds []string `json:"upperBounds,omitempty"`
	// AllRegions is the estimate of a global table with replicas, when
	// asked for (keyplan plan --replica, the construct's Replicas).
	AllRegions *Global `json:"allRegions,omitempty"`
	// Throughput is what the model's headroom and peaks decide of each
	// index's throughput settings, the table first (throughput.go); none
	// when the model declares neither.
	Throughput []*IndexThroughput `json:"throughput,omitempty"`
}

// PatternCost is what one read of a pattern costs.
type PatternCost struct {
	Name  string `json:"name"`
	Index string `json:"index"`
	// ItemBytes is the size of one item as the index returns it.
	ItemBytes int `json:"itemBytes"`
	// Items is the items one request returns (limit, 1 for a get, else
	// DefaultPage; a counter's shards).
	Items int `json:"items"`
	// ReadItems is the items it reads: Items, and for a read that hides
	// expired items those it drops (ExpiredShare of what it reads).
	ReadItems int `json:"readItems"`
	// ReadUnits per read (all its requests): 4 KB units, halved when
	// eventually consistent.
	ReadUnits float64 `json:"readUnits"`
	Rate      float64 `json:"rate"`
	// UnitsPerSecond is ReadUnits × Rate.
	UnitsPerSecond float64 `json:"unitsPerSecond"`
	// UpperBound names the attributes (Entity.attr) the figure takes at
	// their maxLength or maxItems: nil when it takes none (a typical
	// figure, from sizes and defaults).
	UpperBound []string `json:"upperBound,omitempty"`
}

// EntityCost is what one write of an entity's item costs.
type EntityCost struct {
	Name      string `json:"name"`
	ItemBytes int    `json:"itemBytes"`
	// Amplification is 1 + the GSIs the entity is projected into: the
	// writes one item write makes.
	Amplification int `json:"writeAmplification"`
	// WriteUnits per item write, over the table and its GSIs (1 KB units).
	WriteUnits     float64 `json:"writeUnits"`
	Rate           float64 `json:"rate"`
	UnitsPerSecond float64 `json:"unitsPerSecond"`
	// UpperBound: as PatternCost's.
	UpperBound []string `json:"upperBound,omitempty"`
}

// WriteCost is what one call of a write pattern costs.
type WriteCost struct {
	Name string `json:"name"`
	// Items is the item writes one call makes (guard items of unique
	// values included); Indexes the GSI writes they cause.
	Items   int `json:"items"`
	Indexes int `json:"indexWrites"`
	// WriteUnits per call, over the table and its GSIs (1 KB units; a
	// GSI key an update moves is a delete and a put there; a transaction
	// counts double). A batch's are per item.
	WriteUnits     float64 `json:"writeUnits"`
	Rate           float64 `json:"rate"`
	UnitsPerSecond float64 `json:"unitsPerSecond"`
	// UpperBound: as PatternCost's.
	UpperBound []string `json:"upperBound,omitempty"`
}

// IndexLoad is the capacity one index needs.
type IndexLoad struct {
	Name       string  `json:"name"`
	ReadUnits  float64 `json:"readUnitsPerSecond"`
	WriteUnits float64 `json:"writeUnitsPerSecond"`
}

// sizer estimates item sizes and records where it assumed.
type sizer struct {
	// typical takes a value at its size when the model gives one (the
	// cost and the traffic estimates); otherwise (the limits) at its
	// bound.
	typical bool
	assumed map[string]bool
	items   map[string]int // item sizes by entity
	// bounded collects, for the figure being computed, the attributes
	// taken at their maxLength or maxItems (no size given): an upper
	// bound; itemBounded is the same per entity for the cached sizes.
	bounded     map[string]bool
	itemBounded map[string][]string
	// all is every attribute any figure took at its bound.
	all map[string]int
}

// figure starts a figure: what it takes at a bound is collected afresh.
func (z *sizer) figure() { z.bounded = map[string]bool{} }

// bounds are the attributes the figure took at a bound, in order.
func (z *sizer) bounds() []string {
	if len(z.bounded) == 0 {
		return nil
	}
	return slices.Sorted(maps.Keys(z.bounded))
}

// atBound notes an attribute taken at its bound of n bytes.
func (z *sizer) atBound(e *Entity, a *Attribute, n int) {
	name := a.Name
	if e != nil {
		name = e.Name + "." + a.Name
	}
	if z.bounded != nil {
		z.bounded[name] = true
	}
	if z.all != nil {
		z.all[name] = n
	}
}

func (z *sizer) value(e *Entity, a *Attribute) int {
	if a.Size > 0 && z.typical {
		return a.Size // typical, as the model says
	}
	switch a.Type {
	case TypeSet, TypeList, TypeMap:
		n := a.MaxItems
		if n == 0 {
			n = DefaultElements
			z.assumed[fmt.Sprintf("sets, lists and maps without maxItems hold %d elements", DefaultElements)] = true
		}
		el := z.value(nil, a.element())
		if a.Type == TypeMap {
			el += DefaultStringBytes // its key
		}
		if a.MaxItems > 0 {
			z.atBound(e, a, 3+n*(el+1))
		}
		return 3 + n*(el+1)
	case TypeCounter:
		return 0 // its shard items hold it
	case TypeNumber, TypeTTL:
		lo, hi, ok := a.bounds()
		if !ok {
			z.assumed[fmt.Sprintf("numbers without a range take %d bytes", DefaultNumberBytes)] = true
			return DefaultNumberBytes
		}
		digits := max(decimalLen(lo), decimalLen(hi))
		return (digits+1)/2 + 1 // DynamoDB: about one byte per two significant digits, plus one
	case TypeTime:
		return len(TimeLayout)
	case TypeBool:
		return 1
	}
	if n, ok := maxValueBytes(a); ok {
		if a.MaxLength > 0 && len(a.Values) == 0 && e != nil {
			z.atBound(e, a, n)
		}
		return n
	}
	z.assumed[fmt.Sprintf("strings without maxLength take %d bytes", DefaultStringBytes)] = true
	return DefaultStringBytes
}

func (z *sizer) key(e *Entity, t Template) int {
	n := 0
	for _, s := range t {
		switch {
		case s.Attr != "":
			n += z.value(e, e.Attr(s.Attr))
		case s.Shards > 0:
			n += decimalLen(int64(s.Shards - 1))
		default:
			n += len(s.Lit)
		}
	}
	return n
}

// item is the size of an entity's item as stored in the base table,
// attributes and every key attribute it carries.
func (z *sizer) item(d *Design, e *Entity) int {
	n, ok := z.items[e.Name]
	if !ok {
		outer := z.bounded
		z.bounded = map[string]bool{}
		n = z.itemSize(d, e)
		z.items[e.Name] = n
		if z.itemBounded != nil {
			z.itemBounded[e.Name] = z.bounds()
		}
		z.bounded = outer
	}
	for _, a := range z.itemBounded[e.Name] {
		if z.bounded != nil {
			z.bounded[a] = true
		}
	}
	return n
}

func (z *sizer) itemSize(d *Design, e *Entity) int {
	n := 0
	for _, a := range e.Attributes {
		n += len(a.Name) + z.value(e, a)
	}
	for _, k := range d.Entity(e.Name).Keys {
		n += z.keyAttrs(d, e, k, false)
	}
	return n
}

// keyAttrs is the size of the attributes keyplan writes for an entity's
// key: the base table's or a synthetic GSI's key strings, or a native
// index's discriminator (its other key attributes are the item's own,
// counted once; with own, as an index item holds them).
func (z *sizer) keyAttrs(d *Design, e *Entity, k *EntityKey, own bool) int {
	ix := d.Index(k.Index)
	if ix == nil || !ix.Native() {
		pk, sk := d.KeyNames(k.Index)
		return len(pk) + z.key(e, k.PK) + len(sk) + z.key(e, k.SK)
	}
	n := 0
	for i, a := range ix.KeyAttributes() {
		switch {
		case i == 0 && ix.Discriminated():
			n += len(a) + len(TagOf(e))
		case own && e.Attr(a) != nil:
			n += len(a) + z.value(e, e.Attr(a))
		}
	}
	return n
}

// projected is the size of an entity's item in an index: the index keys,
// the table keys, and the projected attributes.
func (z *sizer) projected(d *Design, e *Entity, index string) int {
	if index == BaseIndex {
		return z.item(d, e)
	}
	ix := d.Index(index)
	if ix.Projection == ProjectAll {
		return z.item(d, e)
	}
	n := 0
	for _, name := range []string{BaseIndex, index} {
		if k := d.Entity(e.Name).Key(name); k != nil {
			n += z.keyAttrs(d, e, k, true)
		}
	}
	for _, a := range ix.NonKeyAttributes {
		if attr := e.Attr(a); attr != nil {
			n += len(a) + z.value(e, attr)
		}
	}
	return n
}

// projects reports whether an index copies one of the attributes.
func projects(ix *Index, attrs map[string]bool) bool {
	if ix.Projection == ProjectAll {
		return len(attrs) > 0
	}
	return slices.ContainsFunc(ix.NonKeyAttributes, func(a string) bool { return attrs[a] })
}

// decimalLen is the length of n written in decimal.
func decimalLen(n int64) int {
	l := 1
	if n < 0 {
		l++
	}
	for n <= -10 || n >= 10 {
		n /= 10
		l++
	}
	return l
}

func units(bytes, unit int) float64 {
	return math.Ceil(float64(max(bytes, 1)) / float64(unit))
}

// EstimateCost estimates read and write units and monthly cost from the
// patterns' rates and the entities' write rates, and the throughput
// settings the model's headroom and peaks decide (throughput.go).
func EstimateCost(d *Design) *Cost {
	c := estimate(d, declared)
	c.Throughput = throughput(d, c)
	return c
}

// estimate is the estimate at the rates r gives.
func estimate(d *Design, r rates) *Cost {
	z := &sizer{typical: true, assumed: map[string]bool{}, items: map[string]int{}, itemBounded: map[string][]string{}, all: map[string]int{}}
	c := &Cost{}
	load := map[string]*IndexLoad{BaseIndex: {Name: BaseIndex}}
	c.Indexes = append(c.Indexes, load[BaseIndex])
	for _, ix := range d.Indexes {
		load[ix.Name] = &IndexLoad{Name: ix.Name}
		c.Indexes = append(c.Indexes, load[ix.Name])
	}
	for _, pp := range d.Patterns {
		p := d.model.Pattern(pp.Name)
		if !pp.Served() {
			continue
		}
		pc := &PatternCost{Name: pp.Name, Index: pp.Index, Rate: r.read(p)}
		z.figure()
		for _, name := range pp.Entities {
			pc.ItemBytes = max(pc.ItemBytes, z.projected(d, d.model.Entity(name), pp.Index))
		}
		switch {
		case pp.Sum != "":
			ck := d.Entity(pp.Entities[0]).Counter(pp.Sum)
			pc.Items, pc.ItemBytes = ck.Shards, z.shard(d.model.Entity(pp.Entities[0]), ck)
		case pp.Batch:
			pc.Items, _ = p.BatchIDs()
			if p.Limit == 0 {
				z.assumed[fmt.Sprintf("a batch read without limit passes %d ids", DefaultPage)] = true
			}
		case pp.Operation == GetItem || p.Op == ReadGet:
			pc.Items = 1
		case p.Limit > 0:
			pc.Items = p.Limit
		default:
			pc.Items = DefaultPage
			z.assumed[fmt.Sprintf("a query without limit returns %d items", DefaultPage)] = true
		}
		pc.ReadItems = pc.Items
		if pp.HideExpired != "" && pp.Operation == Query {
			// DynamoDB bills the expired items a filter reads and drops.
			pc.ReadItems = int(math.Ceil(float64(pc.Items) / (1 - ExpiredShare)))
			z.assumed[fmt.Sprintf("reads that hide expired items read %.0f%% more (expired items not deleted yet: ExpiredShare)", 100*(1/(1-ExpiredShare)-1))] = true
		}
		switch {
		case pp.Batch:
			pc.ReadUnits = batchReadUnits(pc.ReadItems, pc.ItemBytes, pp.Consistent)
		default:
			pc.ReadUnits = units(pc.ReadItems*pc.ItemBytes, ReadUnitBytes) * float64(pp.Requests)
			if !pp.Consistent {
				pc.ReadUnits /= 2
			}
		}
		pc.UnitsPerSecond = pc.ReadUnits * pc.Rate
		pc.UpperBound = z.bounds()
		c.ReadUnits += pc.UnitsPerSecond
		load[pp.Index].ReadUnits += pc.UnitsPerSecond
		c.Patterns = append(c.Patterns, pc)
	}
	written := map[string]bool{}
	for _, w := range d.model.Writes {
		rate := r.write(w)
		if rate <= 0 {
			continue
		}
		wc := &WriteCost{Name: w.Name, Rate: rate}
		z.figure()
		factor := 1.0
		if w.Op == WriteTransact {
			factor = 2
		}
		for _, fx := range d.effects(w) {
			written[fx.e.Name] = true
			base := units(z.item(d, fx.e), WriteUnitBytes) * factor
			if fx.counter {
				base = 0
				for _, i := range fx.s.Add { // one shard item per counter
					base += units(z.shard(fx.e, d.Entity(fx.e.Name).Counter(i.Attr)), WriteUnitBytes) * factor
				}
				wc.Items += len(fx.s.Add) - 1
			}
			extra := float64(fx.guards+fx.shards) * factor
			wc.Items += 1 + fx.guards + fx.shards
			wc.WriteUnits += base + extra
			load[BaseIndex].WriteUnits += (base + extra) * rate
			for _, ix := range d.Indexes {
				if fx.counter {
					break // shard items are on no GSI
				}
				k := d.Entity(fx.e.Name).Key(ix.Name)
				if k == nil || fx.s.Op == WriteCheck {
					continue
				}
				n := 0.0
				switch {
				case slices.Contains(fx.keys, k) && fx.s.Op == WriteUpdate:
					n = 2 // the key moves: out and in
				case slices.Contains(fx.keys, k):
					n = 1
				case fx.s.Op == WriteUpdate && projects(ix, fx.changed):
					n = 1
				}
				if n > 0 {
					u := n * units(z.projected(d, fx.e, ix.Name), WriteUnitBytes) * factor
					wc.Indexes += int(n)
					wc.WriteUnits += u
					load[ix.Name].WriteUnits += u * rate
				}
			}
		}
		wc.UnitsPerSecond = wc.WriteUnits * wc.Rate
		wc.UpperBound = z.bounds()
		c.WriteUnits += wc.UnitsPerSecond
		c.Writes = append(c.Writes, wc)
	}
	for _, name := range entityNames(d.model) {
		e := d.model.Entity(name)
		if written[name] {
			continue // the write patterns say what it costs
		}
		z.figure()
		ec := &EntityCost{Name: e.Name, ItemBytes: z.item(d, e), Rate: r.entity(e)}
		ec.WriteUnits = units(ec.ItemBytes, WriteUnitBytes)
		ec.Amplification = 1
		load[BaseIndex].WriteUnits += ec.WriteUnits * ec.Rate
		var seen []string
		for _, k := range d.Entity(e.Name).Keys {
			if k.Index == BaseIndex || slices.Contains(seen, k.Index) {
				continue
			}
			seen = append(seen, k.Index)
			w := units(z.projected(d, e, k.Index), WriteUnitBytes)
			ec.Amplification++
			ec.WriteUnits += w
			load[k.Index].WriteUnits += w * ec.Rate
		}
		ec.UnitsPerSecond = ec.WriteUnits * ec.Rate
		ec.UpperBound = z.bounds()
		c.WriteUnits += ec.UnitsPerSecond
		c.Entities = append(c.Entities, ec)
	}
	const second = 3600 * HoursPerMonth
	c.OnDemand = (c.ReadUnits*PriceRRU + c.WriteUnits*PriceWRU) * second
	for _, l := range c.Indexes {
		c.Provisioned += (ProvisionedUnits(l.ReadUnits)*PriceRCUHour + ProvisionedUnits(l.WriteUnits)*PriceWCUHour) * HoursPerMonth
	}
	for a := range z.assumed {
		c.Assumptions = append(c.Assumptions, a)
	}
	for _, a := range slices.Sorted(maps.Keys(z.all)) {
		c.UpperBounds = append(c.UpperBounds, fmt.Sprintf("%s (%d bytes)", a, z.all[a]))
	}
	if len(c.UpperBounds) > 0 {
		c.Assumptions = append(c.Assumptions, "values without size are taken at their maxLength or maxItems, so the figures that count them are upper bounds: "+strings.Join(c.UpperBounds, ", ")+" (declare size: N, a typical value's bytes, for a typical cost)")
	}
	sort.Strings(c.Assumptions)
	return c
}

// ProvisionedUnits is the capacity provisioned for a load of units per
// second at TargetUtilizationPercent: at least 1.
func ProvisionedUnits(units float64) float64 { return CapacityAt(units, TargetUtilizationPercent) }

// CapacityAt is the capacity that runs a load of units per second at
// target percent utilization: at least 1.
func CapacityAt(units, target float64) float64 { return math.Max(1, math.Ceil(units*100/target)) }

// ReplicaReads is one replica region's provisioned read capacity per
// index ("table" and GSI names); an index it does not name is sized like
// the primary's (what a global table deploys unless told otherwise).
type ReplicaReads struct {
	Region string
	Read   map[string]float64
}

// Global is the estimate of a global table: the primary region (the
// design's Cost) and each replica. Every write is replicated to every
// replica (priced as a write there: replicated write units cost what
// writes cost since November 2024); reads are the model's rates, served
// where they are made, so they are counted once (on-demand) while each
// replica pays for the read capacity it provisions.
type Global struct {
	Replicas []*ReplicaCost `json:"replicas"`
	// ReplicatedWriteUnits per second, over all replicas.
	ReplicatedWriteUnits float64 `json:"replicatedWriteUnitsPerSecond"`
	// OnDemand and Provisioned are the monthly cost of all regions, USD.
	OnDemand    float64 `json:"onDemandMonthlyUSD"`
	Provisioned float64 `json:"provisionedMonthlyUSD"`
}

// ReplicaCost is one replica's monthly share.
type ReplicaCost struct {
	Region string `json:"region"`
	// ReadCapacity and WriteCapacity are the provisioned units over the
	// table and its GSIs (the write capacity is the primary's: a global
	// table's replicas take every write).
	ReadCapacity  float64 `json:"readCapacity"`
	WriteCapacity float64 `json:"writeCapacity"`
	OnDemand      float64 `json:"onDemandMonthlyUSD"`
	Provisioned   float64 `json:"provisionedMonthlyUSD"`
}

// Summary names the replicas and the read capacity each provisions:
// "2 replica(s) (eu-west-1 2 RCU, ap-south-1 9 RCU)".
func (g *Global) Summary() string {
	regions := make([]string, len(g.Replicas))
	for i, r := range g.Replicas {
		regions[i] = fmt.Sprintf("%s %.0f RCU", r.Region, r.ReadCapacity)
	}
	return fmt.Sprintf("%d replica(s) (%s)", len(g.Replicas), strings.Join(regions, ", "))
}

// Global adds replicas to the estimate.
func (c *Cost) Global(replicas []ReplicaReads) *Global {
	const second = 3600 * HoursPerMonth
	g := &Global{OnDemand: c.OnDemand, Provisioned: c.Provisioned}
	for _, r := range replicas {
		rc := &ReplicaCost{Region: r.Region}
		for _, l := range c.Indexes {
			read, ok := r.Read[l.Name]
			if !ok {
				read = ProvisionedUnits(l.ReadUnits)
			}
			rc.ReadCapacity += read
			rc.WriteCapacity += ProvisionedUnits(l.WriteUnits)
		}
		rc.OnDemand = c.WriteUnits * PriceWRU * second
		rc.Provisioned = (rc.ReadCapacity*PriceRCUHour + rc.WriteCapacity*PriceWCUHour) * HoursPerMonth
		g.ReplicatedWriteUnits += c.WriteUnits
		g.OnDemand += rc.OnDemand
		g.Provisioned += rc.Provisioned
		g.Replicas = append(g.Replicas, rc)
	}
	return g
}

// shard is the size of a counter's shard item: its keys and the number.
func (z *sizer) shard(e *Entity, ck *CounterKeys) int {
	return len(TablePK) + z.key(e, ck.PK) + len(TableSK) + decimalLen(int64(ck.Shards)) + len(ck.Attr) + DefaultNumberBytes
}

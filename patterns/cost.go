package patterns

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/keyplan/keyplan/patterns/model"
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
	// ("table" first), what provisioned capacity is sized from; an LSI's
	// are the table's (it has no capacity of its own).
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
	// Objects is what the values kept in S3 (store: s3) add, beside the
	// table's cost; none when the model keeps none there.
	Objects *ObjectCost `json:"objects,omitempty"`
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
	// Amplification is 1 + the GSIs and LSIs the entity is projected
	// into: the writes one item write makes.
	Amplification int `json:"writeAmplification"`
	// WriteUnits per item write, over the table and its indexes (1 KB
	// units; an LSI's in the table's capacity).
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
	// values included); Indexes the GSI and LSI writes they cause.
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
	load := map[string]*IndexLoad{model.BaseIndex: {Name: model.BaseIndex}}
	c.Indexes = append(c.Indexes, load[model.BaseIndex])
	for _, ix := range d.Indexes {
		load[ix.Name] = &IndexLoad{Name: ix.Name}
		c.Indexes = append(c.Indexes, load[ix.Name])
	}
	for _, ix := range d.LocalIndexes {
		load[ix.Name] = load[model.BaseIndex] // an LSI's reads and writes are the table's capacity
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
				z.assumed[fmt.Sprintf("a batch read without limit passes %d ids", model.DefaultPage)] = true
			}
		case pp.Operation == GetItem || p.Op == model.ReadGet:
			pc.Items = 1
		case p.Limit > 0:
			pc.Items = p.Limit
		default:
			pc.Items = model.DefaultPage
			z.assumed[fmt.Sprintf("a query without limit returns %d items", model.DefaultPage)] = true
		}
		pc.ReadItems = pc.Items
		if pp.HideExpired != "" && pp.Operation == Query {
			// DynamoDB bills the expired items a filter reads and drops.
			pc.ReadItems = int(math.Ceil(float64(pc.Items) / (1 - model.ExpiredShare)))
			z.assumed[fmt.Sprintf("reads that hide expired items read %.0f%% more (expired items not deleted yet: ExpiredShare)", 100*(1/(1-model.ExpiredShare)-1))] = true
		}
		switch {
		case pp.Batch:
			pc.ReadUnits = batchReadUnits(pc.ReadItems, pc.ItemBytes, pp.Consistent)
		default:
			pc.ReadUnits = units(pc.ReadItems*pc.ItemBytes, model.ReadUnitBytes) * float64(pp.Requests)
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
		if w.Op == model.WriteTransact {
			factor = 2
		}
		for _, fx := range d.effects(w) {
			written[fx.e.Name] = true
			base := units(z.item(d, fx.e), model.WriteUnitBytes) * factor
			if fx.counter {
				base = 0
				for _, i := range fx.s.Add { // one shard item per counter
					base += units(z.shard(fx.e, d.Entity(fx.e.Name).Counter(i.Attr)), model.WriteUnitBytes) * factor
				}
				wc.Items += len(fx.s.Add) - 1
			}
			extra := float64(fx.guards+fx.shards) * factor
			wc.Items += 1 + fx.guards + fx.shards
			wc.WriteUnits += base + extra
			load[model.BaseIndex].WriteUnits += (base + extra) * rate
			for _, ix := range append(slices.Clip(d.Indexes), d.LocalIndexes...) {
				if fx.counter {
					break // shard items are on no GSI
				}
				k := d.Entity(fx.e.Name).Key(ix.Name)
				if k == nil || fx.s.Op == model.WriteCheck {
					continue
				}
				n := 0.0
				switch {
				case slices.Contains(fx.keys, k) && fx.s.Op == model.WriteUpdate:
					n = 2 // the key moves: out and in
				case slices.Contains(fx.keys, k):
					n = 1
				case fx.s.Op == model.WriteUpdate && projects(ix, fx.changed):
					n = 1
				}
				if n > 0 {
					u := n * units(z.projected(d, fx.e, ix.Name), model.WriteUnitBytes) * factor
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
		ec.WriteUnits = units(ec.ItemBytes, model.WriteUnitBytes)
		ec.Amplification = 1
		load[model.BaseIndex].WriteUnits += ec.WriteUnits * ec.Rate
		var seen []string
		for _, k := range d.Entity(e.Name).Keys {
			if k.Index == model.BaseIndex || slices.Contains(seen, k.Index) {
				continue
			}
			seen = append(seen, k.Index)
			w := units(z.projected(d, e, k.Index), model.WriteUnitBytes)
			ec.Amplification++
			ec.WriteUnits += w
			load[k.Index].WriteUnits += w * ec.Rate
		}
		ec.UnitsPerSecond = ec.WriteUnits * ec.Rate
		ec.UpperBound = z.bounds()
		c.WriteUnits += ec.UnitsPerSecond
		c.Entities = append(c.Entities, ec)
	}
	c.Objects = objectCost(d, r, z)
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

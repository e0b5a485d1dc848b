package patterns

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/keyplan/keyplan/patterns/model"
)

func TestCostUnits(t *testing.T) {
	d := planText(t, `table: Things
entities:
  Doc:
    id: [docId]
    writes: 10
    attributes:
      docId: {type: string, maxLength: 10}
      owner: {type: string, maxLength: 10}
      body: {type: string, maxLength: 5000}
patterns:
  GetDoc:    {get: Doc, rate: 100}
  StrongDoc: {get: Doc, consistent: true, rate: 10}
  ByOwner:   {query: Doc, where: [owner], limit: 10, returns: [docId], rate: 50}
`)
	c := d.Cost
	byName := map[string]*PatternCost{}
	for _, p := range c.Patterns {
		byName[p.Name] = p
	}
	// A ~5 KB item: 2 read units strong, 1 eventual.
	if p := byName["GetDoc"]; p.ReadUnits != 1 || p.UnitsPerSecond != 100 {
		t.Errorf("GetDoc %+v", p)
	}
	if p := byName["StrongDoc"]; p.ReadUnits != 2 {
		t.Errorf("StrongDoc %+v", p)
	}
	// KEYS_ONLY: ten small index items fit in one 4 KB unit, halved.
	if ix := d.Index("GSI1"); ix.Projection != ProjectKeysOnly {
		t.Fatalf("projection %s", ix.ProjectionText())
	}
	if p := byName["ByOwner"]; p.Items != 10 || p.ReadUnits != 0.5 || p.ItemBytes > 200 {
		t.Errorf("ByOwner %+v", p)
	}
	e := c.Entities[0]
	// Base write: ceil(5 KB / 1 KB) = 5 or 6; GSI write of the keys: 1.
	if e.Amplification != 2 || e.WriteUnits != units(e.ItemBytes, 1024)+1 {
		t.Errorf("Doc writes %+v", e)
	}
	wantOnDemand := (c.ReadUnits*PriceRRU + c.WriteUnits*PriceWRU) * 3600 * HoursPerMonth
	if math.Abs(c.OnDemand-wantOnDemand) > 1e-9 || c.Provisioned <= 0 {
		t.Errorf("monthly %v / %v", c.OnDemand, c.Provisioned)
	}
}

// Sharding multiplies a read's requests, and so its units.
func TestCostSharded(t *testing.T) {
	d := planText(t, `table: Things
entities:
  Order:
    id: [orderId]
    attributes: {orderId: {type: string, maxLength: 10}, status: {values: [A, B]}, at: time}
patterns:
  ByStatus: {query: Order, where: [status], sort: at, limit: 10, shards: 4, rate: 1}
`)
	if p := d.Cost.Patterns[0]; p.ReadUnits != 4*0.5 {
		t.Errorf("sharded read units %v, want 2", p.ReadUnits)
	}
}

// Write patterns with rates replace the entity's guess: each counts its
// item writes, the GSI writes they cause (two for a key an update moves),
// guard items, and double for a transaction.
func TestWriteCost(t *testing.T) {
	c := EstimateCost(plan(t, "../examples/ecommerce.yaml"))
	byName := map[string]*WriteCost{}
	for _, w := range c.Writes {
		byName[w.Name] = w
	}
	for _, e := range c.Entities {
		if e.Name != "Customer" {
			t.Errorf("%s is written by write patterns but still costed from its writes guess", e.Name)
		}
	}
	po, ship, restock := byName["PlaceOrder"], byName["ShipOrder"], byName["Restock"]
	if po == nil || ship == nil || restock == nil {
		t.Fatalf("writes %+v", c.Writes)
	}
	// PlaceOrder: Order (2 units, on GSI1 and GSI2), OrderItem (1),
	// Product (1, its GSI1 does not project inventory), all doubled.
	if po.Items != 3 || po.Indexes != 2 || po.WriteUnits != 2*(2+1+1+1+1) {
		t.Errorf("PlaceOrder %+v", po)
	}
	// ShipOrder: the order (2 units), its OrdersByStatus key moves (out and
	// in), CustomerOrders projects status (1).
	if ship.Items != 1 || ship.Indexes != 3 || ship.WriteUnits != 5 {
		t.Errorf("ShipOrder %+v", ship)
	}
	sum := 0.0
	for _, w := range c.Writes {
		sum += w.UnitsPerSecond
	}
	for _, e := range c.Entities {
		sum += e.UnitsPerSecond
	}
	if math.Abs(sum-c.WriteUnits) > 1e-9 {
		t.Errorf("write units %g, the rows sum to %g", c.WriteUnits, sum)
	}
}

// A global table: every replica takes every write and provisions its own
// reads (the primary's unless told); on-demand reads are counted once.
func TestCostGlobal(t *testing.T) {
	d := planText(t, `table: Things
entities:
  Doc:
    id: [docId]
    writes: 10
    attributes: {docId: {type: string, maxLength: 10}, owner: {type: string, maxLength: 10}}
patterns:
  GetDoc:  {get: Doc, rate: 1000}
  ByOwner: {query: Doc, where: [owner], limit: 10, rate: 50}
`)
	c := d.Cost
	if g := c.Global(nil); g.OnDemand != c.OnDemand || g.Provisioned != c.Provisioned || len(g.Replicas) != 0 {
		t.Fatalf("no replicas: %+v", g)
	}
	g := c.Global([]ReplicaReads{{Region: "eu-west-1"}, {Region: "ap-south-1", Read: map[string]float64{model.BaseIndex: 5, "GSI1": 1}}})
	if g.ReplicatedWriteUnits != 2*c.WriteUnits {
		t.Errorf("replicated writes %v, want 2 × %v", g.ReplicatedWriteUnits, c.WriteUnits)
	}
	var primaryRead, primaryWrite float64
	for _, l := range c.Indexes {
		primaryRead += ProvisionedUnits(l.ReadUnits)
		primaryWrite += ProvisionedUnits(l.WriteUnits)
	}
	eu, ap := g.Replicas[0], g.Replicas[1]
	if eu.ReadCapacity != primaryRead || eu.WriteCapacity != primaryWrite {
		t.Errorf("eu-west-1 %+v; want the primary's %v RCU, %v WCU", eu, primaryRead, primaryWrite)
	}
	if ap.ReadCapacity != 6 || ap.WriteCapacity != primaryWrite || ap.Provisioned >= eu.Provisioned {
		t.Errorf("ap-south-1 %+v; want 6 RCU (its own) and cheaper than eu-west-1", ap)
	}
	wantOnDemand := c.OnDemand + 2*c.WriteUnits*PriceWRU*3600*HoursPerMonth
	if math.Abs(g.OnDemand-wantOnDemand) > 1e-9 {
		t.Errorf("on-demand %v, want %v (reads once, writes three times)", g.OnDemand, wantOnDemand)
	}
	if math.Abs(g.Provisioned-(c.Provisioned+eu.Provisioned+ap.Provisioned)) > 1e-9 {
		t.Errorf("provisioned %v is not the sum of the regions", g.Provisioned)
	}
}

// The gaps model's features in the estimate: a sharded counter's read
// reads its shard items (small, one per shard), not the item; a read
// that hides expired items, or counts them, reads more than it returns
// (ExpiredShare), expired: include does not; sets and maps take room at
// their maxItems; an add to a counter writes one shard item; a
// transaction of two User items counts both, doubled.
func TestCostGaps(t *testing.T) {
	d := plan(t, "testdata/models/gaps.yaml")
	reads := map[string]*PatternCost{}
	for _, p := range d.Cost.Patterns {
		reads[p.Name] = p
	}
	writes := map[string]*WriteCost{}
	for _, w := range d.Cost.Writes {
		writes[w.Name] = w
	}
	if p := reads["PostViews"]; p == nil || p.Items != 8 || p.ItemBytes > 200 || p.ReadUnits != 0.5 {
		t.Errorf("PostViews (8 shard items of a few bytes, one request): %+v", p)
	}
	for _, name := range []string{"PostWithComments", "CommentCount", "UserSessions"} {
		if p := reads[name]; p == nil || p.ReadItems != int(math.Ceil(float64(p.Items)/(1-model.ExpiredShare))) || p.ReadItems <= p.Items {
			t.Errorf("%s hides expired items but reads %+v", name, p)
		}
	}
	if p := reads["AllComments"]; p == nil || p.ReadItems != p.Items {
		t.Errorf("AllComments (expired: include) reads %+v", p)
	}
	// badges: 20 strings, prefs: 20 entries, 32 bytes each at least.
	if p := reads["GetUser"]; p == nil || p.ItemBytes < 2*20*32 {
		t.Errorf("GetUser: a user with its set and map full takes more than %+v", p)
	}
	if w := writes["CountView"]; w == nil || w.Items != 1 || w.WriteUnits != 1 {
		t.Errorf("CountView (an ADD on one small shard item): %+v", w)
	}
	user, follow := units(reads["GetUser"].ItemBytes, 1024), 1.0
	if w := writes["FollowUser"]; w == nil || w.Items != 3 || w.WriteUnits != 2*(follow+2*user) {
		t.Errorf("FollowUser (a Follow and two Users, in a transaction): %+v, want %v units", w, 2*(follow+2*user))
	}
}

// A typical size (size: N) is what the cost takes of a string; without
// it a string with maxLength is taken at maxLength, and every figure that
// counts one says it is an upper bound (issue 35: a 10 KB body limit made
// most of a help desk's estimate). size stays within maxLength, which
// still bounds the item for the limits.
func TestCostTypicalSize(t *testing.T) {
	src := `table: Desk
entities:
  Ticket:
    id: [ticketId]
    writes: 5
    attributes:
      ticketId: {type: string, size: 26}
      status: {values: [open, closed]}
      body: {type: string, maxLength: 10240%s}
patterns:
  GetTicket: {get: Ticket, rate: 470}
`
	bounded := planText(t, fmt.Sprintf(src, ""))
	typical := planText(t, fmt.Sprintf(src, ", size: 400"))
	get := func(d *Design) *PatternCost { return d.Cost.Patterns[0] }
	if b, ty := get(bounded), get(typical); b.ReadUnits != 1.5 || ty.ReadUnits != 0.5 || b.ItemBytes < 10240 || ty.ItemBytes > 600 {
		t.Errorf("GetTicket: at maxLength %+v, typical %+v", b, ty)
	}
	if b := get(bounded); !slices.Equal(b.UpperBound, []string{"Ticket.body"}) || !slices.Equal(bounded.Cost.UpperBounds, []string{"Ticket.body (10240 bytes)"}) {
		t.Errorf("upper bounds: %v, %v", b.UpperBound, bounded.Cost.UpperBounds)
	}
	if e := bounded.Cost.Entities[0]; !slices.Equal(e.UpperBound, []string{"Ticket.body"}) {
		t.Errorf("Ticket's writes: %+v", e)
	}
	if ty := get(typical); ty.UpperBound != nil || typical.Cost.UpperBounds != nil || typical.Cost.Entities[0].UpperBound != nil {
		t.Errorf("with size: %+v, %v", ty, typical.Cost.UpperBounds)
	}
	if typical.Cost.OnDemand >= bounded.Cost.OnDemand/2 {
		t.Errorf("on demand: typical $%.2f, at maxLength $%.2f", typical.Cost.OnDemand, bounded.Cost.OnDemand)
	}
	for _, c := range []struct{ decl, want string }{
		{"{type: string, maxLength: 100, size: 400}", "size 400 is above maxLength 100"},
		{"{type: number, size: 8}", "size is the typical size of a string, binary, set, list or map"},
		{"{values: [a, b], size: 1}", "an enum's size is its values'"},
		{"{type: string, size: 0}", "size"},
	} {
		_, err := model.Parse("desk.yaml", []byte(strings.Replace(src, "{type: string, maxLength: 10240%s}", c.decl, 1)))
		if err == nil || !strings.Contains(err.Error(), "attributes.body.size") || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v; want %q", c.decl, err, c.want)
		}
	}
}

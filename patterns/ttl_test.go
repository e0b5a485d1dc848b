package patterns_test

import (
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/keyplan/keyplan/patterns"
)

// Reads hide expired items with a filter on the TTL attribute, so every
// GSI a hiding read is served by holds it: a ttl added to an entity read
// through INCLUDE GSIs grows their projections (a migration), unless
// those reads say expired: include (a one-step change).
func TestTTLGrowsProjections(t *testing.T) {
	src, err := os.ReadFile("../examples/ecommerce.yaml")
	if err != nil {
		t.Fatal(err)
	}
	model := string(src)
	lock := patterns.NewLock(planModel(t, model, nil))
	ttl := strings.Replace(model, "      shippingAddr: {type: string, maxLength: 1000}\n",
		"      shippingAddr: {type: string, maxLength: 1000}\n      expiresAt: {type: ttl, optional: true}\n", 1)
	d := planModel(t, ttl, lock)
	df := patterns.Compare(lock, d)
	if df.Safe || !slices.Contains(changeIDs(df), "KP603") {
		t.Errorf("a ttl on Order: safe %v, changes %v; want a projection replaced (KP603)", df.Safe, changeIDs(df))
	}
	for _, name := range []string{"OrdersByStatus", "CustomerOrders"} {
		pp := d.Pattern(name)
		ix := d.Index(pp.Index)
		if pp.HideExpired != "expiresAt" || ix.Projection != patterns.ProjectAll && !slices.Contains(ix.NonKeyAttributes, "expiresAt") {
			t.Errorf("%s hides %q on %s, which projects %s", name, pp.HideExpired, ix.Name, ix.ProjectionText())
		}
	}
	opt := strings.NewReplacer("returns: [customerName, total]", "returns: [customerName, total], expired: include",
		"returns: [status, total]", "returns: [status, total], expired: include").Replace(ttl)
	d = planModel(t, opt, lock)
	if df := patterns.Compare(lock, d); !df.Safe {
		t.Errorf("a ttl on Order, its GSI reads including expired items: not safe, changes %v", changeIDs(df))
	}
	if pp := d.Pattern("CustomerOrders"); pp.HideExpired != "" {
		t.Errorf("CustomerOrders says expired: include but hides by %q", pp.HideExpired)
	}
	if pp := d.Pattern("GetOrder"); pp.HideExpired != "expiresAt" {
		t.Errorf("GetOrder hides by %q, want expiresAt", pp.HideExpired)
	}
}

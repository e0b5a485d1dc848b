package engine

import (
	"context"
	"strings"
	"testing"

	"github.com/keyplan/keyplan/internal/engine/minidyn"
)

// Lacks agrees with what each engine was seen to do (documented, probed
// by TestEngineDifferences), and an endpoint is probed: the in-process
// engine served on a port has multi-attribute keys.
func TestLacks(t *testing.T) {
	for _, name := range Names {
		for _, f := range []Feature{OnlineIndexes, ListMapEquality} {
			if has := documented[string(f)][name] == "yes"; has != (Lacks(name, f) == "") {
				t.Errorf("Lacks(%s, %s) = %q, docs/engines.md says %s", name, f, Lacks(name, f), documented[string(f)][name])
			}
		}
		has := documented[string(MultiAttributeKeys)][name] == "yes"
		if why := Lacks(name, MultiAttributeKeys); has != (why == "") {
			t.Errorf("Lacks(%s) = %q, docs/engines.md says %s", name, why, documented[string(MultiAttributeKeys)][name])
		}
		for _, op := range []string{"PutItem", "UpdateItem"} {
			row := string(OldItemOnConditionFailure) + " (" + op + ")"
			has := documented[row][name] == "returned"
			if why := Lacks(name, OldItemOnConditionFailure); has != (why == "") {
				t.Errorf("Lacks(%s, %s) = %q, docs/engines.md says %s", name, OldItemOnConditionFailure, why, documented[row][name])
			}
		}
	}
	srv, err := minidyn.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Stop()
	ctx := context.Background()
	c, err := Connect(ctx, Options{Endpoint: srv.Endpoint})
	if err != nil {
		t.Fatal(err)
	}
	if why := c.Lacks(ctx, MultiAttributeKeys); why != "" {
		t.Errorf("the in-process engine on an endpoint: %s", why)
	}
	if why := c.Lacks(ctx, OldItemOnConditionFailure); why != "" {
		t.Errorf("the in-process engine on an endpoint: %s", why)
	}
	if c.DB.ReadsRefusedItems(ctx) {
		t.Error("the runtime's client of the in-process engine reads the item a refused write found; the engine returns it")
	}
	if why := c.Lacks(ctx, Feature("time travel")); !strings.Contains(why, "cannot probe") {
		t.Errorf("an unknown feature: %q", why)
	}
}

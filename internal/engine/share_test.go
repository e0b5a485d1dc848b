package engine_test

import (
	"context"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/keyplan/keyplan/internal/engine"
	"github.com/keyplan/keyplan/internal/testkit/faults"
)

// A client of a fault proxy (internal/testkit/faults) signs with its engine's key
// and takes its engine's transaction probe: a probe through a proxy that
// fails every request would call dynalite transactional.
func TestAProxyIsItsEngine(t *testing.T) {
	ctx := context.Background()
	for _, name := range []string{engine.Memory, engine.Dynalite} {
		if testing.Short() && name != engine.Memory {
			continue
		}
		t.Run(name, func(t *testing.T) {
			c, err := engine.Connect(ctx, engine.Options{Name: name})
			if err != nil {
				t.Fatal(err)
			}
			defer c.Stop()
			proxy, err := faults.New(c.Endpoint, 1, 1) // every request fails
			if err != nil {
				t.Fatal(err)
			}
			through := engine.Transactions(ctx, proxy.URL, engine.Client(proxy.URL, 0))
			if through.Emulated() != c.DB.Emulated() {
				t.Errorf("through the proxy: emulated %v; the engine: %v", through.Emulated(), c.DB.Emulated())
			}
			if engine.AccessKeyID(proxy.URL) != c.AccessKeyID {
				t.Errorf("the proxy's key %q, the engine's %q", engine.AccessKeyID(proxy.URL), c.AccessKeyID)
			}
			proxy.Close()
			clean, err := faults.New(c.Endpoint, 0, 1)
			if err != nil {
				t.Fatal(err)
			}
			defer clean.Close()
			if _, err := engine.Client(clean.URL, 0).ListTables(ctx, &dynamodb.ListTablesInput{}); err != nil {
				t.Errorf("a request through the proxy: %v", err)
			}
		})
	}
}

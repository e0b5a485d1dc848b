package enginepass

import (
	"context"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/keyplan/keyplan/internal/engine"
	"github.com/keyplan/keyplan/patterns"
)

// NeedsNative skips t when d has a native index of several attributes a
// side and the engine c lacks them, once the engine is seen to refuse the
// table: create makes d's table on c (the package's CreateTable, under a
// name of its own) and says its name. A skip never hides a run the engine
// could make: an engine said to lack native keys that creates the table
// fails t. What such an engine proves instead is the synthetic keying of
// the same model (the synthetic runs); the native one is proved on the
// in-process engine.
func NeedsNative(t testing.TB, c *engine.Conn, d *patterns.Design, create func(context.Context) (table string, err error)) {
	t.Helper()
	for _, ix := range d.Indexes {
		if !ix.Native() || len(ix.PartitionKeys) <= 1 && len(ix.SortKeys) <= 1 {
			continue // a key of one attribute a side: every engine has it
		}
		why := c.Lacks(context.Background(), engine.MultiAttributeKeys)
		if why == "" {
			return
		}
		ctx := context.Background()
		if name, err := create(ctx); err == nil {
			c.Raw.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String(name)})
			t.Fatalf("%s: the engine is said to lack native keys (%s), but it created %s with native index %s", c.Name, why, d.Table, ix.Name)
		}
		t.Skipf("%s has native index %s: %s (it refuses the table): native keys are proved on the in-process engine, and this model's synthetic keying by its synthetic run here", d.Table, ix.Name, why)
	}
}

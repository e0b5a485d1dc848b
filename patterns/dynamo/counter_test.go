package dynamo

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/keyplan/keyplan/patterns/model"
	"github.com/keyplan/keyplan/patterns/oracle"
)

// The proof's helpers these tests of the runtime use (package
// patterns/prove has its own: it imports this package, so these tests
// cannot import it).

// counter counts the requests a client makes.
type counter struct {
	Client
	n int
}

func (c *counter) GetItem(ctx context.Context, in *dynamodb.GetItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error) {
	c.n++
	return c.Client.GetItem(ctx, in, opts...)
}

func (c *counter) Query(ctx context.Context, in *dynamodb.QueryInput, opts ...func(*dynamodb.Options)) (*dynamodb.QueryOutput, error) {
	c.n++
	return c.Client.Query(ctx, in, opts...)
}

// BatchGetItem counts a batch read's requests, when the client reads
// batches.
func (c *counter) BatchGetItem(ctx context.Context, in *dynamodb.BatchGetItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.BatchGetItemOutput, error) {
	br, ok := c.Client.(BatchReader)
	if !ok {
		return nil, fmt.Errorf("%w (%T)", ErrNoBatchReader, c.Client)
	}
	c.n++
	return br.BatchGetItem(ctx, in, opts...)
}

// fromRuntime is what a read returned as the reference evaluator holds
// it.
func fromRuntime(m *model.Model, items []Item) []*oracle.Item {
	out := make([]*oracle.Item, len(items))
	for i, it := range items {
		out[i] = oracle.FromRuntime(m, it.Entity, it.Values)
	}
	return out
}

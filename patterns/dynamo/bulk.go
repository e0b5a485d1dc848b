package dynamo

import (
	"context"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/keyplan/keyplan/patterns/model"
)

// BatchWriter is what BatchPut needs of DynamoDB.
type BatchWriter interface {
	BatchWriteItem(ctx context.Context, in *dynamodb.BatchWriteItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.BatchWriteItemOutput, error)
}

// BatchPut writes items to a table 25 at a time, writing again what the
// engine leaves unprocessed (with a growing pause, up to 10 times).
func BatchPut(ctx context.Context, c BatchWriter, table string, items []map[string]types.AttributeValue) error {
	for start := 0; start < len(items); start += model.MaxBatchWriteItems {
		var reqs []types.WriteRequest
		for _, it := range items[start:min(start+model.MaxBatchWriteItems, len(items))] {
			reqs = append(reqs, types.WriteRequest{PutRequest: &types.PutRequest{Item: it}})
		}
		pending := map[string][]types.WriteRequest{table: reqs}
		for attempt := 0; len(pending[table]) > 0; attempt++ {
			if attempt == 10 {
				return fmt.Errorf("BatchWriteItem on %s: %d item(s) still unprocessed after %d attempts", table, len(pending[table]), attempt)
			}
			if attempt > 0 {
				select {
				case <-ctx.Done():
					return ctx.Err()
				case <-time.After(time.Duration(attempt*attempt) * 50 * time.Millisecond):
				}
			}
			out, err := c.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: pending})
			if err != nil {
				return fmt.Errorf("BatchWriteItem on %s: %w", table, err)
			}
			pending = out.UnprocessedItems
		}
	}
	return nil
}

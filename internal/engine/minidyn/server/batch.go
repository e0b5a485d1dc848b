package server

import (
	"context"
	"maps"
	"slices"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/keyplan/keyplan/internal/engine/minidyn/core"
)

// Batch limits.
const (
	MaxBatchWriteItems = 25
	MaxBatchGetItems   = 100
)

// BatchWriteItem puts and deletes up to 25 items. The whole batch is
// checked first (tables, keys, items, duplicates): a batch DynamoDB refuses
// writes nothing.
func (c *Client) BatchWriteItem(_ context.Context, in *BatchWriteItemInput) (*BatchWriteItemOutput, error) {
	if err := checkCapacityMode(in.ReturnConsumedCapacity); err != nil {
		return nil, err
	}

	if len(in.RequestItems) == 0 {
		return nil, validation("BatchWriteItem cannot have a null or no requests set")
	}

	count := 0

	for _, name := range slices.Sorted(maps.Keys(in.RequestItems)) {
		reqs := in.RequestItems[name]
		if len(reqs) == 0 {
			return nil, validation("The batch write request list for a table cannot be null or empty: %s", name)
		}

		if len(reqs) > MaxBatchWriteItems {
			return nil, validation("1 validation error detected: Value at 'requestItems' failed to satisfy constraint: Map value must satisfy constraint: [Member must have length less than or equal to %d, Member must have length greater than or equal to 1]", MaxBatchWriteItems)
		}

		count += len(reqs)
	}

	if count > MaxBatchWriteItems {
		return nil, validation("Too many items requested for the BatchWriteItem call")
	}

	emulation := c.batchEmulationFor(tableNames(in.RequestItems)...)
	if emulation.failErr != nil {
		return nil, emulation.failErr
	}

	c.mu.Lock()
	defer c.mu.Unlock()

	var writes []*core.Write

	unprocessed := map[string][]WriteRequest{}
	seen := map[string]bool{}

	for _, name := range slices.Sorted(maps.Keys(in.RequestItems)) {
		table, err := c.tableFor(&name)
		if err != nil {
			return nil, err
		}

		for i, req := range in.RequestItems[name] {
			if (req.PutRequest == nil) == (req.DeleteRequest == nil) {
				return nil, validation("Supplied AttributeValue has more than one datatypes set, must contain exactly one of the supported datatypes")
			}

			var w *core.Write

			if req.PutRequest != nil {
				item, err := fromWireMap(req.PutRequest.Item)
				if err != nil {
					return nil, err
				}

				if w, err = table.PreparePut(item, nil); err != nil {
					return nil, apiErr(err)
				}
			} else {
				key, err := fromWireMap(req.DeleteRequest.Key)
				if err != nil {
					return nil, err
				}

				if w, err = table.PrepareDelete(key, nil); err != nil {
					return nil, apiErr(err)
				}
			}

			id := name + "\x00" + w.Key
			if seen[id] {
				return nil, validation("Provided list of item keys contains duplicates")
			}

			seen[id] = true

			raw := map[string]*AttributeValue(nil)
			if req.PutRequest != nil {
				raw = req.PutRequest.Item
			} else {
				raw = req.DeleteRequest.Key
			}

			if emulation.unprocessed(name, i, raw) {
				unprocessed[name] = append(unprocessed[name], req)
				continue
			}

			writes = append(writes, w)
		}
	}

	used := consumptions{}

	for _, w := range writes {
		c.commit(w, false)
		used.of(w.Table.Name, true).addWrite(w, 1)
	}

	return &BatchWriteItemOutput{UnprocessedItems: unprocessed, ConsumedCapacity: used.report(in.ReturnConsumedCapacity)}, nil
}

func tableNames[V any](requestItems map[string]V) []string {
	return slices.Sorted(maps.Keys(requestItems))
}

// BatchGetItem reads up to 100 items from one or more tables.
func (c *Client) BatchGetItem(_ context.Context, in *BatchGetItemInput) (*BatchGetItemOutput, error) {
	if err := checkCapacityMode(in.ReturnConsumedCapacity); err != nil {
		return nil, err
	}

	if len(in.RequestItems) == 0 {
		return nil, validation("BatchGetItem must have some requests set")
	}

	count := 0

	for _, name := range slices.Sorted(maps.Keys(in.RequestItems)) {
		keys := in.RequestItems[name].Keys
		if len(keys) == 0 {
			return nil, validation("The list of keys in RequestItems for BatchGetItem is required: %s has empty list", name)
		}

		count += len(keys)
	}

	if count > MaxBatchGetItems {
		return nil, validation("Too many items requested for the BatchGetItem call")
	}

	emulation := c.batchEmulationFor(tableNames(in.RequestItems)...)
	if emulation.failErr != nil {
		return nil, emulation.failErr
	}

	c.mu.Lock()
	defer c.mu.Unlock()

	out := &BatchGetItemOutput{Responses: map[string][]map[string]*AttributeValue{}, UnprocessedKeys: map[string]KeysAndAttributes{}}
	used := consumptions{}

	for _, name := range slices.Sorted(maps.Keys(in.RequestItems)) {
		req := in.RequestItems[name]

		table, err := c.tableFor(&name)
		if err != nil {
			return nil, err
		}

		ex, err := parseExprs(exprParams{names: req.ExpressionAttributeNames, projection: req.ProjectionExpression, attributesToGet: req.AttributesToGet})
		if err != nil {
			return nil, err
		}

		if err := ex.checkKeyPaths(table); err != nil {
			return nil, err
		}

		items := []map[string]*AttributeValue{}
		seen := map[string]bool{}

		var unprocessed []map[string]*AttributeValue

		for i, raw := range req.Keys {
			key, err := fromWireMap(raw)
			if err != nil {
				return nil, err
			}

			k, err := table.KeyOf(key)
			if err != nil {
				return nil, apiErr(err)
			}

			if seen[k] {
				return nil, validation("Provided list of item keys contains duplicates")
			}

			seen[k] = true

			if emulation.unprocessed(name, i, raw) {
				unprocessed = append(unprocessed, raw)
				continue
			}

			item := table.Get(k)
			used.of(name, false).addItemRead(item, aws.ToBool(req.ConsistentRead), 1)

			if item == nil {
				continue
			}

			if ex.proj != nil {
				item = ex.proj.Apply(item)
			}

			items = append(items, toWireMap(item))
		}

		out.Responses[name] = items

		if len(unprocessed) > 0 {
			req.Keys = unprocessed
			out.UnprocessedKeys[name] = req
		}
	}

	out.ConsumedCapacity = used.report(in.ReturnConsumedCapacity)

	return out, nil
}

package server

import (
	"github.com/keyplan/keyplan/internal/engine/minidyn/types"
)

// Output shapes encoded back to the client. A key DynamoDB always sends
// (Items, Count and ScannedCount of a Query or Scan, a batch's
// UnprocessedItems and UnprocessedKeys) is sent even when empty or zero.

// CreateTableOutput mirrors DynamoDB CreateTableOutput.
type CreateTableOutput struct {
	TableDescription any `json:"TableDescription,omitempty"`
}

// DeleteTableOutput mirrors DynamoDB DeleteTableOutput.
type DeleteTableOutput struct {
	TableDescription any `json:"TableDescription,omitempty"`
}

// UpdateTableOutput mirrors DynamoDB UpdateTableOutput.
type UpdateTableOutput struct {
	TableDescription any `json:"TableDescription,omitempty"`
}

// DescribeTableOutput mirrors DynamoDB DescribeTableOutput.
type DescribeTableOutput struct {
	Table any `json:"Table,omitempty"`
}

// PutItemOutput mirrors DynamoDB PutItemOutput.
type PutItemOutput struct {
	Attributes       map[string]*AttributeValue `json:"Attributes,omitempty"`
	ConsumedCapacity *consumedJSON              `json:"ConsumedCapacity,omitempty"`
}

// DeleteItemOutput mirrors DynamoDB DeleteItemOutput.
type DeleteItemOutput struct {
	Attributes       map[string]*AttributeValue `json:"Attributes,omitempty"`
	ConsumedCapacity *consumedJSON              `json:"ConsumedCapacity,omitempty"`
}

// UpdateItemOutput mirrors DynamoDB UpdateItemOutput.
type UpdateItemOutput struct {
	Attributes       map[string]*AttributeValue `json:"Attributes,omitempty"`
	ConsumedCapacity *consumedJSON              `json:"ConsumedCapacity,omitempty"`
}

// GetItemOutput mirrors DynamoDB GetItemOutput.
type GetItemOutput struct {
	// Item is a pointer so an item projected to nothing is still sent
	// ({}), and a missing one is not.
	Item             *map[string]*AttributeValue `json:"Item,omitempty"`
	ConsumedCapacity *consumedJSON               `json:"ConsumedCapacity,omitempty"`
	// stored is the item as stored, for the server to encode (Item is
	// filled from it for the Client's callers).
	stored map[string]*types.Item
}

// QueryOutput mirrors DynamoDB QueryOutput.
type QueryOutput struct {
	// Items is absent for Select COUNT, and [] for no items.
	Items            *[]map[string]*AttributeValue `json:"Items,omitempty"`
	Count            int32                         `json:"Count"`
	ScannedCount     int32                         `json:"ScannedCount"`
	LastEvaluatedKey map[string]*AttributeValue    `json:"LastEvaluatedKey,omitempty"`
	ConsumedCapacity *consumedJSON                 `json:"ConsumedCapacity,omitempty"`
	page             *page
}

// ScanOutput mirrors DynamoDB ScanOutput.
type ScanOutput struct {
	// Items is absent for Select COUNT, and [] for no items.
	Items            *[]map[string]*AttributeValue `json:"Items,omitempty"`
	Count            int32                         `json:"Count"`
	ScannedCount     int32                         `json:"ScannedCount"`
	LastEvaluatedKey map[string]*AttributeValue    `json:"LastEvaluatedKey,omitempty"`
	ConsumedCapacity *consumedJSON                 `json:"ConsumedCapacity,omitempty"`
	page             *page
}

// BatchWriteItemOutput mirrors DynamoDB BatchWriteItemOutput.
type BatchWriteItemOutput struct {
	UnprocessedItems map[string][]WriteRequest `json:"UnprocessedItems"`
	ConsumedCapacity []consumedJSON            `json:"ConsumedCapacity,omitempty"`
}

// BatchGetItemOutput mirrors DynamoDB BatchGetItemOutput.
type BatchGetItemOutput struct {
	Responses        map[string][]map[string]*AttributeValue `json:"Responses"`
	UnprocessedKeys  map[string]KeysAndAttributes            `json:"UnprocessedKeys"`
	ConsumedCapacity []consumedJSON                          `json:"ConsumedCapacity,omitempty"`
}

// TransactWriteItemsOutput mirrors DynamoDB TransactWriteItemsOutput.
type TransactWriteItemsOutput struct {
	ConsumedCapacity []consumedJSON `json:"ConsumedCapacity,omitempty"`
}

// ItemResponse mirrors DynamoDB ItemResponse.
type ItemResponse struct {
	Item *map[string]*AttributeValue `json:"Item,omitempty"`
}

// TransactGetItemsOutput mirrors DynamoDB TransactGetItemsOutput.
type TransactGetItemsOutput struct {
	Responses        []ItemResponse `json:"Responses,omitempty"`
	ConsumedCapacity []consumedJSON `json:"ConsumedCapacity,omitempty"`
}

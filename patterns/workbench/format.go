package workbench

import "encoding/json"

// The NoSQL Workbench data model (file format version 3.0), as the public
// models of aws-samples/aws-dynamodb-examples write it: a model holds
// tables; a table its key attributes, the other attributes, GSIs, and
// either its items (TableData) or facets, each facet an entity with key
// aliases and its own items.

// Version is the format version keyplan writes.
const Version = "3.0"

// Model is a Workbench data model file.
type Model struct {
	ModelName     string   `json:"ModelName"`
	ModelMetadata Metadata `json:"ModelMetadata"`
	DataModel     []*Table `json:"DataModel"`
}

// Metadata describes the model.
type Metadata struct {
	Author           string `json:"Author"`
	DateCreated      string `json:"DateCreated"`
	DateLastModified string `json:"DateLastModified"`
	Description      string `json:"Description"`
	AWSService       string `json:"AWSService"`
	Version          string `json:"Version"`
}

// Table is one table of the model.
type Table struct {
	TableName              string        `json:"TableName"`
	KeyAttributes          KeyAttributes `json:"KeyAttributes"`
	NonKeyAttributes       []Attribute   `json:"NonKeyAttributes"`
	TableFacets            []*Facet      `json:"TableFacets,omitempty"`
	GlobalSecondaryIndexes []*GSI        `json:"GlobalSecondaryIndexes,omitempty"`
	TableData              []Item        `json:"TableData,omitempty"`
	DataAccess             DataAccess    `json:"DataAccess"`
	BillingMode            string        `json:"BillingMode,omitempty"`
}

// KeyAttributes are a table's or a GSI's key.
type KeyAttributes struct {
	PartitionKey Attribute  `json:"PartitionKey"`
	SortKey      *Attribute `json:"SortKey,omitempty"`
}

// Attribute is a name and a DynamoDB type (S, N, B, BOOL, M, L, SS, NS,
// BS, NULL).
type Attribute struct {
	AttributeName string `json:"AttributeName"`
	AttributeType string `json:"AttributeType"`
}

// Facet is one kind of item: its key aliases (what the base keys mean for
// it), its attributes and its items.
type Facet struct {
	FacetName         string     `json:"FacetName"`
	KeyAttributeAlias KeyAlias   `json:"KeyAttributeAlias"`
	TableData         []Item     `json:"TableData,omitempty"`
	NonKeyAttributes  []string   `json:"NonKeyAttributes"`
	DataAccess        DataAccess `json:"DataAccess"`
}

// KeyAlias names the base keys for a facet.
type KeyAlias struct {
	PartitionKeyAlias string `json:"PartitionKeyAlias"`
	SortKeyAlias      string `json:"SortKeyAlias,omitempty"`
}

// GSI is a global secondary index.
type GSI struct {
	IndexName     string        `json:"IndexName"`
	KeyAttributes KeyAttributes `json:"KeyAttributes"`
	Projection    Projection    `json:"Projection"`
}

// Projection is a GSI's projection.
type Projection struct {
	ProjectionType   string   `json:"ProjectionType"`
	NonKeyAttributes []string `json:"NonKeyAttributes,omitempty"`
}

// DataAccess is Workbench's (empty in every public model) data access
// setting.
type DataAccess struct {
	MySQL json.RawMessage `json:"MySql"`
}

// Item is one item in DynamoDB's JSON form: attribute name to a value
// such as {"S": "x"} or {"N": "1"}.
type Item map[string]map[string]json.RawMessage

package model

import "fmt"

// DynamoDB's limits, each named once (after AWS's "Service, account, and
// table quotas in Amazon DynamoDB"): the checks, the planner, the loader,
// the cost model, the runtime (patterns/dynamo) and the CLI read them
// from here. keyplan's own bounds (MaxDigits, MaxShards, MaxModelBytes, …)
// live beside what they bound.
const (
	// MaxPartitionKeyBytes is DynamoDB's limit on a partition key value.
	MaxPartitionKeyBytes = 2048
	// MaxSortKeyBytes is DynamoDB's limit on a sort key value.
	MaxSortKeyBytes = 1024
	// MaxItemBytes is DynamoDB's item size limit (400 KB).
	MaxItemBytes = 400 * 1024
	// MaxKeyAttributes is how many attributes a GSI's partition key, and
	// its sort key, may each hold (multi-attribute keys: AWS's
	// "Multi-attribute keys pattern").
	MaxKeyAttributes = 4
	// MaxGSIs is DynamoDB's default quota of global secondary indexes per table.
	MaxGSIs = 20
	// MaxLSIs is DynamoDB's limit on local secondary indexes per table
	// (fixed: not a quota that can be raised).
	MaxLSIs = 5
	// MaxItemCollectionBytes is the most an item collection (the items of
	// one partition key value and their LSI entries) may hold in a table
	// with local secondary indexes (10 GB).
	MaxItemCollectionBytes = 10 << 30
	// IndexEntryOverheadBytes is what DynamoDB adds to each index entry's
	// size (its keys and projected attributes) when it sizes an index, an
	// LSI's entries in their item collection among them.
	IndexEntryOverheadBytes = 100
	// MaxProjectedAttributes is the limit on non-key attributes projected
	// into all of a table's indexes together.
	MaxProjectedAttributes = 100
	// NumberDigits is the most significant digits a DynamoDB number holds.
	NumberDigits = 38
	// NumberMinExponent and NumberMaxExponent bound a nonzero DynamoDB
	// number's magnitude: 1E-130 to 9.9999999999999999999999999999999999999E+125.
	NumberMinExponent = 130
	NumberMaxExponent = 125
	// MaxTransactItems is the most items one TransactWriteItems writes.
	MaxTransactItems = 100
	// MaxTransactBytes is the most data one transaction carries (4 MB).
	MaxTransactBytes = 4 << 20
	// MaxBatchWriteItems is the most put or delete requests one
	// BatchWriteItem takes.
	MaxBatchWriteItems = 25
	// PartitionWCU is the write units per second one partition takes.
	PartitionWCU = 1000
	// WriteUnitBytes is the item size one write unit covers (1 KB).
	WriteUnitBytes = 1024
	// ReadUnitBytes is the item size one strongly consistent read unit
	// covers (4 KB; an eventually consistent read costs half).
	ReadUnitBytes = 4096
	// MinNameLength and MaxNameLength bound a table's or an index's name,
	// of the characters NameRule lists.
	MinNameLength = 3
	MaxNameLength = 255
	// MaxAttributeNameLength bounds the name of an attribute a secondary
	// index projects (Projection.NonKeyAttributes) or is keyed by, in
	// characters; other attribute names may reach 64 KB.
	MaxAttributeNameLength = 255
	// MaxBatchGetKeys is the most keys one BatchGetItem reads, and
	// MaxBatchGetBytes the most data it returns (16 MB).
	MaxBatchGetKeys  = 100
	MaxBatchGetBytes = 16 << 20
	// DefaultWarmReadUnits and DefaultWarmWriteUnits are the warm
	// throughput a new on-demand table, and each of its GSIs, serves at
	// once (read and write units per second); a warm throughput below
	// them is refused.
	DefaultWarmReadUnits  = 12000
	DefaultWarmWriteUnits = 4000
	// TableThroughputQuota is an account's default quota of read units,
	// and of write units, per second on one table or GSI (on demand or
	// provisioned; Service Quotas raises it).
	TableThroughputQuota = 40000
	// StrongRegions is how many Regions a multi-Region strongly
	// consistent (MRSC) global table spans: three replicas, or two
	// replicas and a witness.
	StrongRegions = 3
)

// strongRegionSets are the Region sets a multi-Region strongly
// consistent global table may span: its replicas and witness all lie in
// one.
var strongRegionSets = []struct {
	name    string
	regions []string
}{
	{"US", []string{"us-east-1", "us-east-2", "us-west-2"}},
	{"EU", []string{"eu-west-1", "eu-west-2", "eu-west-3", "eu-central-1"}},
	{"AP", []string{"ap-northeast-1", "ap-northeast-2", "ap-northeast-3"}},
}

// StrongRegionSet is the Region set a Region belongs to for multi-Region
// strong consistency, and its Regions (a copy); ok is false for a Region
// in none.
func StrongRegionSet(region string) (name string, regions []string, ok bool) {
	for _, s := range strongRegionSets {
		for _, r := range s.regions {
			if r == region {
				return s.name, append([]string(nil), s.regions...), true
			}
		}
	}
	return "", nil, false
}

// NameRule is DynamoDB's rule for table and index names, for messages
// (ValidTableName checks it).
var NameRule = fmt.Sprintf("%d-%d characters of [a-zA-Z0-9_.-]", MinNameLength, MaxNameLength)

package patterns

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// A live table: what DynamoDB says a deployed table is (DescribeTable,
// DescribeTimeToLive, DescribeContinuousBackups), in keyplan's words, so
// that the core can compare it with a lock (CompareLive) and import a
// model from it (package adopt) without the SDK: patterns/dynamo's
// DescribeLive reads one.

// DynamoDB's words for a table's settings, as DescribeTable writes them.
const (
	// BillingOnDemand and BillingProvisioned are a table's billing modes.
	BillingOnDemand    = "PAY_PER_REQUEST"
	BillingProvisioned = "PROVISIONED"
	// StatusActive is a table's or an index's status once usable.
	StatusActive = "ACTIVE"
	// StreamNewAndOld is the stream view keyplan's handlers read.
	StreamNewAndOld = "NEW_AND_OLD_IMAGES"
	// TableClassStandard is the default table class.
	TableClassStandard = "STANDARD"
)

// LiveTable is a table as DynamoDB describes it.
type LiveTable struct {
	Name string `json:"name"`
	// ARN and Created identify the table: a replaced table has another
	// creation time (docs/adopt.md checks them).
	ARN     string    `json:"arn,omitempty"`
	Created time.Time `json:"created,omitzero"`
	Status  string    `json:"status"`
	// PK and SK are the base key's attributes (SK "" for a partition key
	// alone).
	PK string `json:"partitionKey"`
	SK string `json:"sortKey,omitempty"`
	// Types are the key attributes' DynamoDB types (S, N or B), from the
	// table's AttributeDefinitions.
	Types map[string]string `json:"attributeTypes"`
	// Indexes are the GSIs, Local the LSIs, each sorted by name.
	Indexes []*LiveIndex `json:"indexes"`
	Local   []*LiveIndex `json:"localIndexes,omitempty"`
	// TTL is the time-to-live attribute while TTL is enabled or being
	// enabled ("" otherwise); TTLStatus is DynamoDB's word for it
	// (ENABLED, ENABLING, DISABLING, DISABLED).
	TTL       string `json:"ttl,omitempty"`
	TTLStatus string `json:"ttlStatus,omitempty"`
	// Stream is the stream's view type ("" for no stream).
	Stream string `json:"stream,omitempty"`
	// Billing is BillingOnDemand or BillingProvisioned.
	Billing string `json:"billing"`
	// PointInTimeRecovery is nil when the engine does not say.
	PointInTimeRecovery *bool  `json:"pointInTimeRecovery,omitempty"`
	DeletionProtection  bool   `json:"deletionProtection"`
	TableClass          string `json:"tableClass,omitempty"`
	// Replicas are the global table's other regions, sorted.
	Replicas []string `json:"replicas,omitempty"`
	// Items is DynamoDB's estimate of the item count (updated about
	// every six hours).
	Items int64 `json:"items"`
}

// LiveIndex is one secondary index as DynamoDB describes it.
type LiveIndex struct {
	Name string `json:"name"`
	// PartitionKeys and SortKeys are its key attributes in order (one
	// each for a single-attribute key; a GSI may have up to four a side).
	PartitionKeys    []string   `json:"partitionKeys"`
	SortKeys         []string   `json:"sortKeys,omitempty"`
	Projection       Projection `json:"projection"`
	NonKeyAttributes []string   `json:"nonKeyAttributes,omitempty"`
	// Status is ACTIVE, CREATING, UPDATING or DELETING (an LSI has none:
	// ""); Backfilling is true while DynamoDB fills a new GSI.
	Status      string `json:"status,omitempty"`
	Backfilling bool   `json:"backfilling,omitempty"`
}

// Index returns the named GSI, or nil.
func (t *LiveTable) Index(name string) *LiveIndex {
	for _, ix := range t.Indexes {
		if ix.Name == name {
			return ix
		}
	}
	return nil
}

// KeyText is the index's key as the reports show it: "GSI1PK/GSI1SK", or
// "a, b / c" for keys of several attributes ("GSI1PK" alone without a
// sort key).
func (ix *LiveIndex) KeyText() string {
	if len(ix.PartitionKeys) <= 1 && len(ix.SortKeys) <= 1 {
		return strings.Join(append(slices.Clone(ix.PartitionKeys), ix.SortKeys...), "/")
	}
	s := strings.Join(ix.PartitionKeys, ", ")
	if len(ix.SortKeys) > 0 {
		s += " / " + strings.Join(ix.SortKeys, ", ")
	}
	return s
}

// ProjectionText renders the projection as "INCLUDE (a, b)".
func (ix *LiveIndex) ProjectionText() string {
	return (&Index{Projection: ix.Projection, NonKeyAttributes: ix.NonKeyAttributes}).ProjectionText()
}

// Adopted is what a lock records of a table keyplan import took over
// (Lock.Adopted): the settings its model does not hold, as the table had
// them, which keyplan diff --live compares and the construct's Adopt
// reproduces; and what the table has that the design cannot hold.
type Adopted struct {
	// Billing is BillingOnDemand or BillingProvisioned.
	Billing string `json:"billing"`
	// Stream is the stream's view type ("" for none).
	Stream string `json:"stream,omitempty"`
	// PointInTimeRecovery and DeletionProtection are as the table had them.
	PointInTimeRecovery bool `json:"pointInTimeRecovery"`
	DeletionProtection  bool `json:"deletionProtection"`
	// TableClass is STANDARD or STANDARD_INFREQUENT_ACCESS.
	TableClass string `json:"tableClass,omitempty"`
	// Replicas are the global table's other regions, sorted.
	Replicas []string `json:"replicas,omitempty"`
	// Unheld says, one line each, what the table has that the model
	// cannot hold (an LSI, a GSI keyed otherwise than keyplan keys one):
	// the construct refuses to adopt the table while it is there.
	Unheld []string `json:"unheld,omitempty"`
}

// AdoptedOf records a live table's settings (Unheld left to the caller).
func AdoptedOf(t *LiveTable) *Adopted {
	a := &Adopted{Billing: t.Billing, Stream: t.Stream, DeletionProtection: t.DeletionProtection,
		TableClass: t.TableClass, Replicas: slices.Clone(t.Replicas)}
	if a.TableClass == "" {
		a.TableClass = TableClassStandard
	}
	if t.PointInTimeRecovery != nil {
		a.PointInTimeRecovery = *t.PointInTimeRecovery
	}
	return a
}

// valid checks a record read from a lock file.
func (a *Adopted) valid() error {
	switch {
	case a.Billing != BillingOnDemand && a.Billing != BillingProvisioned:
		return fmt.Errorf("adopted: billing %q: expected %s or %s", a.Billing, BillingOnDemand, BillingProvisioned)
	case !slices.Contains([]string{"", "KEYS_ONLY", "NEW_IMAGE", "OLD_IMAGE", StreamNewAndOld}, a.Stream):
		return fmt.Errorf("adopted: stream %q: expected KEYS_ONLY, NEW_IMAGE, OLD_IMAGE or %s", a.Stream, StreamNewAndOld)
	case !slices.Contains([]string{"", TableClassStandard, "STANDARD_INFREQUENT_ACCESS"}, a.TableClass):
		return fmt.Errorf("adopted: table class %q: expected %s or STANDARD_INFREQUENT_ACCESS", a.TableClass, TableClassStandard)
	}
	for _, r := range a.Replicas {
		if !regionName.MatchString(r) {
			return fmt.Errorf("adopted: replica %q: expected a region like eu-west-1", r)
		}
	}
	return nil
}

// LiveItem is an item as a table holds it, attribute by attribute.
type LiveItem map[string]LiveValue

// LiveValue is one attribute's value: its DynamoDB type (S, N, B, BOOL,
// NULL, M, L, SS, NS, BS) and, for S, N, B and BOOL, its value as text
// (a number as DynamoDB writes it, binary in base64, a bool as true or
// false).
type LiveValue struct {
	Type string `json:"type"`
	Text string `json:"text,omitempty"`
}

package patterns

import (
	"io"

	"github.com/keyplan/keyplan/patterns/model"
)

// The model moved to package model (patterns/model): its types, the
// loader and its errors, validation, the attribute types and their key
// encoding, key templates, DynamoDB's limits and the key names. These
// aliases and forwarding functions keep code written against patterns
// compiling, and meaning the same, for one release: each is marked
// Deprecated, and they go no earlier than the next minor release after
// the one that marked them (docs/compatibility.md, "What moved"). New
// code, keyplan's own included, imports patterns/model.
// A type here is the model's type itself (an alias), so values pass
// between the two packages unconverted, and its methods are the model's.

type (
	// Deprecated: use model.AttrType.
	AttrType = model.AttrType
	// Deprecated: use model.Attribute.
	Attribute = model.Attribute
	// Deprecated: use model.CondOp.
	CondOp = model.CondOp
	// Deprecated: use model.Condition.
	Condition = model.Condition
	// Deprecated: use model.Consistency.
	Consistency = model.Consistency
	// Deprecated: use model.Const.
	Const = model.Const
	// Deprecated: use model.Copy.
	Copy = model.Copy
	// Deprecated: use model.Counter.
	Counter = model.Counter
	// Deprecated: use model.Derived.
	Derived = model.Derived
	// Deprecated: use model.Entity.
	Entity = model.Entity
	// Deprecated: use model.Error.
	Error = model.Error
	// Deprecated: use model.ExampleItem.
	ExampleItem = model.ExampleItem
	// Deprecated: use model.Examples.
	Examples = model.Examples
	// Deprecated: use model.Expectation.
	Expectation = model.Expectation
	// Deprecated: use model.Facet.
	Facet = model.Facet
	// Deprecated: use model.FailsKind.
	FailsKind = model.FailsKind
	// Deprecated: use model.FailsSpec.
	FailsSpec = model.FailsSpec
	// Deprecated: use model.Increment.
	Increment = model.Increment
	// Deprecated: use model.IndexKeys.
	IndexKeys = model.IndexKeys
	// Deprecated: use model.KeySpec.
	KeySpec = model.KeySpec
	// Deprecated: use model.Model.
	Model = model.Model
	// Deprecated: use model.Needs.
	Needs = model.Needs
	// Deprecated: use model.Pattern.
	Pattern = model.Pattern
	// Deprecated: use model.Pos.
	Pos = model.Pos
	// Deprecated: use model.Principal.
	Principal = model.Principal
	// Deprecated: use model.ReadOp.
	ReadOp = model.ReadOp
	// Deprecated: use model.ScalarType.
	ScalarType = model.ScalarType
	// Deprecated: use model.Segment.
	Segment = model.Segment
	// Deprecated: use model.Step.
	Step = model.Step
	// Deprecated: use model.Template.
	Template = model.Template
	// Deprecated: use model.ValueError.
	ValueError = model.ValueError
	// Deprecated: use model.Write.
	Write = model.Write
	// Deprecated: use model.WriteOp.
	WriteOp = model.WriteOp
)

const (
	// Deprecated: use model.BaseIndex.
	BaseIndex = model.BaseIndex
	// Deprecated: use model.BackupNone.
	BackupNone = model.BackupNone
	// Deprecated: use model.NeedOnDemand.
	NeedOnDemand = model.NeedOnDemand
	// Deprecated: use model.NeedProvisioned.
	NeedProvisioned = model.NeedProvisioned
	// Deprecated: use model.CondAbsent.
	CondAbsent = model.CondAbsent
	// Deprecated: use model.CondEq.
	CondEq = model.CondEq
	// Deprecated: use model.CondExists.
	CondExists = model.CondExists
	// Deprecated: use model.CondGe.
	CondGe = model.CondGe
	// Deprecated: use model.CondGt.
	CondGt = model.CondGt
	// Deprecated: use model.CondIn.
	CondIn = model.CondIn
	// Deprecated: use model.CondLe.
	CondLe = model.CondLe
	// Deprecated: use model.CondLt.
	CondLt = model.CondLt
	// Deprecated: use model.CondNe.
	CondNe = model.CondNe
	// Deprecated: use model.ConsistencyEventual.
	ConsistencyEventual = model.ConsistencyEventual
	// Deprecated: use model.ConsistencyStrong.
	ConsistencyStrong = model.ConsistencyStrong
	// Deprecated: use model.DefaultElements.
	DefaultElements = model.DefaultElements
	// Deprecated: use model.DefaultNumberBytes.
	DefaultNumberBytes = model.DefaultNumberBytes
	// Deprecated: use model.DefaultPage.
	DefaultPage = model.DefaultPage
	// Deprecated: use model.DefaultStringBytes.
	DefaultStringBytes = model.DefaultStringBytes
	// Deprecated: use model.DefaultWarmReadUnits.
	DefaultWarmReadUnits = model.DefaultWarmReadUnits
	// Deprecated: use model.DefaultWarmWriteUnits.
	DefaultWarmWriteUnits = model.DefaultWarmWriteUnits
	// Deprecated: use model.ExpiredHide.
	ExpiredHide = model.ExpiredHide
	// Deprecated: use model.ExpiredInclude.
	ExpiredInclude = model.ExpiredInclude
	// Deprecated: use model.ExpiredShare.
	ExpiredShare = model.ExpiredShare
	// Deprecated: use model.FacetMaxLength.
	FacetMaxLength = model.FacetMaxLength
	// Deprecated: use model.FacetRange.
	FacetRange = model.FacetRange
	// Deprecated: use model.FacetS3.
	FacetS3 = model.FacetS3
	// Deprecated: use model.FacetSize.
	FacetSize = model.FacetSize
	// Deprecated: use model.FacetValues.
	FacetValues = model.FacetValues
	// Deprecated: use model.FailsAbsent.
	FailsAbsent = model.FailsAbsent
	// Deprecated: use model.FailsAttribute.
	FailsAttribute = model.FailsAttribute
	// Deprecated: use model.FailsCondition.
	FailsCondition = model.FailsCondition
	// Deprecated: use model.FailsExists.
	FailsExists = model.FailsExists
	// Deprecated: use model.FailsText.
	FailsText = model.FailsText
	// Deprecated: use model.FailsUnique.
	FailsUnique = model.FailsUnique
	// Deprecated: use model.FailsVersion.
	FailsVersion = model.FailsVersion
	// Deprecated: use model.IfAbsent.
	IfAbsent = model.IfAbsent
	// Deprecated: use model.IfPresent.
	IfPresent = model.IfPresent
	// Deprecated: use model.IndexEntryOverheadBytes.
	IndexEntryOverheadBytes = model.IndexEntryOverheadBytes
	// Deprecated: use model.IndexKeysAuto.
	IndexKeysAuto = model.IndexKeysAuto
	// Deprecated: use model.IndexKeysNative.
	IndexKeysNative = model.IndexKeysNative
	// Deprecated: use model.IndexKeysSynthetic.
	IndexKeysSynthetic = model.IndexKeysSynthetic
	// Deprecated: use model.MaxAttributeNameLength.
	MaxAttributeNameLength = model.MaxAttributeNameLength
	// Deprecated: use model.MaxAttributes.
	MaxAttributes = model.MaxAttributes
	// Deprecated: use model.MaxBatchGetBytes.
	MaxBatchGetBytes = model.MaxBatchGetBytes
	// Deprecated: use model.MaxBatchGetKeys.
	MaxBatchGetKeys = model.MaxBatchGetKeys
	// Deprecated: use model.MaxBatchWriteItems.
	MaxBatchWriteItems = model.MaxBatchWriteItems
	// Deprecated: use model.MaxCounterShards.
	MaxCounterShards = model.MaxCounterShards
	// Deprecated: use model.MaxDigits.
	MaxDigits = model.MaxDigits
	// Deprecated: use model.MaxEntities.
	MaxEntities = model.MaxEntities
	// Deprecated: use model.MaxGSIs.
	MaxGSIs = model.MaxGSIs
	// Deprecated: use model.MaxItemBytes.
	MaxItemBytes = model.MaxItemBytes
	// Deprecated: use model.MaxItemCollectionBytes.
	MaxItemCollectionBytes = model.MaxItemCollectionBytes
	// Deprecated: use model.MaxKeyAttributes.
	MaxKeyAttributes = model.MaxKeyAttributes
	// Deprecated: use model.MaxLSIs.
	MaxLSIs = model.MaxLSIs
	// Deprecated: use model.MaxModelBytes.
	MaxModelBytes = model.MaxModelBytes
	// Deprecated: use model.MaxName.
	MaxName = model.MaxName
	// Deprecated: use model.MaxNameLength.
	MaxNameLength = model.MaxNameLength
	// Deprecated: use model.MaxObjectBytes.
	MaxObjectBytes = model.MaxObjectBytes
	// Deprecated: use model.MaxPartitionKeyBytes.
	MaxPartitionKeyBytes = model.MaxPartitionKeyBytes
	// Deprecated: use model.MaxPatterns.
	MaxPatterns = model.MaxPatterns
	// Deprecated: use model.MaxProjectedAttributes.
	MaxProjectedAttributes = model.MaxProjectedAttributes
	// Deprecated: use model.MaxRate.
	MaxRate = model.MaxRate
	// Deprecated: use model.MaxShards.
	MaxShards = model.MaxShards
	// Deprecated: use model.MaxSortKeyBytes.
	MaxSortKeyBytes = model.MaxSortKeyBytes
	// Deprecated: use model.MaxTransactBytes.
	MaxTransactBytes = model.MaxTransactBytes
	// Deprecated: use model.MaxTransactItems.
	MaxTransactItems = model.MaxTransactItems
	// Deprecated: use model.MinHeadroom.
	MinHeadroom = model.MinHeadroom
	// Deprecated: use model.MinNameLength.
	MinNameLength = model.MinNameLength
	// Deprecated: use model.NumberDigits.
	NumberDigits = model.NumberDigits
	// Deprecated: use model.NumberMaxExponent.
	NumberMaxExponent = model.NumberMaxExponent
	// Deprecated: use model.NumberMinExponent.
	NumberMinExponent = model.NumberMinExponent
	// Deprecated: use model.PartitionWCU.
	PartitionWCU = model.PartitionWCU
	// Deprecated: use model.ReadGet.
	ReadGet = model.ReadGet
	// Deprecated: use model.ReadQuery.
	ReadQuery = model.ReadQuery
	// Deprecated: use model.ReadUnitBytes.
	ReadUnitBytes = model.ReadUnitBytes
	// Deprecated: use model.Sep.
	Sep = model.Sep
	// Deprecated: use model.StoreS3.
	StoreS3 = model.StoreS3
	// Deprecated: use model.StrongRegions.
	StrongRegions = model.StrongRegions
	// Deprecated: use model.TablePK.
	TablePK = model.TablePK
	// Deprecated: use model.TableSK.
	TableSK = model.TableSK
	// Deprecated: use model.TableThroughputQuota.
	TableThroughputQuota = model.TableThroughputQuota
	// Deprecated: use model.TimeLayout.
	TimeLayout = model.TimeLayout
	// Deprecated: use model.TypeBinary.
	TypeBinary = model.TypeBinary
	// Deprecated: use model.TypeBool.
	TypeBool = model.TypeBool
	// Deprecated: use model.TypeCounter.
	TypeCounter = model.TypeCounter
	// Deprecated: use model.TypeList.
	TypeList = model.TypeList
	// Deprecated: use model.TypeMap.
	TypeMap = model.TypeMap
	// Deprecated: use model.TypeNumber.
	TypeNumber = model.TypeNumber
	// Deprecated: use model.TypeSet.
	TypeSet = model.TypeSet
	// Deprecated: use model.TypeString.
	TypeString = model.TypeString
	// Deprecated: use model.TypeTTL.
	TypeTTL = model.TypeTTL
	// Deprecated: use model.TypeTime.
	TypeTime = model.TypeTime
	// Deprecated: use model.WriteBatch.
	WriteBatch = model.WriteBatch
	// Deprecated: use model.WriteCheck.
	WriteCheck = model.WriteCheck
	// Deprecated: use model.WriteDelete.
	WriteDelete = model.WriteDelete
	// Deprecated: use model.WritePut.
	WritePut = model.WritePut
	// Deprecated: use model.WriteTransact.
	WriteTransact = model.WriteTransact
	// Deprecated: use model.WriteUnitBytes.
	WriteUnitBytes = model.WriteUnitBytes
	// Deprecated: use model.WriteUpdate.
	WriteUpdate = model.WriteUpdate
)

var (
	// Deprecated: use model.ErrInvalidModel.
	ErrInvalidModel = model.ErrInvalidModel
	// Deprecated: use model.ErrValue.
	ErrValue = model.ErrValue
	// Deprecated: use model.NameRule.
	NameRule = model.NameRule
)

// CondOps is [model.CondOps].
//
// Deprecated: use model.CondOps.
func CondOps() []model.CondOp { return model.CondOps() }

// DynamoNoun is [model.DynamoNoun].
//
// Deprecated: use model.DynamoNoun.
func DynamoNoun(t string) string { return model.DynamoNoun(t) }

// Float is [model.Float].
//
// Deprecated: use model.Float.
func Float(v any) (float64, error) { return model.Float(v) }

// IndexKeyNames is [model.IndexKeyNames].
//
// Deprecated: use model.IndexKeyNames.
func IndexKeyNames(index string) (pk string, sk string) { return model.IndexKeyNames(index) }

// Load is [model.Load].
//
// Deprecated: use model.Load.
func Load(path string) (*model.Model, error) { return model.Load(path) }

// MapPath is [model.MapPath].
//
// Deprecated: use model.MapPath.
func MapPath(s string) (attr string, key string, ok bool) { return model.MapPath(s) }

// ObjectKeyBytes is [model.ObjectKeyBytes].
//
// Deprecated: use model.ObjectKeyBytes.
func ObjectKeyBytes(entity string, attr string) int { return model.ObjectKeyBytes(entity, attr) }

// ObjectKeyRandomDigits is [model.ObjectKeyRandomDigits].
//
// Deprecated: use model.ObjectKeyRandomDigits.
func ObjectKeyRandomDigits() int { return model.ObjectKeyRandomDigits() }

// Parse is [model.Parse].
//
// Deprecated: use model.Parse.
func Parse(file string, data []byte) (*model.Model, error) { return model.Parse(file, data) }

// ParseFails is [model.ParseFails].
//
// Deprecated: use model.ParseFails.
func ParseFails(s string) model.FailsSpec { return model.ParseFails(s) }

// ParseTemplate is [model.ParseTemplate].
//
// Deprecated: use model.ParseTemplate.
func ParseTemplate(s string) (model.Template, error) { return model.ParseTemplate(s) }

// Printable is [model.Printable].
//
// Deprecated: use model.Printable.
func Printable(s string) string { return model.Printable(s) }

// PrintableJSON is [model.PrintableJSON].
//
// Deprecated: use model.PrintableJSON.
func PrintableJSON(b []byte) []byte { return model.PrintableJSON(b) }

// ReadModel is [model.ReadModel].
//
// Deprecated: use model.ReadModel.
func ReadModel(file string, r io.Reader) (*model.Model, error) { return model.ReadModel(file, r) }

// ReservedAttr is [model.ReservedAttr].
//
// Deprecated: use model.ReservedAttr.
func ReservedAttr(name string) bool { return model.ReservedAttr(name) }

// SameCondition is [model.SameCondition].
//
// Deprecated: use model.SameCondition.
func SameCondition(a *model.Condition, b *model.Condition) bool { return model.SameCondition(a, b) }

// Scalar is [model.Scalar].
//
// Deprecated: use model.Scalar.
func Scalar(t model.AttrType) *model.ScalarType { return model.Scalar(t) }

// ScalarTypes is [model.ScalarTypes].
//
// Deprecated: use model.ScalarTypes.
func ScalarTypes() []*model.ScalarType { return model.ScalarTypes() }

// StrongRegionSet is [model.StrongRegionSet].
//
// Deprecated: use model.StrongRegionSet.
func StrongRegionSet(region string) (name string, regions []string, ok bool) {
	return model.StrongRegionSet(region)
}

// Tag is [model.Tag].
//
// Deprecated: use model.Tag.
func Tag(entity string) string { return model.Tag(entity) }

// TagOf is [model.TagOf].
//
// Deprecated: use model.TagOf.
func TagOf(e *model.Entity) string { return model.TagOf(e) }

// Unprintable is [model.Unprintable].
//
// Deprecated: use model.Unprintable.
func Unprintable(r rune) bool { return model.Unprintable(r) }

// ValidIndexKeys is [model.ValidIndexKeys].
//
// Deprecated: use model.ValidIndexKeys.
func ValidIndexKeys(k string) bool { return model.ValidIndexKeys(k) }

// ValidTableName is [model.ValidTableName].
//
// Deprecated: use model.ValidTableName.
func ValidTableName(s string) bool { return model.ValidTableName(s) }

package patterns

import (
	"io"

	"github.com/keyplan/keyplan/patterns/model"
)

// The model moved to package model (patterns/model): its types, the
// loader and its errors, validation, the attribute types and their key
// encoding, key templates, DynamoDB's limits and the key names. These
// aliases and forwarding functions keep code written against patterns
// compiling, and meaning the same, for one release: they go no earlier
// than the next minor release after the one that marks them Deprecated
// (docs/compatibility.md, "What moved"). New code imports patterns/model.
// A type here is the model's type itself (an alias), so values pass
// between the two packages unconverted, and its methods are the model's.

type (
	AttrType    = model.AttrType
	Attribute   = model.Attribute
	CondOp      = model.CondOp
	Condition   = model.Condition
	Consistency = model.Consistency
	Const       = model.Const
	Copy        = model.Copy
	Counter     = model.Counter
	Derived     = model.Derived
	Entity      = model.Entity
	Error       = model.Error
	ExampleItem = model.ExampleItem
	Examples    = model.Examples
	Expectation = model.Expectation
	Facet       = model.Facet
	FailsKind   = model.FailsKind
	FailsSpec   = model.FailsSpec
	Increment   = model.Increment
	IndexKeys   = model.IndexKeys
	KeySpec     = model.KeySpec
	Model       = model.Model
	Needs       = model.Needs
	Pattern     = model.Pattern
	Pos         = model.Pos
	Principal   = model.Principal
	ReadOp      = model.ReadOp
	ScalarType  = model.ScalarType
	Segment     = model.Segment
	Step        = model.Step
	Template    = model.Template
	ValueError  = model.ValueError
	Write       = model.Write
	WriteOp     = model.WriteOp
)

const (
	BaseIndex               = model.BaseIndex
	BackupNone              = model.BackupNone
	NeedOnDemand            = model.NeedOnDemand
	NeedProvisioned         = model.NeedProvisioned
	CondAbsent              = model.CondAbsent
	CondEq                  = model.CondEq
	CondExists              = model.CondExists
	CondGe                  = model.CondGe
	CondGt                  = model.CondGt
	CondIn                  = model.CondIn
	CondLe                  = model.CondLe
	CondLt                  = model.CondLt
	CondNe                  = model.CondNe
	ConsistencyEventual     = model.ConsistencyEventual
	ConsistencyStrong       = model.ConsistencyStrong
	DefaultElements         = model.DefaultElements
	DefaultNumberBytes      = model.DefaultNumberBytes
	DefaultPage             = model.DefaultPage
	DefaultStringBytes      = model.DefaultStringBytes
	DefaultWarmReadUnits    = model.DefaultWarmReadUnits
	DefaultWarmWriteUnits   = model.DefaultWarmWriteUnits
	ExpiredHide             = model.ExpiredHide
	ExpiredInclude          = model.ExpiredInclude
	ExpiredShare            = model.ExpiredShare
	FacetMaxLength          = model.FacetMaxLength
	FacetRange              = model.FacetRange
	FacetS3                 = model.FacetS3
	FacetSize               = model.FacetSize
	FacetValues             = model.FacetValues
	FailsAbsent             = model.FailsAbsent
	FailsAttribute          = model.FailsAttribute
	FailsCondition          = model.FailsCondition
	FailsExists             = model.FailsExists
	FailsText               = model.FailsText
	FailsUnique             = model.FailsUnique
	FailsVersion            = model.FailsVersion
	IfAbsent                = model.IfAbsent
	IfPresent               = model.IfPresent
	IndexEntryOverheadBytes = model.IndexEntryOverheadBytes
	IndexKeysAuto           = model.IndexKeysAuto
	IndexKeysNative         = model.IndexKeysNative
	IndexKeysSynthetic      = model.IndexKeysSynthetic
	MaxAttributeNameLength  = model.MaxAttributeNameLength
	MaxAttributes           = model.MaxAttributes
	MaxBatchGetBytes        = model.MaxBatchGetBytes
	MaxBatchGetKeys         = model.MaxBatchGetKeys
	MaxBatchWriteItems      = model.MaxBatchWriteItems
	MaxCounterShards        = model.MaxCounterShards
	MaxDigits               = model.MaxDigits
	MaxEntities             = model.MaxEntities
	MaxGSIs                 = model.MaxGSIs
	MaxItemBytes            = model.MaxItemBytes
	MaxItemCollectionBytes  = model.MaxItemCollectionBytes
	MaxKeyAttributes        = model.MaxKeyAttributes
	MaxLSIs                 = model.MaxLSIs
	MaxModelBytes           = model.MaxModelBytes
	MaxName                 = model.MaxName
	MaxNameLength           = model.MaxNameLength
	MaxObjectBytes          = model.MaxObjectBytes
	MaxPartitionKeyBytes    = model.MaxPartitionKeyBytes
	MaxPatterns             = model.MaxPatterns
	MaxProjectedAttributes  = model.MaxProjectedAttributes
	MaxRate                 = model.MaxRate
	MaxShards               = model.MaxShards
	MaxSortKeyBytes         = model.MaxSortKeyBytes
	MaxTransactBytes        = model.MaxTransactBytes
	MaxTransactItems        = model.MaxTransactItems
	MinHeadroom             = model.MinHeadroom
	MinNameLength           = model.MinNameLength
	NumberDigits            = model.NumberDigits
	NumberMaxExponent       = model.NumberMaxExponent
	NumberMinExponent       = model.NumberMinExponent
	PartitionWCU            = model.PartitionWCU
	ReadGet                 = model.ReadGet
	ReadQuery               = model.ReadQuery
	ReadUnitBytes           = model.ReadUnitBytes
	Sep                     = model.Sep
	StoreS3                 = model.StoreS3
	StrongRegions           = model.StrongRegions
	TablePK                 = model.TablePK
	TableSK                 = model.TableSK
	TableThroughputQuota    = model.TableThroughputQuota
	TimeLayout              = model.TimeLayout
	TypeBinary              = model.TypeBinary
	TypeBool                = model.TypeBool
	TypeCounter             = model.TypeCounter
	TypeList                = model.TypeList
	TypeMap                 = model.TypeMap
	TypeNumber              = model.TypeNumber
	TypeSet                 = model.TypeSet
	TypeString              = model.TypeString
	TypeTTL                 = model.TypeTTL
	TypeTime                = model.TypeTime
	WriteBatch              = model.WriteBatch
	WriteCheck              = model.WriteCheck
	WriteDelete             = model.WriteDelete
	WritePut                = model.WritePut
	WriteTransact           = model.WriteTransact
	WriteUnitBytes          = model.WriteUnitBytes
	WriteUpdate             = model.WriteUpdate
)

var (
	ErrInvalidModel = model.ErrInvalidModel
	ErrValue        = model.ErrValue
	NameRule        = model.NameRule
)

// CondOps is [model.CondOps].
func CondOps() []model.CondOp { return model.CondOps() }

// DynamoNoun is [model.DynamoNoun].
func DynamoNoun(t string) string { return model.DynamoNoun(t) }

// Float is [model.Float].
func Float(v any) (float64, error) { return model.Float(v) }

// IndexKeyNames is [model.IndexKeyNames].
func IndexKeyNames(index string) (pk string, sk string) { return model.IndexKeyNames(index) }

// Load is [model.Load].
func Load(path string) (*model.Model, error) { return model.Load(path) }

// MapPath is [model.MapPath].
func MapPath(s string) (attr string, key string, ok bool) { return model.MapPath(s) }

// ObjectKeyBytes is [model.ObjectKeyBytes].
func ObjectKeyBytes(entity string, attr string) int { return model.ObjectKeyBytes(entity, attr) }

// ObjectKeyRandomDigits is [model.ObjectKeyRandomDigits].
func ObjectKeyRandomDigits() int { return model.ObjectKeyRandomDigits() }

// Parse is [model.Parse].
func Parse(file string, data []byte) (*model.Model, error) { return model.Parse(file, data) }

// ParseFails is [model.ParseFails].
func ParseFails(s string) model.FailsSpec { return model.ParseFails(s) }

// ParseTemplate is [model.ParseTemplate].
func ParseTemplate(s string) (model.Template, error) { return model.ParseTemplate(s) }

// Printable is [model.Printable].
func Printable(s string) string { return model.Printable(s) }

// PrintableJSON is [model.PrintableJSON].
func PrintableJSON(b []byte) []byte { return model.PrintableJSON(b) }

// ReadModel is [model.ReadModel].
func ReadModel(file string, r io.Reader) (*model.Model, error) { return model.ReadModel(file, r) }

// ReservedAttr is [model.ReservedAttr].
func ReservedAttr(name string) bool { return model.ReservedAttr(name) }

// SameCondition is [model.SameCondition].
func SameCondition(a *model.Condition, b *model.Condition) bool { return model.SameCondition(a, b) }

// Scalar is [model.Scalar].
func Scalar(t model.AttrType) *model.ScalarType { return model.Scalar(t) }

// ScalarTypes is [model.ScalarTypes].
func ScalarTypes() []*model.ScalarType { return model.ScalarTypes() }

// StrongRegionSet is [model.StrongRegionSet].
func StrongRegionSet(region string) (name string, regions []string, ok bool) {
	return model.StrongRegionSet(region)
}

// Tag is [model.Tag].
func Tag(entity string) string { return model.Tag(entity) }

// TagOf is [model.TagOf].
func TagOf(e *model.Entity) string { return model.TagOf(e) }

// Unprintable is [model.Unprintable].
func Unprintable(r rune) bool { return model.Unprintable(r) }

// ValidIndexKeys is [model.ValidIndexKeys].
func ValidIndexKeys(k string) bool { return model.ValidIndexKeys(k) }

// ValidTableName is [model.ValidTableName].
func ValidTableName(s string) bool { return model.ValidTableName(s) }

package dynamo

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/keyplan/keyplan/patterns"
	"github.com/keyplan/keyplan/patterns/model"
)

// Client is the part of *dynamodb.Client the runtime uses.
type Client interface {
	GetItem(ctx context.Context, in *dynamodb.GetItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error)
	Query(ctx context.Context, in *dynamodb.QueryInput, opts ...func(*dynamodb.Options)) (*dynamodb.QueryOutput, error)
	PutItem(ctx context.Context, in *dynamodb.PutItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error)
	UpdateItem(ctx context.Context, in *dynamodb.UpdateItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error)
	DeleteItem(ctx context.Context, in *dynamodb.DeleteItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.DeleteItemOutput, error)
	TransactWriteItems(ctx context.Context, in *dynamodb.TransactWriteItemsInput, opts ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error)
	BatchWriteItem(ctx context.Context, in *dynamodb.BatchWriteItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.BatchWriteItemOutput, error)
}

// RefusedItemReader is a Client that says whether its engine leaves out
// the item a refused write found though asked for it
// (ReturnValuesOnConditionCheckFailure ALL_OLD): dynalite does, and the
// client engine.Connect makes says so (engine.OldItemOnConditionFailure).
// Only then does the runtime read the item (GetItem) to explain the
// refusal. Any other Client is taken to be DynamoDB's: a refusal without
// an item says there was none, and no read is made (a write pattern's
// grant holds no GetItem).
type RefusedItemReader interface {
	ReadsRefusedItems(ctx context.Context) bool
}

// Values are an entity's attribute values by name: string, integer,
// float64, json.Number, bool, time.Time (or RFC 3339 text for times).
type Values map[string]any

// Params are a pattern's equality values (its where attributes).
type Params map[string]any

// Table builds keys, items and requests for one table from its design.
type Table struct {
	d      *patterns.Design
	m      *model.Model
	name   string
	client Client
	unique map[string][]*model.Pattern // entity -> its unique alternate keys
	plans  map[string]*entityPlan
	// nativeAttrs are the attributes native indexes are keyed on, and
	// nativeConds the key conditions of the patterns they serve
	// (native.go).
	nativeAttrs map[string]nativeKeyAttr
	nativeConds map[string]*patterns.NativeCondition
	// renamed are, per entity, the attributes renamed with renamedFrom:
	// new name → old name.
	renamed map[string]map[string]string

	mu          sync.Mutex
	projections map[string]expression.ProjectionBuilder
	writeParams map[string]map[string]bool // write pattern -> its parameters
	shapes      map[string]*shapeExpr      // built condition and update expressions

	// rollout is set during a migration (NewRollout).
	rollout *rollout
	// now is the clock reads hide expired items by (WithClock).
	now func() time.Time
	// batchBackoff is WriteBatch's first wait before a retry.
	batchBackoff time.Duration
	// readsRefused says whether the engine leaves out the item a refused
	// write found (RefusedItemReader; nil: it returns it, as DynamoDB).
	readsRefused func(context.Context) bool
	// objects keeps the values of store: s3 attributes (WithObjects).
	objects ObjectStore
}

// Option sets up a Table (New, NewRollout).
type Option func(*Table)

// WithClock sets the clock reads hide expired items by (time.Now by
// default): an item whose TTL attribute is before now (in epoch seconds)
// is not returned, though DynamoDB deletes it only later. Tests move it.
func WithClock(now func() time.Time) Option {
	return func(t *Table) {
		if now != nil {
			t.now = now
		}
	}
}

// Options are the options the table was made with, for tables made from
// it (a rollout's other design): its clock, its object store
// (WithObjects) and what it knows of its engine.
func (t *Table) Options() []Option {
	keep := func(o *Table) {
		if t.readsRefused != nil {
			o.readsRefused = t.readsRefused
		}
		if t.objects != nil {
			o.objects = t.objects
		}
	}
	return []Option{WithClock(t.now), keep}
}

// New returns the runtime for a design's table named name (the physical
// name, e.g. from TableNameEnv). client may be nil for the pure builders.
func New(d *patterns.Design, client Client, name string, opts ...Option) *Table {
	t := &Table{d: d, m: d.Model(), name: name, client: client, unique: map[string][]*model.Pattern{},
		plans: map[string]*entityPlan{}, projections: map[string]expression.ProjectionBuilder{}, writeParams: map[string]map[string]bool{}, shapes: map[string]*shapeExpr{},
		batchBackoff: batchBackoff, now: time.Now}
	if r, ok := client.(RefusedItemReader); ok {
		t.readsRefused = r.ReadsRefusedItems
	}
	for _, o := range opts {
		o(t)
	}
	for _, ek := range d.Entities {
		t.plans[ek.Name] = compile(d, ek)
	}
	t.nativeIndexes()
	for _, e := range t.m.Entities {
		for _, a := range e.Attributes {
			if a.RenamedFrom != "" && e.Attr(a.RenamedFrom) == nil {
				if t.renamed == nil {
					t.renamed = map[string]map[string]string{}
				}
				if t.renamed[e.Name] == nil {
					t.renamed[e.Name] = map[string]string{}
				}
				t.renamed[e.Name][a.Name] = a.RenamedFrom
			}
		}
	}
	for _, p := range t.m.Patterns {
		if p.Unique && len(p.Entities) == 1 && !slices.ContainsFunc(t.unique[p.Entities[0]], func(u *model.Pattern) bool { return slices.Equal(u.Where, p.Where) }) {
			// Two unique gets on the same attributes keep one value
			// unique: one guard item (an update moved it twice, and
			// DynamoDB refuses a transaction that writes an item twice).
			t.unique[p.Entities[0]] = append(t.unique[p.Entities[0]], p)
		}
	}
	return t
}

// Name is the table's physical name.
func (t *Table) Name() string { return t.name }

// Design is the design the table was built from.
func (t *Table) Design() *patterns.Design { return t.d }

// Errors matched with errors.Is.
var (
	ErrUnknownEntity  = errors.New("unknown entity")
	ErrUnknownPattern = errors.New("unknown pattern")
	ErrUnserved       = errors.New("pattern is not served by any index")
	ErrMissing        = errors.New("missing value")
	ErrUnknownAttr    = errors.New("unknown attribute")
	ErrBadRange       = errors.New("invalid range")
	// ErrEmptyRange: a range no value of the attribute can fall in (a
	// bound below its least value, say). Read and All return no items for
	// it; QueryInput(s) return it, there being no request to make.
	ErrEmptyRange = errors.New("the range holds no value")
	// ErrNotUnique: a unique alternate key's value is taken.
	ErrNotUnique = errors.New("value is not unique")
	// ErrExists: Create found the item already there.
	ErrExists = errors.New("the item already exists")
	// ErrChanged: Replace or Delete found the item not as given.
	ErrChanged = errors.New("item changed or missing")
	// ErrNotKeyplan: an item's keys match no entity of the design.
	ErrNotKeyplan = errors.New("item matches no entity")
	// ErrReserved: an item is keyplan's own bookkeeping (its partition
	// key starts with patterns.ReservedPrefix): a unique value's guard
	// (patterns.GuardTag), a handler's marker or continuation, a
	// migration's stamp. A Scan returns them beside the entities' items;
	// Decode refuses them with an error matching ErrReserved (and
	// ErrNotKeyplan), which names the kind, so a caller skips them by it.
	ErrReserved = errors.New("keyplan's own item, of no entity")
	// ErrNotReady: during a migration, a pattern new in the target reads
	// an index that is not complete yet (its backfill is to come).
	ErrNotReady = errors.New("pattern not readable yet")
	// ErrDerived: a write gives a derived attribute a value other than
	// the one computed from its sources.
	ErrDerived = errors.New("derived attribute given another value")
	// ErrImmutable: a write would change an attribute that never changes
	// once written (an id attribute, or one declared immutable: it may be
	// in the base key, which cannot be updated in place).
	ErrImmutable = errors.New("immutable attribute changed")
)

// Error says which operation on which entity or pattern failed.
type Error struct {
	Op      string // "Item", "QueryInput", "Create", …
	Subject string // entity or pattern name
	Err     error
}

func (e *Error) Error() string {
	return fmt.Sprintf("%s %s: %v", e.Op, e.Subject, e.Err)
}

func (e *Error) Unwrap() error { return e.Err }

func wrap(op, subject string, err error) error {
	if err == nil {
		return nil
	}
	return &Error{Op: op, Subject: subject, Err: err}
}

func (t *Table) entity(name string) (*model.Entity, *patterns.EntityKeys, error) {
	e := t.m.Entity(name)
	if e == nil {
		var names []string
		for _, x := range t.m.Entities {
			names = append(names, x.Name)
		}
		return nil, nil, fmt.Errorf("%w %q (the design has %s)", ErrUnknownEntity, name, strings.Join(names, ", "))
	}
	return e, t.d.Entity(name), nil
}

func (t *Table) pattern(name string) (*model.Pattern, *patterns.PatternPlan, error) {
	p := t.m.Pattern(name)
	if p == nil {
		var names []string
		for _, x := range t.m.Patterns {
			names = append(names, x.Name)
		}
		return nil, nil, fmt.Errorf("%w %q (the design has %s)", ErrUnknownPattern, name, strings.Join(names, ", "))
	}
	pp := t.d.Pattern(name)
	if !pp.Served() {
		return nil, nil, fmt.Errorf("%w: %s", ErrUnserved, pp.Reason)
	}
	if r := t.rollout; r != nil && !r.ready(name) {
		return nil, nil, fmt.Errorf("%w: it reads %s, which the migration is still backfilling (keyplan migrate advances the lock when it is done)", ErrNotReady, pp.Index)
	}
	return p, pp, nil
}

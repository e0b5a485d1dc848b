package dynamo

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	s3types "github.com/aws/aws-sdk-go-v2/service/s3/types"

	"github.com/keyplan/keyplan/patterns/model"
)

// Values kept in S3 (store: s3, patterns/objects.go). A write of an item
// whose entity keeps values in S3 stores each value given as an object
// first, under a new key (<entity>/<attr>/<32 random hex digits>), and
// writes the item holding the key; once DynamoDB has the item, the
// objects the item held before (its old keys, returned by the write:
// ReturnValues) are deleted. A delete deletes the item, then its
// objects. So an item never holds the key of an object not yet written
// or already deleted; what a crash or a failed delete can leave is an
// object no item holds (an orphan, in the versioned, retained bucket),
// never an item missing its value. A read returns the key (the value
// named by the attribute holds it); Object reads the value on demand.
//
// Such an item is written alone: not in a transaction, with guard items
// (unique values) or in a batch, where DynamoDB returns no old image to
// find the objects to delete (ErrObjectsAlone).

// ObjectStore keeps objects by key: the bucket the construct makes
// (S3Objects), or MemoryObjects in tests.
type ObjectStore interface {
	PutObject(ctx context.Context, key string, body []byte) error
	// GetObject returns ErrNoObject for a key it does not hold.
	GetObject(ctx context.Context, key string) ([]byte, error)
	// DeleteObject deletes the object (a key not held is no error).
	DeleteObject(ctx context.Context, key string) error
}

// ObjectChecker is an ObjectStore that tells whether it holds a key
// without reading the object (S3's HeadObject): what a migration's
// backfill and verifying scan ask of each key an item holds (HasObject).
type ObjectChecker interface {
	HasObject(ctx context.Context, key string) (bool, error)
}

// HasObject reports whether s holds an object under key: through
// s.HasObject where s is an ObjectChecker, else by reading it.
func HasObject(ctx context.Context, s ObjectStore, key string) (bool, error) {
	if c, ok := s.(ObjectChecker); ok {
		return c.HasObject(ctx, key)
	}
	return readsObject(ctx, s, key)
}

// readsObject reports whether s holds key by reading the object.
func readsObject(ctx context.Context, s ObjectStore, key string) (bool, error) {
	_, err := s.GetObject(ctx, key)
	if errors.Is(err, ErrNoObject) {
		return false, nil
	}
	return err == nil, err
}

// Errors of values kept in S3.
var (
	ErrNoObjectStore = errors.New("the entity keeps values in S3 (store: s3): give the Table an ObjectStore (WithObjects)")
	ErrObjectsAlone  = errors.New("an item keeping values in S3 (store: s3) is written alone: not in a transaction, with guard items or in a batch")
	ErrNoObject      = errors.New("no such object")
	ErrNotInS3       = errors.New("not an attribute kept in S3 (store: s3)")
	// ErrObjectInline refuses a request built for the caller to send
	// (WriteInput, TransactInput, UpdateInput, Item) that would bypass
	// the object path: hold a store: s3 value inline in the item, or
	// replace or delete the keys of objects no one then deletes.
	ErrObjectInline = errors.New("a value kept in S3 (store: s3) is written by Write, Create, Put, Update and Delete, which store its object first and delete the old one after; a request you send yourself cannot")
)

// WithObjects sets where values of store: s3 attributes are kept.
func WithObjects(s ObjectStore) Option { return func(t *Table) { t.objects = s } }

// OrphanError reports objects a write succeeded without deleting: the
// item is written (or deleted) as asked; Keys are left in the bucket,
// held by no item (delete them, or let a lifecycle rule).
type OrphanError struct {
	Keys []string
	Err  error
}

func (e *OrphanError) Error() string {
	return fmt.Sprintf("written; %d objects no item holds were not deleted (%s): %v", len(e.Keys), strings.Join(e.Keys, ", "), e.Err)
}

func (e *OrphanError) Unwrap() error { return e.Err }

// InDoubtError reports a write whose objects were stored and whose item
// write failed without DynamoDB refusing it (a timeout, a connection
// reset: the item may have been written or not). Keys, the objects the
// item was to hold, are kept: deleting them could leave an item holding
// the key of an object gone. Read the item: if it holds none of Keys,
// they are held by no item (delete them); if it holds them, the write
// happened and the objects the item held before were not deleted.
type InDoubtError struct {
	Keys []string
	Err  error
}

func (e *InDoubtError) Error() string {
	return fmt.Sprintf("the item write failed, not refused: it may have been written or not (%v); the %d objects it was to hold are kept, held by no item if it was not (%s)", e.Err, len(e.Keys), strings.Join(e.Keys, ", "))
}

func (e *InDoubtError) Unwrap() error { return e.Err }

// objectAttrs are the entity's attributes kept in S3.
func (t *Table) objectAttrs(entity string) []*model.Attribute {
	if e := t.m.Entity(entity); e != nil {
		return e.ObjectAttrs()
	}
	return nil
}

// objectPrefix is what every key of entity's attr starts with.
func objectPrefix(entity, attr string) string { return entity + "/" + attr + "/" }

func newObjectKey(entity, attr string) string {
	b := make([]byte, model.ObjectKeyRandomDigits()/2)
	_, _ = rand.Read(b)
	return objectPrefix(entity, attr) + hex.EncodeToString(b)
}

// isObjectKey reports whether s is a key newObjectKey makes for entity's
// attr.
func isObjectKey(entity, attr, s string) bool {
	rest, ok := strings.CutPrefix(s, objectPrefix(entity, attr))
	if !ok || len(rest) != model.ObjectKeyRandomDigits() {
		return false
	}
	_, err := hex.DecodeString(rest)
	return err == nil && strings.ToLower(rest) == rest
}

// The item holds an object's key in the attribute's own DynamoDB type:
// a string's as S, a binary's (type: blob) as B holding the key's
// bytes, so every reader of the item (Decode, the generated code, the
// archive's DynamoDB JSON, a Workbench export) finds the type the
// attribute declares.

// objectBytes is what av holds, as bytes: an S's text or a B's bytes
// (a value, or an object's key); ok is false for another type.
func objectBytes(av types.AttributeValue) ([]byte, bool) {
	switch x := av.(type) {
	case *types.AttributeValueMemberS:
		return []byte(x.Value), true
	case *types.AttributeValueMemberB:
		return x.Value, true
	}
	return nil, false
}

// heldKey is the object key av holds for entity's attr, or "".
func heldKey(entity, attr string, av types.AttributeValue) string {
	if b, ok := objectBytes(av); ok && isObjectKey(entity, attr, string(b)) {
		return string(b)
	}
	return ""
}

// asMember is b (a value, or an object's key) in a's DynamoDB type: B
// for a binary, S for a string.
func asMember(a *model.Attribute, b []byte) types.AttributeValue {
	if a.DynamoType() == "B" {
		return &types.AttributeValueMemberB{Value: bytes.Clone(b)}
	}
	return &types.AttributeValueMemberS{Value: string(b)}
}

// objectKeyText is an object's key as application code holds it after a read:
// a string (a string attribute) or []byte (a binary's); ok false for
// anything else.
func objectKeyText(x any) (string, bool) {
	switch k := x.(type) {
	case string:
		return k, true
	case []byte:
		return string(k), true
	}
	return "", false
}

// refuseInline refuses item writes a caller would send without the
// object path (ErrObjectInline): a put or a delete of an item keeping
// values in S3 (the keys it replaces or deletes leave objects behind; a
// put would hold a value inline), an update setting or removing one.
func (t *Table) refuseInline(ws []*itemWrite) error {
	for _, w := range ws {
		attrs := t.objectAttrs(w.entity)
		if w.guard || len(attrs) == 0 {
			continue
		}
		var names []string
		for _, a := range attrs {
			names = append(names, w.entity+"."+a.Name)
		}
		switch w.kind {
		case model.WritePut, model.WriteDelete:
			return fmt.Errorf("%w (a %s of %s, which keeps %s in S3)", ErrObjectInline, w.kind, w.entity, strings.Join(names, ", "))
		case model.WriteUpdate:
			for _, c := range w.changes {
				for _, a := range attrs {
					if c.name == a.Name {
						return fmt.Errorf("%w (the update sets or removes %s.%s, kept in S3)", ErrObjectInline, w.entity, a.Name)
					}
				}
			}
		}
	}
	return nil
}

// refuseInlineValues refuses, for Item, a store: s3 value that is not
// an object's key (the item would hold it inline). A binary's key given
// as text (not base64: the key itself) is returned as its bytes, in a
// copy of v.
func (t *Table) refuseInlineValues(entity string, v Values) (Values, error) {
	for _, a := range t.objectAttrs(entity) {
		x, ok := v[a.Name]
		if !ok || x == nil {
			continue
		}
		if s, ok := x.(string); ok && a.DynamoType() == "B" && isObjectKey(entity, a.Name, s) {
			v = maps.Clone(v)
			v[a.Name] = []byte(s)
			continue
		}
		if s, ok := objectKeyText(x); !ok || !isObjectKey(entity, a.Name, s) {
			return nil, fmt.Errorf("%w (%s.%s is kept in S3: Item takes its object's key, %s<%d hex digits>, not its value)", ErrObjectInline, entity, a.Name, objectPrefix(entity, a.Name), model.ObjectKeyRandomDigits())
		}
	}
	return v, nil
}

// storeObjects stores the values ws gives store: s3 attributes, each
// replaced in the write by its object's key, and returns the keys
// stored. It refuses, storing nothing, an entity keeping values in S3
// written with other items or without an ObjectStore.
func (t *Table) storeObjects(ctx context.Context, ws []*itemWrite) ([]string, error) {
	var w *itemWrite
	for _, x := range ws {
		if !x.guard && len(t.objectAttrs(x.entity)) > 0 {
			if len(ws) > 1 {
				return nil, fmt.Errorf("%w (%s)", ErrObjectsAlone, x.entity)
			}
			w = x
		}
	}
	if w == nil && len(ws) == 1 && t.objects != nil && len(t.movedOut(ws[0].entity)) > 0 && ws[0].kind != model.WriteCheck {
		ws[0].returnOld = true // the objects it held, to delete after
		return nil, nil
	}
	if w == nil || w.kind == model.WriteCheck {
		return nil, nil
	}
	if t.objects == nil {
		return nil, fmt.Errorf("%w (%s)", ErrNoObjectStore, w.entity)
	}
	var stored []string
	for _, a := range t.objectAttrs(w.entity) {
		var v types.AttributeValue
		set := func(types.AttributeValue) {}
		switch w.kind {
		case model.WritePut:
			v, set = w.item[a.Name], func(k types.AttributeValue) { w.item[a.Name] = k }
		case model.WriteUpdate:
			for i := range w.changes {
				if w.changes[i].name == a.Name && w.changes[i].val != nil {
					v, set = w.changes[i].val, func(k types.AttributeValue) { w.changes[i].val = k }
				}
			}
		}
		body, ok := objectBytes(v)
		if !ok {
			continue
		}
		if heldKey(w.entity, a.Name, v) != "" {
			// The key a read returned: the item keeps that object, and
			// the write holds only if the item still holds it (a value
			// read, changed elsewhere and written back stores nothing
			// and points at no other item's object).
			w.clauses = append(w.clauses, is(a.Name, v, ErrChanged))
			continue
		}
		key := newObjectKey(w.entity, a.Name)
		if err := t.objects.PutObject(ctx, key, body); err != nil {
			t.deleteObjects(ctx, stored)
			return nil, fmt.Errorf("storing %s.%s in S3: %w", w.entity, a.Name, err)
		}
		stored = append(stored, key)
		set(asMember(a, []byte(key)))
	}
	w.returnOld = true // the old keys, to delete after
	return stored, nil
}

// dropObjects deletes, after w succeeded, the objects the item held
// before (old: the write's old image) that it no longer holds.
func (t *Table) dropObjects(ctx context.Context, w *itemWrite, old map[string]types.AttributeValue) error {
	var keys []string
	for _, a := range append(t.objectAttrs(w.entity), t.movedOut(w.entity)...) {
		b, ok := objectBytes(old[a.Name])
		// Only a key of this attribute: a value written before the
		// attribute was kept in S3 is no object's key.
		if !ok || !strings.HasPrefix(string(b), objectPrefix(w.entity, a.Name)) {
			continue
		}
		if now, ok := objectBytes(w.item[a.Name]); ok && bytes.Equal(now, b) {
			continue
		}
		keys = append(keys, string(b))
	}
	if failed, err := t.deleteObjects(ctx, keys); err != nil {
		return &OrphanError{Keys: failed, Err: err}
	}
	return nil
}

// deleteObjects deletes keys, returning those it could not.
func (t *Table) deleteObjects(ctx context.Context, keys []string) ([]string, error) {
	var failed []string
	var last error
	for _, k := range keys {
		if err := t.objects.DeleteObject(ctx, k); err != nil {
			failed, last = append(failed, k), err
		}
	}
	return failed, last
}

// Object reads on demand the value of entity's attribute attr kept in
// S3, from v: an item's values as a read returns them (v[attr] is the
// object's key). A value v lacks (an optional attribute absent) is nil.
// During a migration that moves attr into or out of S3 (the rollout
// runtime), an item the backfill has not reached, or has, holds the
// value itself: Object returns it.
func (t *Table) Object(ctx context.Context, entity, attr string, v Values) ([]byte, error) {
	e, _, err := t.entity(entity)
	if err != nil {
		return nil, wrap("Object", entity, err)
	}
	moving := t.storeMoving(entity, attr)
	if !e.Attr(attr).InS3() && !moving {
		return nil, wrap("Object", entity+"."+attr, ErrNotInS3)
	}
	if t.objects == nil {
		return nil, wrap("Object", entity+"."+attr, ErrNoObjectStore)
	}
	x, ok := v[attr]
	if !ok || x == nil {
		return nil, nil
	}
	key, ok := objectKeyText(x)
	if ok && moving && !isObjectKey(entity, attr, key) {
		return []byte(key), nil // a value the migration has not moved into S3, or has moved back
	}
	if !ok || !isObjectKey(entity, attr, key) {
		return nil, wrap("Object", entity+"."+attr, fmt.Errorf("%q is no key of an object of %s.%s", x, entity, attr))
	}
	b, err := t.objects.GetObject(ctx, key)
	return b, wrap("Object", entity+"."+attr, err)
}

// MemoryObjects is an ObjectStore in memory (tests, keyplan local).
type MemoryObjects struct {
	mu      sync.Mutex
	objects map[string][]byte
}

// PutObject keeps a copy of body under key.
func (m *MemoryObjects) PutObject(_ context.Context, key string, body []byte) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.objects == nil {
		m.objects = map[string][]byte{}
	}
	m.objects[key] = bytes.Clone(body)
	return nil
}

// GetObject returns a copy of the object, or ErrNoObject.
func (m *MemoryObjects) GetObject(_ context.Context, key string) ([]byte, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	b, ok := m.objects[key]
	if !ok {
		return nil, fmt.Errorf("%w: %s", ErrNoObject, key)
	}
	return bytes.Clone(b), nil
}

// DeleteObject deletes the object.
func (m *MemoryObjects) DeleteObject(_ context.Context, key string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.objects, key)
	return nil
}

// HasObject reports whether the store holds key.
func (m *MemoryObjects) HasObject(_ context.Context, key string) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	_, ok := m.objects[key]
	return ok, nil
}

// Keys are the keys held, in order, for tests.
func (m *MemoryObjects) Keys() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Sorted(maps.Keys(m.objects))
}

// S3API is the part of *s3.Client S3Objects uses.
type S3API interface {
	PutObject(ctx context.Context, in *s3.PutObjectInput, opts ...func(*s3.Options)) (*s3.PutObjectOutput, error)
	GetObject(ctx context.Context, in *s3.GetObjectInput, opts ...func(*s3.Options)) (*s3.GetObjectOutput, error)
	DeleteObject(ctx context.Context, in *s3.DeleteObjectInput, opts ...func(*s3.Options)) (*s3.DeleteObjectOutput, error)
}

// S3Objects keeps objects in an S3 bucket: the construct's (its
// ObjectsBucket; a handler's environment names it).
type S3Objects struct {
	Client S3API
	Bucket string
}

// PutObject writes the object.
func (o S3Objects) PutObject(ctx context.Context, key string, body []byte) error {
	_, err := o.Client.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String(o.Bucket), Key: aws.String(key), Body: bytes.NewReader(body)})
	return err
}

// GetObject reads the object (ErrNoObject: S3 has no such key, or its
// latest version is a delete marker).
func (o S3Objects) GetObject(ctx context.Context, key string) ([]byte, error) {
	out, err := o.Client.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(o.Bucket), Key: aws.String(key)})
	var nsk *s3types.NoSuchKey
	if errors.As(err, &nsk) {
		return nil, fmt.Errorf("%w: %s in bucket %s", ErrNoObject, key, o.Bucket)
	}
	if err != nil {
		return nil, err
	}
	defer out.Body.Close()
	return io.ReadAll(out.Body)
}

// headObject is the part of *s3.Client HasObject uses, when Client has
// it (S3API does not ask it, so a client written before it still fits).
type headObject interface {
	HeadObject(ctx context.Context, in *s3.HeadObjectInput, opts ...func(*s3.Options)) (*s3.HeadObjectOutput, error)
}

// HasObject reports whether the bucket's latest version of key is an
// object (not a delete marker): a HeadObject where Client has it, else a
// GetObject.
func (o S3Objects) HasObject(ctx context.Context, key string) (bool, error) {
	h, ok := o.Client.(headObject)
	if !ok {
		return readsObject(ctx, o, key)
	}
	_, err := h.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String(o.Bucket), Key: aws.String(key)})
	var nf *s3types.NotFound
	var nsk *s3types.NoSuchKey
	var status interface{ HTTPStatusCode() int }
	switch {
	case errors.As(err, &nf) || errors.As(err, &nsk):
		return false, nil
	case errors.As(err, &status) && status.HTTPStatusCode() == 403:
		// S3 answers 404 for a key it does not hold only to a caller
		// that may list the bucket; to others, 403.
		return false, fmt.Errorf("S3 refused HeadObject of %s in bucket %s (403): the caller needs s3:GetObject on the key, and s3:ListBucket on the bucket for S3 to say when there is no such object: %w", key, o.Bucket, err)
	}
	return err == nil, err
}

// DeleteObject deletes the object (its versions stay: the bucket is
// versioned).
func (o S3Objects) DeleteObject(ctx context.Context, key string) error {
	_, err := o.Client.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String(o.Bucket), Key: aws.String(key)})
	return err
}

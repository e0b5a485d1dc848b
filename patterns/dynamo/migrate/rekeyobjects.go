package migrate

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/keyplan/keyplan/patterns"
	"github.com/keyplan/keyplan/patterns/dynamo"
)

// Values moved into or out of S3 by a migration (store: s3 added to an
// attribute, or taken off it: patterns.objectMove). The phase's backfill
// moves each value an item holds the old way:
//
//   - into S3: the value is written as a new object, then the item is
//     rewritten with the object's key, on condition that it still holds
//     the value read; a write that landed in between (the application's
//     new value, or its key) fails the condition, the object just written
//     is deleted, and the item is planned again from what it holds now;
//   - out of S3: the object is read, the item is rewritten with its
//     value on condition that it still holds the key, and only then is
//     the object deleted.
//
// So an item never holds the key of an object not written, or already
// deleted; what a crash between two steps leaves is an object no item
// holds (in the versioned, retained bucket). A value already moved is
// left as it is: the backfill resumes, and runs twice, without moving
// anything twice. A key is one whose object the bucket has
// (dynamo.HasObject asks it of each key an item holds, in the backfill
// and in the verifying scan): an item holding a key's shape that names no
// object (a key whose object is gone, or a value that only looks like a
// key: keyplan cannot tell which) is read again (a write racing the scan
// may have replaced it), then counted failed, naming it: nothing is
// guessed, and the phase is not complete.
//
// A value moving back longer than the maxLength the target gives it
// inline stays in S3 (the item keeps its key): the item is counted
// failed, saying so, and the phase is not complete.

// objectMoves finds, for each target entity, the attributes whose store
// the migration changes (patterns.Lock.StoreMoves), and adds them to
// what the Scan reads.
func (r *Rekeyer) objectMoves() {
	for _, mv := range r.lock.StoreMoves() {
		if mv.IntoS3 {
			r.toS3[mv.Entity] = append(r.toS3[mv.Entity], mv.Attr)
		} else {
			r.fromS3[mv.Entity] = append(r.fromS3[mv.Entity], mv.Attr)
		}
		r.read = append(r.read, mv.Attr)
	}
}

// planObjects adds to rw the values of item to move (as read, in
// Sources: the rewrite's condition). Each key the item holds of a moving
// attribute must name an object (the runtime and the backfill write the
// object first): one that does not is a *missingError. Without an
// ObjectStore (a verifying scan given no bucket) a key's shape is
// trusted.
func (r *Rekeyer) planObjects(ctx context.Context, entity string, item map[string]types.AttributeValue, rw *Rewrite) error {
	missing := &missingError{entity: entity}
	for _, moves := range []struct {
		attrs []string
		into  bool
	}{{r.toS3[entity], true}, {r.fromS3[entity], false}} {
		for _, attr := range moves.attrs {
			if _, ok := dynamo.ObjectBytes(item[attr]); !ok {
				continue // absent, or no string or binary
			}
			key := dynamo.HeldKey(entity, attr, item[attr])
			if key != "" && r.Objects != nil {
				held, err := dynamo.HasObject(ctx, r.Objects, key)
				if err != nil {
					return &storeError{entity: entity, attr: attr, key: key, err: fmt.Errorf("asking S3 for %s.%s's object %s: %w", entity, attr, key, err)}
				}
				if !held {
					missing.add(attr, key)
					continue
				}
			}
			switch {
			case moves.into && key == "":
				rw.ToS3 = append(rw.ToS3, attr)
			case !moves.into && key != "":
				rw.FromS3 = append(rw.FromS3, attr)
			default:
				continue // moved already
			}
			rw.Sources[attr] = item[attr]
		}
	}
	if len(missing.attrs) > 0 {
		return missing
	}
	return nil
}

// missingError is an item holding, in attributes a migration moves, a
// key's shape that names no object in the bucket. It matches
// dynamo.ErrNoObject.
type missingError struct {
	entity      string
	attrs, keys []string
}

func (e *missingError) add(attr, key string) {
	e.attrs, e.keys = append(e.attrs, attr), append(e.keys, key)
}

func (e *missingError) Error() string {
	var held []string
	for i, a := range e.attrs {
		held = append(held, fmt.Sprintf("%s.%s holds %s", e.entity, a, e.keys[i]))
	}
	return fmt.Sprintf("%s: an object's key that names no object in the bucket: a key whose object is gone, or a value that only looks like a key, and keyplan cannot tell which, so it moves nothing. "+
		"The bucket is versioned: restore the object from an earlier version if there is one, or write the item's value again (the application's write stores it), then run again",
		strings.Join(held, "; "))
}

func (e *missingError) Unwrap() error { return dynamo.ErrNoObject }

// storeError is an error of the object store asked about a key an item
// held (S3 unreachable, access denied): the run's, not the item's,
// unless the item holds the key no more (S3 answers 403, not 404, for a
// key it does not hold to a caller that may not list the bucket: a
// write racing the scan deleted the object).
type storeError struct {
	entity, attr, key string
	err               error
}

func (e *storeError) Error() string { return e.err.Error() }
func (e *storeError) Unwrap() error { return e.err }

// heldBy reports whether item (read again) still holds the key S3 was
// asked about.
func (e *storeError) heldBy(item map[string]types.AttributeValue) bool {
	return dynamo.HeldKey(e.entity, e.attr, item[e.attr]) == e.key
}

// heldBy reports whether item (read again) still holds a key me names.
func (me *missingError) heldBy(item map[string]types.AttributeValue) bool {
	for i, a := range me.attrs {
		if dynamo.HeldKey(me.entity, a, item[a]) == me.keys[i] {
			return true
		}
	}
	return false
}

// errTooLong: a value moving back into its item is longer than the
// maxLength the target model gives the attribute inline.
var errTooLong = errors.New("too long to move back into its item")

// ErrNoObjectsForMigration: the phase moves values into or out of S3
// and the backfill has no ObjectStore (Rekeyer.Objects).
var ErrNoObjectsForMigration = errors.New("the migration moves values into or out of S3 (store: s3 changed): name the construct's ObjectsBucket in $" + patterns.ObjectsBucketEnv + " (or give the backfill the bucket's ObjectStore, MigrateOptions.Objects)")

// moveObjects does a rewrite's S3 half before its UpdateItem: each value
// moving into S3 written as an object (its key set in rw), each moving
// out read (its value set). It returns the keys written (to delete if
// the update does not hold) and those read (to delete once it has).
func (r *Rekeyer) moveObjects(ctx context.Context, rw *Rewrite) (written, read []string, err error) {
	if len(rw.ToS3)+len(rw.FromS3) == 0 {
		return nil, nil, nil
	}
	if r.Objects == nil {
		return nil, nil, ErrNoObjectsForMigration
	}
	// The key, and the value moved back, in the attribute's own type (S
	// for a string, B for a binary: dynamo's objects.go).
	e := r.lock.Migration.Target.Model().Entity(rw.Entity)
	for _, attr := range rw.ToS3 {
		key := dynamo.ObjectKey(rw.Entity, attr)
		body, _ := dynamo.ObjectBytes(rw.Sources[attr])
		if err := r.Objects.PutObject(ctx, key, body); err != nil {
			r.dropKeys(ctx, written)
			return nil, nil, fmt.Errorf("storing %s.%s in S3: %w", rw.Entity, attr, err)
		}
		written = append(written, key)
		rw.Set[attr] = dynamo.ObjectMember(e.Attr(attr), []byte(key))
	}
	for _, attr := range rw.FromS3 {
		key := dynamo.HeldKey(rw.Entity, attr, rw.Sources[attr])
		b, err := r.Objects.GetObject(ctx, key)
		if errors.Is(err, dynamo.ErrNoObject) {
			// Gone since planObjects saw it (a write replaced the value
			// and deleted it), or never there.
			r.dropKeys(ctx, written)
			missing := &missingError{entity: rw.Entity}
			missing.add(attr, key)
			return nil, nil, missing
		}
		if err != nil {
			r.dropKeys(ctx, written)
			return nil, nil, &storeError{entity: rw.Entity, attr: attr, key: key, err: fmt.Errorf("reading %s.%s from S3 (%s): %w", rw.Entity, attr, key, err)}
		}
		if a := e.Attr(attr); a.MaxLength > 0 && len(b) > a.MaxLength {
			r.dropKeys(ctx, written)
			return nil, nil, fmt.Errorf("%s.%s: %w: its object %s holds %d bytes, above the maxLength %d the model gives it in the item; it stays in S3 and the item keeps its key (shorten the value, or raise maxLength, or keep store: s3)", rw.Entity, attr, errTooLong, key, len(b), a.MaxLength)
		}
		read = append(read, key)
		rw.Set[attr] = dynamo.ObjectMember(e.Attr(attr), b)
	}
	return written, read, nil
}

// dropKeys deletes objects no item holds. One it cannot delete stays in
// the versioned, retained bucket, held by no item: nothing is lost.
func (r *Rekeyer) dropKeys(ctx context.Context, keys []string) {
	for _, k := range keys {
		_ = r.Objects.DeleteObject(ctx, k)
	}
}

// objectFault reports whether err is an object's own (an item that
// cannot be moved: counted failed), not S3's or the store's absence (the
// run stops, to resume).
func objectFault(err error) bool {
	return errors.Is(err, dynamo.ErrNoObject) || errors.Is(err, errTooLong)
}

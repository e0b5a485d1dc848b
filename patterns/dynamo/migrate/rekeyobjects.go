package migrate

import (
	"context"
	"errors"
	"fmt"

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
// anything twice.

// objectMoves finds, for each target entity, the attributes whose store
// the migration changes, and adds them to what the Scan reads.
func (r *Rekeyer) objectMoves() {
	for _, e := range r.lock.Migration.Target.Model().Entities {
		old := e.Name
		if n, ok := r.was[e.Name]; ok {
			old = n
		}
		fe := r.lock.Accepted.Model().Entity(old)
		if fe == nil {
			continue
		}
		for _, a := range e.Attributes {
			was := fe.Attr(a.Name)
			switch {
			case was == nil || was.InS3() == a.InS3():
				continue
			case a.InS3():
				r.toS3[e.Name] = append(r.toS3[e.Name], a.Name)
			default:
				r.fromS3[e.Name] = append(r.fromS3[e.Name], a.Name)
			}
			r.read = append(r.read, a.Name)
		}
	}
}

// planObjects adds to rw the values of item to move (as read, in
// Sources: the rewrite's condition).
func (r *Rekeyer) planObjects(entity string, item map[string]types.AttributeValue, rw *Rewrite) {
	for _, attr := range r.toS3[entity] {
		if s, ok := item[attr].(*types.AttributeValueMemberS); ok && !dynamo.IsObjectKey(entity, attr, s.Value) {
			rw.ToS3 = append(rw.ToS3, attr)
			rw.Sources[attr] = s
		}
	}
	for _, attr := range r.fromS3[entity] {
		if s, ok := item[attr].(*types.AttributeValueMemberS); ok && dynamo.IsObjectKey(entity, attr, s.Value) {
			rw.FromS3 = append(rw.FromS3, attr)
			rw.Sources[attr] = s
		}
	}
}

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
	for _, attr := range rw.ToS3 {
		key := dynamo.ObjectKey(rw.Entity, attr)
		if err := r.Objects.PutObject(ctx, key, []byte(rw.Sources[attr].(*types.AttributeValueMemberS).Value)); err != nil {
			r.dropKeys(ctx, written)
			return nil, nil, fmt.Errorf("storing %s.%s in S3: %w", rw.Entity, attr, err)
		}
		written = append(written, key)
		rw.Set[attr] = &types.AttributeValueMemberS{Value: key}
	}
	for _, attr := range rw.FromS3 {
		key := rw.Sources[attr].(*types.AttributeValueMemberS).Value
		b, err := r.Objects.GetObject(ctx, key)
		if err != nil {
			r.dropKeys(ctx, written)
			return nil, nil, fmt.Errorf("reading %s.%s from S3 (%s): %w", rw.Entity, attr, key, err)
		}
		read = append(read, key)
		rw.Set[attr] = &types.AttributeValueMemberS{Value: string(b)}
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
	return errors.Is(err, dynamo.ErrNoObject)
}

package migrate

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/keyplan/keyplan/patterns"
	"github.com/keyplan/keyplan/patterns/model"
)

// A cleanup removes what the design before a migration wrote: the old
// keys and names that the application of an earlier lock still reads and
// writes. It runs only once the lock that ended the migration is
// deployed, and keyplan knows that from two things, both required:
//
//   - the table's GSIs are exactly the accepted design's (PhaseReady at
//     the cleanup: a GSI the migration deleted is gone, which only the
//     final deploy does);
//   - the table records the deploy of that lock (MarkDeployed): the
//     construct's cleanup job writes the record when it starts (the job is
//     synthesized only from that lock, so it runs only once the stack
//     carrying it is deployed), and keyplan migrate --deployed writes it
//     for a deploy made otherwise (the operator's word, on record).
//
// The record is keyed by the cleanup's digest: the deploy of another
// lock (an earlier phase's) never counts.

// deployedSK starts the sort keys of the deploy records.
const deployedSK = patterns.ReservedPrefix + "DEPLOYED"

// ErrNotDeployed: the table does not record the deploy of the lock whose
// cleanup is pending.
var ErrNotDeployed = errors.New("the lock that ended the migration is not known to be deployed")

// CleanupDigest identifies a lock's pending cleanup (its accepted design
// and the cleanup, whichever environments verified it).
func CleanupDigest(l *patterns.Lock) (string, error) {
	cl, err := CleanupLock(l)
	if err != nil {
		return "", err
	}
	return MigrationDigest(cl)
}

func deployedKey(l *patterns.Lock, digest string) map[string]types.AttributeValue {
	return bookKey(l.Accepted, deployedSK+string(model.Sep)+digest)
}

// MarkDeployed records in the table named name that the lock whose
// cleanup is pending is deployed (by says who knows: the construct's
// cleanup job, keyplan migrate --deployed).
func MarkDeployed(ctx context.Context, c RekeyClient, l *patterns.Lock, name, by string) error {
	digest, err := CleanupDigest(l)
	if err != nil {
		return err
	}
	err = patiently(ctx, func() error {
		_, err := c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(name), Key: deployedKey(l, digest),
			UpdateExpression:         aws.String("SET #by = :by, #at = if_not_exists(#at, :t)"),
			ExpressionAttributeNames: map[string]string{"#by": "by", "#at": "at"},
			ExpressionAttributeValues: map[string]types.AttributeValue{
				":by": &types.AttributeValueMemberS{Value: by},
				":t":  &types.AttributeValueMemberS{Value: time.Now().UTC().Format(time.RFC3339)},
			}})
		return err
	})
	if err != nil {
		return fmt.Errorf("recording the deploy in %s: %w", name, err)
	}
	return nil
}

// CheckDeployed refuses a cleanup on the table named name unless the
// table records the deploy of the lock that ended the migration
// (MarkDeployed); an error matches ErrNotDeployed and says how to record
// it.
func CheckDeployed(ctx context.Context, c RekeyClient, l *patterns.Lock, name string) error {
	digest, err := CleanupDigest(l)
	if err != nil {
		return err
	}
	var out *dynamodb.GetItemOutput
	err = patiently(ctx, func() (err error) {
		out, err = c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(name), Key: deployedKey(l, digest), ConsistentRead: aws.Bool(true)})
		return err
	})
	if err != nil {
		return fmt.Errorf("reading %s's deploy record: %w", name, err)
	}
	if _, ok := out.Item["by"]; !ok {
		return fmt.Errorf("%w: %s records no deploy of it, and removing the old keys while a deployed application still reads them loses its reads: deploy the lock (cdk deploy), then start the construct's cleanup job (it records the deploy), or run keyplan migrate --deployed once the lock is deployed some other way", ErrNotDeployed, name)
	}
	return nil
}

package migrate

import (
	"context"
	"fmt"
	"os"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/keyplan/keyplan/patterns"
	"github.com/keyplan/keyplan/patterns/dynamo"
)

// ObjectsFromEnv is the bucket $KEYPLAN_OBJECTS_BUCKET names (the
// construct's ObjectsBucket), on S3 as the SDK's default configuration
// reaches it (credentials, region; AWS_ENDPOINT_URL_S3 for another S3
// implementation, addressed path-style); nil when the variable is unset.
// keyplan migrate gives it to a migration that moves values into or out
// of S3; a caller holding the configuration already calls
// ObjectsFromConfig.
func ObjectsFromEnv(ctx context.Context) (dynamo.ObjectStore, error) {
	bucket := os.Getenv(patterns.ObjectsBucketEnv)
	if bucket == "" {
		return nil, nil
	}
	cfg, err := config.LoadDefaultConfig(ctx)
	if err != nil {
		return nil, fmt.Errorf("$%s=%s: %w", patterns.ObjectsBucketEnv, bucket, err)
	}
	return ObjectsFromConfig(cfg, bucket), nil
}

// ObjectsFromConfig is bucket on S3 as cfg reaches it (an endpoint of
// its own, cfg's or AWS_ENDPOINT_URL_S3's, is addressed path-style), or
// nil for no bucket: for the backfill worker, which loads the SDK's
// configuration once at its start and reads the bucket's name from
// $KEYPLAN_OBJECTS_BUCKET.
func ObjectsFromConfig(cfg aws.Config, bucket string) dynamo.ObjectStore {
	if bucket == "" {
		return nil
	}
	c := s3.NewFromConfig(cfg, func(o *s3.Options) { o.UsePathStyle = o.BaseEndpoint != nil })
	return dynamo.S3Objects{Client: c, Bucket: bucket}
}

// movesObjects reports whether the phase moves values into or out of S3.
func (r *Rekeyer) movesObjects() bool { return len(r.toS3)+len(r.fromS3) > 0 }

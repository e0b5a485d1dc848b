package migrate

import (
	"context"
	"fmt"
	"os"

	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/keyplan/keyplan/patterns"
	"github.com/keyplan/keyplan/patterns/dynamo"
)

// ObjectsFromEnv is the bucket $KEYPLAN_OBJECTS_BUCKET names (the
// construct's ObjectsBucket), on S3 as the SDK's default configuration
// reaches it (credentials, region; AWS_ENDPOINT_URL_S3 for another S3
// implementation, addressed path-style); nil when the variable is unset.
// keyplan migrate and the backfill job give it to a migration that moves
// values into or out of S3.
func ObjectsFromEnv(ctx context.Context) (dynamo.ObjectStore, error) {
	bucket := os.Getenv(patterns.ObjectsBucketEnv)
	if bucket == "" {
		return nil, nil
	}
	cfg, err := config.LoadDefaultConfig(ctx)
	if err != nil {
		return nil, fmt.Errorf("$%s=%s: %w", patterns.ObjectsBucketEnv, bucket, err)
	}
	c := s3.NewFromConfig(cfg, func(o *s3.Options) { o.UsePathStyle = o.BaseEndpoint != nil })
	return dynamo.S3Objects{Client: c, Bucket: bucket}, nil
}

// movesObjects reports whether the phase moves values into or out of S3.
func (r *Rekeyer) movesObjects() bool { return len(r.toS3)+len(r.fromS3) > 0 }

package stream

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
)

// Config is the SDK configuration, as config.LoadDefaultConfig reads it
// from Lambda's environment: the region, the function role's
// credentials, and what an operator sets (AWS_ENDPOINT_URL*,
// AWS_MAX_ATTEMPTS, AWS_RETRY_MODE, FIPS and dual-stack endpoints).
func Config(ctx context.Context) (aws.Config, error) {
	return config.LoadDefaultConfig(ctx)
}

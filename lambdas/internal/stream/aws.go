package stream

import (
	"os"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
)

// Config is the SDK configuration Lambda provides: the region and the
// function role's credentials, both in the environment. Built by hand
// rather than with the config package, which brings SSO, STS and the
// shared files in and grows each binary by megabytes.
func Config() aws.Config {
	return aws.Config{
		Region: os.Getenv("AWS_REGION"),
		Credentials: aws.NewCredentialsCache(credentials.NewStaticCredentialsProvider(
			os.Getenv("AWS_ACCESS_KEY_ID"), os.Getenv("AWS_SECRET_ACCESS_KEY"), os.Getenv("AWS_SESSION_TOKEN"))),
	}
}

package main

import (
	"bytes"
	"context"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
)

// Object is one object to write.
type Object struct {
	Bucket, Key, ContentType, ContentEncoding string
	Body                                      []byte
}

// Putter writes objects.
type Putter interface {
	Put(ctx context.Context, o Object) error
}

// s3Putter writes objects with the SDK's S3 client: endpoints for every
// partition (China, GovCloud, FIPS, dual-stack, AWS_ENDPOINT_URL_S3),
// path-style where a bucket's name needs it, the SDK's signing and
// retries. No encryption header is sent: the bucket's default encryption
// (SSE-S3, or the SSE-KMS key it requires) applies.
type s3Putter struct{ c *s3.Client }

func newS3(cfg aws.Config, opts ...func(*s3.Options)) *s3Putter {
	return &s3Putter{s3.NewFromConfig(cfg, opts...)}
}

func (p *s3Putter) Put(ctx context.Context, o Object) error {
	_, err := p.c.PutObject(ctx, &s3.PutObjectInput{
		Bucket:          aws.String(o.Bucket),
		Key:             aws.String(o.Key),
		Body:            bytes.NewReader(o.Body),
		ContentLength:   aws.Int64(int64(len(o.Body))),
		ContentType:     aws.String(o.ContentType),
		ContentEncoding: aws.String(o.ContentEncoding),
	})
	return err
}

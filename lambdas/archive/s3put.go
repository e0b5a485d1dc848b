package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
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

// s3Client is a PutObject-only S3 client: one signed PUT (SigV4, with
// SSE-S3 asked for), retried on 5xx and throttling. The SDK's S3 package
// alone would take the handler past 15 MB.
type s3Client struct {
	cfg      aws.Config
	http     *http.Client
	endpoint string // "" for https://{bucket}.s3.{region}.amazonaws.com
	signer   *v4.Signer
	attempts int
}

func newS3(cfg aws.Config) *s3Client {
	return &s3Client{cfg: cfg, http: &http.Client{Timeout: 30 * time.Second}, signer: v4.NewSigner(), attempts: 3}
}

func (c *s3Client) url(o Object) string {
	path := (&url.URL{Path: "/" + o.Key}).EscapedPath()
	if c.endpoint != "" {
		return strings.TrimSuffix(c.endpoint, "/") + "/" + o.Bucket + path
	}
	return fmt.Sprintf("https://%s.s3.%s.amazonaws.com%s", o.Bucket, c.cfg.Region, path)
}

// Put writes the object.
func (c *s3Client) Put(ctx context.Context, o Object) error {
	sum := sha256.Sum256(o.Body)
	hash := hex.EncodeToString(sum[:])
	var last error
	for attempt := range c.attempts {
		if attempt > 0 {
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(time.Duration(100<<attempt) * time.Millisecond):
			}
		}
		req, err := http.NewRequestWithContext(ctx, http.MethodPut, c.url(o), bytes.NewReader(o.Body))
		if err != nil {
			return err
		}
		req.ContentLength = int64(len(o.Body))
		req.Header.Set("Content-Type", o.ContentType)
		req.Header.Set("Content-Encoding", o.ContentEncoding)
		req.Header.Set("X-Amz-Server-Side-Encryption", "AES256")
		req.Header.Set("X-Amz-Content-Sha256", hash)
		creds, err := c.cfg.Credentials.Retrieve(ctx)
		if err != nil {
			return err
		}
		if err := c.signer.SignHTTP(ctx, creds, req, hash, "s3", c.cfg.Region, time.Now()); err != nil {
			return err
		}
		resp, err := c.http.Do(req)
		if err != nil {
			last = err
			continue
		}
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
		resp.Body.Close()
		switch {
		case resp.StatusCode/100 == 2:
			return nil
		case resp.StatusCode >= 500 || resp.StatusCode == http.StatusTooManyRequests || bytes.Contains(body, []byte("SlowDown")):
			last = fmt.Errorf("s3 PutObject %s/%s: %s: %s", o.Bucket, o.Key, resp.Status, bytes.TrimSpace(body))
		default:
			return fmt.Errorf("s3 PutObject %s/%s: %s: %s", o.Bucket, o.Key, resp.Status, bytes.TrimSpace(body))
		}
	}
	return last
}

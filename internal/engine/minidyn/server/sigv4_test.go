package server

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/smithy-go"
	"github.com/keyplan/keyplan/internal/engine/minidyn/internal/require"
	"github.com/keyplan/keyplan/internal/engine/sdkhttp"
)

// With a secret, a request is served only when signed with it: the
// right key id with a wrong secret, an unknown key id, no signature, or a
// signature older than 15 minutes are refused with DynamoDB's errors; a
// body changed after signing is refused too.
func TestSignaturesAreVerified(t *testing.T) {
	srv := NewServerWith(Options{AccessKeyID: "AKIDRUN", SecretAccessKey: "s3cret/with+chars"})
	ts := httptest.NewServer(srv)
	defer ts.Close()

	// An engine whose clock is 16 minutes ahead: every signature is stale.
	ahead := NewServerWith(Options{AccessKeyID: "AKIDRUN", SecretAccessKey: "s3cret/with+chars"})
	ahead.signedAt = func() time.Time { return time.Now().Add(16 * time.Minute) }
	late := httptest.NewServer(ahead)
	defer late.Close()

	client := func(id, secret string, opts ...func(*dynamodb.Options)) *dynamodb.Client {
		return dynamodb.New(dynamodb.Options{Region: "eu-west-1", BaseEndpoint: aws.String(ts.URL + "/"), RetryMaxAttempts: 1,
			HTTPClient: sdkhttp.Client(), Credentials: credentials.NewStaticCredentialsProvider(id, secret, "")}, opts...)
	}
	ctx := context.Background()

	if _, err := client("AKIDRUN", "s3cret/with+chars").ListTables(ctx, &dynamodb.ListTablesInput{}); err != nil {
		t.Fatalf("signed with the secret: %v", err)
	}

	for name, tc := range map[string]struct {
		c    *dynamodb.Client
		code string
	}{
		"a wrong secret":    {client("AKIDRUN", "guess"), "InvalidSignatureException"},
		"another key id":    {client("AKIDOTHER", "s3cret/with+chars"), "UnrecognizedClientException"},
		"another region":    {client("AKIDRUN", "guess", func(o *dynamodb.Options) { o.Region = "us-west-2" }), "InvalidSignatureException"},
		"a stale signature": {client("AKIDRUN", "s3cret/with+chars", func(o *dynamodb.Options) { o.BaseEndpoint = aws.String(late.URL) }), "InvalidSignatureException"},
	} {
		_, err := tc.c.ListTables(ctx, &dynamodb.ListTablesInput{})

		var api smithy.APIError
		if !errors.As(err, &api) || api.ErrorCode() != tc.code {
			t.Errorf("%s: %v; want %s", name, err, tc.code)
		}
	}

	// The key id alone (a made-up signature, as the engine once took),
	// and a body changed after it was signed.
	body := `{"Limit":1}`
	req := func(b string) *http.Request {
		r, _ := http.NewRequest(http.MethodPost, ts.URL+"/", strings.NewReader(b))
		r.Header.Set("X-Amz-Target", "DynamoDB_20120810.ListTables")
		r.Header.Set("Content-Type", "application/x-amz-json-1.0")

		return r
	}
	sum := sha256.Sum256([]byte(body))
	signed := req(body)
	signer := v4.NewSigner()
	require.NoError(t, signer.SignHTTP(ctx, aws.Credentials{AccessKeyID: "AKIDRUN", SecretAccessKey: "s3cret/with+chars"}, signed,
		hex.EncodeToString(sum[:]), "dynamodb", "eu-west-1", time.Now()))

	changed := req(`{"Limit":2}`)
	changed.Header = signed.Header.Clone()
	forged := req(body)
	forged.Header.Set("X-Amz-Date", time.Now().UTC().Format("20060102T150405Z"))
	forged.Header.Set("Authorization", "AWS4-HMAC-SHA256 Credential=AKIDRUN/"+time.Now().UTC().Format("20060102")+"/eu-west-1/dynamodb/aws4_request, SignedHeaders=host, Signature=00")

	for name, tc := range map[string]struct {
		r    *http.Request
		want string
	}{
		"signed":                  {signed, "200 "},
		"the body changed":        {changed, "400 InvalidSignatureException"},
		"the key id alone":        {forged, "400 InvalidSignatureException"},
		"no Authorization header": {req(body), "400 MissingAuthenticationTokenException"},
	} {
		resp, err := http.DefaultClient.Do(tc.r)
		require.NoError(t, err)

		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()

		if got := strconv.Itoa(resp.StatusCode) + " " + string(b); !strings.HasPrefix(got, tc.want) && !strings.Contains(got, tc.want[4:]) || !strings.HasPrefix(got, tc.want[:4]) {
			t.Errorf("%s: %s; want %s", name, got, tc.want)
		}
	}
}

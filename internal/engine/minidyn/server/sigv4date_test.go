package server

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
)

// A request dated more than 15 minutes from the engine's clock is
// refused for its date before its key is looked at, as DynamoDB does
// (ScyllaDB's test_expired_signature and test_signature_too_futuristic
// sign with a key no server knows): "Signature expired" for the past,
// "Signature not yet current" for the future. The Authorization
// header's components may be separated by whitespace alone.
func TestSignatureDatedOutsideTheSkew(t *testing.T) {
	ts := httptest.NewServer(NewServerWith(Options{AccessKeyID: "AKIDRUN", SecretAccessKey: "s3cret"}))
	defer ts.Close()

	post := func(date, auth string) (int, string) {
		r, _ := http.NewRequest(http.MethodPost, ts.URL+"/", strings.NewReader("{}"))
		r.Header.Set("Content-Type", "application/x-amz-json-1.0")
		r.Header.Set("X-Amz-Target", "DynamoDB_20120810.ListTables")
		r.Header.Set("X-Amz-Date", date)
		r.Header.Set("Authorization", auth)
		return answer(t, r)
	}

	unknown := "AWS4-HMAC-SHA256 Credential=cassandra/2/3/4/aws4_request SignedHeaders=x-amz-date;host Signature=123"
	for date, want := range map[string]string{
		"20170101T010101Z": "Signature expired: 20170101T010101Z is now earlier than",
		"30200101T010101Z": "Signature not yet current: 30200101T010101Z is still later than",
	} {
		code, body := post(date, unknown)
		if code != http.StatusBadRequest || !strings.Contains(body, "InvalidSignatureException") || !strings.Contains(body, want) {
			t.Errorf("dated %s: %d %s", date, code, body)
		}
	}
	// Within the skew, the unknown key is what is refused.
	if code, body := post(time.Now().UTC().Format("20060102T150405Z"), unknown); code != http.StatusBadRequest || !strings.Contains(body, "UnrecognizedClientException") {
		t.Errorf("dated now, an unknown key: %d %s", code, body)
	}

	// A good signature with its components separated by spaces only.
	r, _ := http.NewRequest(http.MethodPost, ts.URL+"/", strings.NewReader("{}"))
	r.Header.Set("Content-Type", "application/x-amz-json-1.0")
	r.Header.Set("X-Amz-Target", "DynamoDB_20120810.ListTables")
	sum := sha256.Sum256([]byte("{}"))
	if err := v4.NewSigner().SignHTTP(context.Background(), aws.Credentials{AccessKeyID: "AKIDRUN", SecretAccessKey: "s3cret"}, r,
		hex.EncodeToString(sum[:]), "dynamodb", "us-east-1", time.Now()); err != nil {
		t.Fatal(err)
	}
	spaced := strings.ReplaceAll(r.Header.Get("Authorization"), ", ", " ")
	if code, body := post(r.Header.Get("X-Amz-Date"), spaced); code != http.StatusOK {
		t.Errorf("components separated by spaces: %d %s", code, body)
	}
}

// answer sends r and returns its status and body.
func answer(t *testing.T, r *http.Request) (int, string) {
	t.Helper()
	resp, err := http.DefaultClient.Do(r)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

package dynamo

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"

	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	s3types "github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/aws/smithy-go"
	smithyhttp "github.com/aws/smithy-go/transport/http"

	"github.com/keyplan/keyplan/internal/testkit/enginepass"
)

// onlyStore is an ObjectStore that is no ObjectChecker.
type onlyStore struct{ ObjectStore }

// failingGets fails every GetObject as S3 does when it is unreachable.
type failingGets struct{ ObjectStore }

var errUnreachable = errors.New("S3 unreachable")

func (failingGets) GetObject(context.Context, string) ([]byte, error) { return nil, errUnreachable }

// HasObject asks an ObjectChecker, and reads the object of a store that
// is none: a key held is true, one not held false, and the store's own
// failure is an error, never a missing object.
func TestHasObject(t *testing.T) {
	enginepass.Independent(t)
	ctx := context.Background()
	m := &MemoryObjects{}
	held := ObjectKey("Doc", "body")
	if err := m.PutObject(ctx, held, nil); err != nil { // an empty object is an object
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		store ObjectStore
	}{{"checker", m}, {"reads", onlyStore{m}}} {
		t.Run(tc.name, func(t *testing.T) {
			if ok, err := HasObject(ctx, tc.store, held); !ok || err != nil {
				t.Errorf("held: %v, %v", ok, err)
			}
			if ok, err := HasObject(ctx, tc.store, ObjectKey("Doc", "body")); ok || err != nil {
				t.Errorf("not held: %v, %v", ok, err)
			}
		})
	}
	if ok, err := HasObject(ctx, failingGets{m}, held); ok || !errors.Is(err, errUnreachable) {
		t.Errorf("S3 unreachable: %v, %v", ok, err)
	}
}

// headAnswers answers every HeadObject with err.
type headAnswers struct {
	S3API
	err error
}

func (h headAnswers) HeadObject(context.Context, *s3.HeadObjectInput, ...func(*s3.Options)) (*s3.HeadObjectOutput, error) {
	return nil, h.err
}

// statusError is an S3 answer with an HTTP status and no body, as the
// SDK gives a HEAD's.
func statusError(code int) error {
	return &awshttp.ResponseError{ResponseError: &smithyhttp.ResponseError{
		Response: &smithyhttp.Response{Response: &http.Response{StatusCode: code, Header: http.Header{}}},
		Err:      &smithy.GenericAPIError{Code: http.StatusText(code)}}}
}

// S3Objects.HasObject reads S3's answer to a HeadObject: 404 is no
// object; 403 (what S3 answers a caller that may not list the bucket for
// a key it does not hold, or one that may not read it) an error naming
// the permissions; another failure S3's error.
func TestS3ObjectsHasObjectReadsTheAnswer(t *testing.T) {
	enginepass.Independent(t)
	ctx := context.Background()
	key := ObjectKey("Doc", "body")
	for _, tc := range []struct {
		name string
		err  error
		held bool
		want string
	}{
		{"found", nil, true, ""},
		{"404", &s3types.NotFound{}, false, ""},
		{"403", statusError(403), false, "S3 refused HeadObject of " + key + " in bucket b (403): the caller needs s3:GetObject on the key, and s3:ListBucket on the bucket"},
		{"500", statusError(500), false, "Internal Server Error"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			held, err := S3Objects{Client: headAnswers{err: tc.err}, Bucket: "b"}.HasObject(ctx, key)
			if held != tc.held || (tc.want == "") != (err == nil) || err != nil && !strings.Contains(err.Error(), tc.want) {
				t.Errorf("HasObject: %v, %v; want %v, %q", held, err, tc.held, tc.want)
			}
		})
	}
}

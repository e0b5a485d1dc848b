package motos3

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
)

// Env is the variable that asks for moto: make test-s3 sets it to moto.
const Env = "KEYPLAN_S3"

// Server is a running moto.
type Server struct {
	// Client is an S3 client of it (path-style, fixed credentials).
	Client *s3.Client
	// Endpoint is its URL (AWS_ENDPOINT_URL_S3 for a client of the SDK's
	// default configuration).
	Endpoint string
	buckets  atomic.Int64
}

// Start starts moto's server for t (stopped at its end), or skips t:
// when $KEYPLAN_S3 is not moto (make test-s3 sets it), or when no moto
// is installed (python3 -m moto.server, moto_server).
func Start(t testing.TB) *Server {
	t.Helper()
	if os.Getenv(Env) != "moto" {
		t.Skipf("runs against moto's S3 only in make test-s3 ($%s=moto): moto takes about ten seconds to start", Env)
	}
	cmd, err := command()
	if err != nil {
		t.Skipf("moto's S3 is not installed (%v): pip install 'moto[server]==5.2.*' to run this test", err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	cmd.Args = append(cmd.Args, "-H", "127.0.0.1", "-p", fmt.Sprint(port))
	var log strings.Builder
	cmd.Stdout, cmd.Stderr = &log, &log
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting moto: %v", err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-done
	})
	url := fmt.Sprintf("http://127.0.0.1:%d", port)
	deadline := time.Now().Add(60 * time.Second)
	for {
		resp, err := http.Get(url + "/moto-api/")
		if err == nil {
			resp.Body.Close()
			break
		}
		select {
		case err := <-done:
			t.Fatalf("moto exited before it answered (%v):\n%s", err, log.String())
		case <-time.After(100 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("moto did not answer at %s within a minute:\n%s", url, log.String())
		}
	}
	c := s3.New(s3.Options{
		Region:       "us-east-1",
		BaseEndpoint: aws.String(url),
		UsePathStyle: true,
		Credentials:  credentials.NewStaticCredentialsProvider("testing", "testing", ""),
	})
	return &Server{Client: c, Endpoint: url}
}

// command is how moto's server is started here.
func command() (*exec.Cmd, error) {
	if p, err := exec.LookPath("python3"); err == nil {
		if exec.Command(p, "-c", "import moto.server").Run() == nil {
			return exec.Command(p, "-m", "moto.server"), nil
		}
	}
	p, err := exec.LookPath("moto_server")
	if err != nil {
		return nil, fmt.Errorf("neither python3 -m moto.server nor moto_server: %w", err)
	}
	return exec.Command(p), nil
}

// Bucket creates a new versioned bucket, as the construct's is.
func (s *Server) Bucket(t testing.TB) string {
	t.Helper()
	ctx := context.Background()
	name := fmt.Sprintf("keyplan-objects-%d", s.buckets.Add(1))
	if _, err := s.Client.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(name)}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Client.PutBucketVersioning(ctx, &s3.PutBucketVersioningInput{Bucket: aws.String(name),
		VersioningConfiguration: &types.VersioningConfiguration{Status: types.BucketVersioningStatusEnabled}}); err != nil {
		t.Fatal(err)
	}
	return name
}

// Versions are a bucket's objects as S3 lists their versions: the keys
// of the current objects (their latest version no delete marker), and
// per key how many versions and delete markers it has.
type Versions struct {
	Current  map[string]bool
	Versions map[string]int
	Deleted  map[string]int
}

// List lists bucket's versions.
func (s *Server) List(t testing.TB, bucket string) Versions {
	t.Helper()
	v := Versions{Current: map[string]bool{}, Versions: map[string]int{}, Deleted: map[string]int{}}
	p := s3.NewListObjectVersionsPaginator(s.Client, &s3.ListObjectVersionsInput{Bucket: aws.String(bucket)})
	for p.HasMorePages() {
		out, err := p.NextPage(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range out.Versions {
			k := aws.ToString(o.Key)
			v.Versions[k]++
			if aws.ToBool(o.IsLatest) {
				v.Current[k] = true
			}
		}
		for _, m := range out.DeleteMarkers {
			v.Deleted[aws.ToString(m.Key)]++
		}
	}
	return v
}

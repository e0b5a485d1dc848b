package enginepass

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/keyplan/keyplan/internal/engine"
	"github.com/keyplan/keyplan/patterns"
)

// stops records what NeedsNative says, and stops it there as Skipf and
// Fatalf stop a test (by a panic run recovers, not the test's Goexit).
type stops struct {
	testing.TB
	skipped, failed string
}

type stopped struct{}

func (s *stops) Helper() {}
func (s *stops) Skipf(format string, a ...any) {
	s.skipped = fmt.Sprintf(format, a...)
	panic(stopped{})
}
func (s *stops) Fatalf(format string, a ...any) {
	s.failed = fmt.Sprintf(format, a...)
	panic(stopped{})
}

// run calls f, which may stop as s says.
func (s *stops) run(f func()) {
	defer func() {
		if r := recover(); r != nil && r != (stopped{}) {
			panic(r)
		}
	}()
	f()
}

// NeedsNative skips only a design with a native index of several
// attributes a side, only on an engine that lacks them and refuses the
// table; an engine said to lack them that creates the table fails the
// test, and the table is deleted.
func TestNeedsNative(t *testing.T) {
	Independent(t)
	wide := &patterns.Design{Table: "T", Indexes: []*patterns.Index{
		{Name: "GSI1", PartitionKeys: []string{"a", "b"}, SortKeys: []string{"c"}},
	}}
	narrow := &patterns.Design{Table: "T", Indexes: []*patterns.Index{
		{Name: "GSI1", PartitionKeys: []string{"a"}, SortKeys: []string{"c"}},
		{Name: "GSI2"}, // synthetic
	}}
	// A client whose requests fail at once: the delete after a wrong
	// "lacks" has somewhere to go.
	nowhere := dynamodb.New(dynamodb.Options{Region: "us-east-1", BaseEndpoint: aws.String("http://127.0.0.1:1"),
		Credentials: aws.AnonymousCredentials{}, Retryer: aws.NopRetryer{}})
	refuses := func(context.Context) (string, error) {
		return "", errors.New("ValidationException: no multi-attribute keys")
	}
	creates := func(context.Context) (string, error) { return "t1-T", nil }
	for _, c := range []struct {
		name    string
		engine  string
		d       *patterns.Design
		create  func(context.Context) (string, error)
		created bool   // create is called
		skip    string // in what it says, "" for no skip
		fail    string
	}{
		{"an engine with native keys runs it", engine.Memory, wide, refuses, false, "", ""},
		{"a key of one attribute a side runs everywhere", engine.Dynalite, narrow, refuses, false, "", ""},
		{"an engine without them that refuses the table skips it", engine.Dynalite, wide, refuses, true, "T has native index GSI1: dynalite", ""},
		{"an engine said to lack them that creates the table fails", engine.Dynalite, wide, creates, true, "", "but it created T with native index GSI1"},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := &stops{TB: t}
			called := false
			s.run(func() {
				NeedsNative(s, &engine.Conn{Name: c.engine, Raw: nowhere}, c.d, func(ctx context.Context) (string, error) {
					called = true
					return c.create(ctx)
				})
			})
			if called != c.created {
				t.Errorf("create called: %v; want %v", called, c.created)
			}
			if c.skip == "" && s.skipped != "" || !strings.Contains(s.skipped, c.skip) {
				t.Errorf("skipped with %q; want %q", s.skipped, c.skip)
			}
			if c.fail == "" && s.failed != "" || !strings.Contains(s.failed, c.fail) {
				t.Errorf("failed with %q; want %q", s.failed, c.fail)
			}
		})
	}
}

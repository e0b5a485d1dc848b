package dynamo

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/keyplan/keyplan/patterns/model"
)

// A read's empty parameter says that no item has it, not the write's
// advice (declare the attribute optional: true), which is no answer for
// an id; and Get's error names Get once, not "Get P: Read P: …".
func TestEmptyReadParameter(t *testing.T) {
	lb := fresh(t, design(t, "../../examples/leaderboard.yaml"))
	ctx := context.Background()
	for pattern, params := range map[string]Params{"GetPlayer": {"playerId": ""}, "PlayerByHandle": {"handle": ""}} {
		_, err := lb.Get(ctx, pattern, params)
		if !errors.Is(err, model.ErrValue) || !strings.Contains(err.Error(), "a read's parameter cannot be empty") || strings.Contains(err.Error(), "optional: true") {
			t.Errorf("%s with an empty parameter: %v", pattern, err)
		}
		if err != nil && strings.Count(err.Error(), pattern) != 1 {
			t.Errorf("%s: the error names the pattern %d times: %v", pattern, strings.Count(err.Error(), pattern), err)
		}
	}
	if _, err := lb.Get(ctx, "GetPlayer", Params{}); !errors.Is(err, ErrMissing) || err.Error() != "Get GetPlayer: missing value: parameter playerId" {
		t.Errorf("a missing parameter: %v", err)
	}
}

// A range with a side missing says which, not "value <nil>: expected a
// number".
func TestRangeWithASideMissing(t *testing.T) {
	lb := fresh(t, design(t, "../../examples/leaderboard.yaml"))
	ctx := context.Background()
	for _, c := range []struct {
		r    Range
		want string
	}{
		{Range{Op: Between, Value: 1}, "between with no Upper"},
		{Range{Op: Ge}, ">= with no Value"},
		{Range{Op: Between, Upper: 5}, "between with no Value"},
	} {
		_, err := lb.Read(ctx, "SeasonLeaderboard", Request{Params: Params{"season": "s1"}, Range: &c.r})
		if !errors.Is(err, ErrBadRange) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want %q", c.r, err, c.want)
		}
	}
}

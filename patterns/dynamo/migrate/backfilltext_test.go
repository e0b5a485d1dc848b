package migrate

import (
	"strings"
	"testing"
	"time"
)

func TestBackfillText(t *testing.T) {
	for n, want := range map[int64]string{0: "0", 999: "999", 1000: "1,000", 1234567: "1,234,567", -5: "-5"} {
		if got := thousands(n); got != want {
			t.Errorf("thousands(%d) = %q, want %q", n, got, want)
		}
	}
	res := &BackfillResult{Stats: CheckpointStats{Scanned: 12000, Rewritten: 3000, Unchanged: 1000, Skipped: 8000, MilliWCU: 5_000_000}, Resumed: true, Before: CheckpointStats{Scanned: 2000}}
	if got := res.Summary(2*time.Second, false); !strings.HasPrefix(got, "backfilled in 2s (resumed: counts include the stopped runs): 12,000 items scanned, 3,000 rewritten, 1,000 already right, 8,000 of other entities") ||
		!strings.HasSuffix(got, "5,000 write units, 5,000 items/s") {
		t.Errorf("Summary = %q", got)
	}
	if got := (&BackfillResult{Stats: CheckpointStats{Scanned: 10, Pending: 4}}).Summary(time.Second, true); got != "verified in 1s: 10 items scanned, 0 already right, 4 still to rewrite, 0 of other entities" {
		t.Errorf("Summary(verify) = %q", got)
	}
	p := BackfillProgress{Stats: CheckpointStats{Scanned: 2500, Rewritten: 100}, Elapsed: time.Second}
	if got := p.Line(0); got != "2,500 items scanned, 100 rewritten, 2,500 items/s" {
		t.Errorf("Line(0) = %q", got)
	}
	if got := p.Line(10000); got != "2,500 of ~10,000 items (25%), 100 rewritten, 2,500 items/s, ETA 3s" {
		t.Errorf("Line(10000) = %q", got)
	}
}

// The table's item count is an estimate that writes during the scan
// outrun: the line never shows a count past it as "of" it, a percentage
// of 100 or more, or an ETA of 0s while the scan goes on.
func TestBackfillLinePastTheEstimate(t *testing.T) {
	line := func(scanned, total int64) string {
		return BackfillProgress{Stats: CheckpointStats{Scanned: scanned, Rewritten: 10}, Elapsed: 10 * time.Second}.Line(total)
	}
	for _, tt := range []struct {
		scanned, total int64
		want           string
	}{
		{3_000, 3_504, "3,000 of ~3,504 items (85%), 10 rewritten, 300 items/s, ETA 2s"},
		{3_503, 3_504, "3,503 of ~3,504 items (99%), 10 rewritten, 350 items/s, ETA 0s"},
		{3_504, 3_504, "3,504 items scanned, past the table's estimate of ~3,504 (DynamoDB's item count lags behind writes: no percentage or ETA), 10 rewritten, 350 items/s"},
		{4_998, 3_504, "4,998 items scanned, past the table's estimate of ~3,504 (DynamoDB's item count lags behind writes: no percentage or ETA), 10 rewritten, 499 items/s"},
	} {
		if got := line(tt.scanned, tt.total); got != tt.want {
			t.Errorf("Line: %d of %d:\n got %s\nwant %s", tt.scanned, tt.total, got, tt.want)
		}
	}
}

package migrate

import (
	"context"
	"math"
	"strings"
	"testing"
)

// A write-rate limit that is not a number is refused, by the check the
// CLI's --max-wcu can use and by Backfill itself (NaN compares false with
// every bound, and ran unlimited).
func TestCheckMaxWCU(t *testing.T) {
	for _, ok := range []float64{0, 0.5, 100, 1e9} {
		if err := CheckMaxWCU(ok); err != nil {
			t.Errorf("%v: %v", ok, err)
		}
	}
	for _, bad := range []float64{math.NaN(), math.Inf(1), math.Inf(-1), -1} {
		if err := CheckMaxWCU(bad); err == nil {
			t.Errorf("%v accepted", bad)
		}
		_, err := (&Rekeyer{}).Backfill(context.Background(), nil, BackfillOptions{MaxWCU: bad})
		if err == nil || !strings.Contains(err.Error(), "BackfillOptions.MaxWCU") {
			t.Errorf("Backfill with MaxWCU %v: %v", bad, err)
		}
	}
}

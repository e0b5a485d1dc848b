package migrate

import (
	"fmt"
	"strings"
	"time"
)

// Summary says what a backfill run did, in one line ("… in 1.2s: 1,000
// items scanned, …"), for a run of took; a verification's (Rekeyer.DryRun)
// says what is right and what is still to rewrite.
func (r *BackfillResult) Summary(took time.Duration, verify bool) string {
	s := r.Stats
	if verify {
		return fmt.Sprintf("verified in %s: %s items scanned, %s already right, %s still to rewrite, %s of other entities",
			took.Round(time.Millisecond), thousands(s.Scanned), thousands(s.Unchanged), thousands(s.Pending), thousands(s.Skipped))
	}
	resumed := ""
	if r.Resumed {
		resumed = " (resumed: counts include the stopped runs)"
	}
	rate := BackfillProgress{Stats: s, Before: r.Before, Elapsed: took}.Rate()
	return fmt.Sprintf("backfilled in %s%s: %s items scanned, %s rewritten, %s already right, %s of other entities, %s re-read after a concurrent write, %s deleted meanwhile, %s failed; %s write units, %s items/s",
		took.Round(time.Millisecond), resumed, thousands(s.Scanned), thousands(s.Rewritten), thousands(s.Unchanged), thousands(s.Skipped),
		thousands(s.Conflicts), thousands(s.Deleted), thousands(s.Failed), thousands(s.MilliWCU/1000), thousands(int64(rate)))
}

// Line says how far a running backfill is, in one line: against the
// table's item count (DynamoDB's estimate, total > 0) with a percentage
// and an ETA. The estimate lags (DynamoDB updates it about every six
// hours) and writes go on during the scan: once the scan reaches it, the
// line says so and gives neither (a percentage stays under 100 while the
// scan runs).
func (p BackfillProgress) Line(total int64) string {
	s, rate := p.Stats, p.Rate()
	if total <= 0 {
		return fmt.Sprintf("%s items scanned, %s rewritten, %s items/s", thousands(s.Scanned), thousands(s.Rewritten+s.Pending), thousands(int64(rate)))
	}
	if s.Scanned >= total {
		return fmt.Sprintf("%s items scanned, past the table's estimate of ~%s (DynamoDB's item count lags behind writes: no percentage or ETA), %s rewritten, %s items/s",
			thousands(s.Scanned), thousands(total), thousands(s.Rewritten+s.Pending), thousands(int64(rate)))
	}
	eta := "?"
	if rate > 0 {
		eta = time.Duration(float64(total-s.Scanned) / rate * float64(time.Second)).Round(time.Second).String()
	}
	return fmt.Sprintf("%s of ~%s items (%d%%), %s rewritten, %s items/s, ETA %s", thousands(s.Scanned), thousands(total),
		s.Scanned*100/total, thousands(s.Rewritten+s.Pending), thousands(int64(rate)), eta)
}

// thousands writes an integer with thousands separators (1,234,567).
func thousands(n int64) string {
	s := fmt.Sprint(n)
	if n < 0 {
		return s
	}
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}

// Limits says the rate limits a run keeps (", at most 500 WCU/s, 200
// RCU/s"; "" for none).
func (o BackfillOptions) Limits() string {
	var parts []string
	if o.MaxWCU > 0 {
		parts = append(parts, fmt.Sprintf("%g WCU/s", o.MaxWCU))
	}
	if o.MaxRCU > 0 {
		parts = append(parts, fmt.Sprintf("%g RCU/s", o.MaxRCU))
	}
	if len(parts) == 0 {
		return ""
	}
	return ", at most " + strings.Join(parts, ", ")
}

package patterns_test

import (
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/keyplan/keyplan/internal/testkit/enginepass"
	"github.com/keyplan/keyplan/internal/testkit/testmodel"
	"github.com/keyplan/keyplan/patterns"
	"github.com/keyplan/keyplan/patterns/model"
)

// matches is a model of one player's matches read strongly by score (an
// LSI), at most n matches a player.
func matches(n int) string { return testmodel.ArenaMatches(n) }

func kp308(d *patterns.Design) *patterns.Diagnostic {
	for i, x := range d.Diagnostics {
		if x.ID == "KP308" {
			return &d.Diagnostics[i]
		}
	}
	return nil
}

// The 10 GB warning fires on a model whose item collections can exceed
// it, with the estimate and the fix, and exactly from the first item past
// 10 GB: one match fewer and it is silent.
func TestItemCollectionPast10GB(t *testing.T) {
	enginepass.Independent(t)
	d := planKeyed(t, matches(100_000_000), nil, "")
	if len(d.LocalIndexes) != 1 {
		t.Fatalf("%d LSIs; want 1", len(d.LocalIndexes))
	}
	x := kp308(d)
	if x == nil {
		t.Fatalf("no KP308 for 100,000,000 matches a player: %v", d.Diagnostics)
	}
	t.Log(x.Message)
	if x.Severity != patterns.SeverityWarning {
		t.Errorf("KP308 is %s", x.Severity)
	}
	for _, want := range []string{"a MATCH#{playerId} item collection can hold ", " GB (Match: 100000000 item(s) of ", " with their LSI1 entries)", "more than the 10 GB", "LSI1", "ItemCollectionSizeLimitExceededException"} {
		if !strings.Contains(x.Message, want) {
			t.Errorf("KP308 says %q; want %q in it", x.Message, want)
		}
	}
	for _, want := range []string{"a lower cardinality", "project less into the LSIs", "eventually consistent from a GSI"} {
		if !strings.Contains(x.Fix, want) {
			t.Errorf("KP308's fix %q; want %q in it", x.Fix, want)
		}
	}
	// The estimate is items × bytes: read the bytes back and find the
	// boundary.
	m := regexp.MustCompile(`item\(s\) of (\d+) B with`).FindStringSubmatch(x.Message)
	if m == nil {
		t.Fatalf("no item size in %q", x.Message)
	}
	size, _ := strconv.Atoi(m[1])
	// An item and its LSI1 entry (projection ALL: the item again), with
	// the 100 bytes DynamoDB adds to each index entry.
	var item int
	for _, e := range d.Cost.Entities {
		if e.Name == "Match" {
			item = e.ItemBytes
		}
	}
	if want := 2*item + model.IndexEntryOverheadBytes; item == 0 || size != want {
		t.Errorf("an item with its LSI entry: %d B; want %d (the item's %d twice and 100)", size, want, item)
	}
	gb := regexp.MustCompile(`can hold ([0-9.]+) GB`).FindStringSubmatch(x.Message)
	if want := strconv.FormatFloat(float64(size)*100_000_000/(1<<30), 'f', 1, 64); gb == nil || gb[1] != want {
		t.Errorf("estimate %v; want %s GB (100,000,000 × %d B)", gb, want, size)
	}
	most := model.MaxItemCollectionBytes / size
	if x := kp308(planKeyed(t, matches(most), nil, "")); x != nil {
		t.Errorf("%d matches of %d B (at most 10 GB): %s", most, size, x.Message)
	}
	if kp308(planKeyed(t, matches(most+1), nil, "")) == nil {
		t.Errorf("%d matches of %d B (past 10 GB): no KP308", most+1, size)
	}
	// Without an LSI the table has no such limit.
	eventual := strings.Replace(matches(100_000_000), "sort: score desc, consistent: true", "sort: score desc", 1)
	if d := planKeyed(t, eventual, nil, ""); len(d.LocalIndexes) != 0 || kp308(d) != nil {
		t.Errorf("no LSI: %d LSIs, KP308 %v", len(d.LocalIndexes), kp308(d))
	}
}

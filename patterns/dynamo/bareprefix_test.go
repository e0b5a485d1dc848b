package dynamo

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/keyplan/keyplan/internal/testkit/testmodel"
	"github.com/keyplan/keyplan/patterns"
	"github.com/keyplan/keyplan/patterns/model"
)

// A hand-made sort key that starts with its sort attribute (seed 001's
// GSI1SK = 2024-01-15, an imported table's) has no literal prefix: every
// range on it is a condition DynamoDB takes (it refuses an empty string as
// a bound), and returns what a brute-force filter keeps. On main a range
// with an open end sent BETWEEN "" AND …, refused, or BETWEEN … AND "$",
// which holds no date.
func TestRangesOnABareSortKey(t *testing.T) {
	m, err := model.Parse("dated.yaml", []byte(testmodel.DatedBareSortKey))
	if err != nil {
		t.Fatal(err)
	}
	d, err := patterns.Plan(m)
	if err != nil {
		t.Fatal(err)
	}
	tbl := fresh(t, d)
	ctx := context.Background()
	days := []string{"2026-01-01", "2026-01-02", "2026-01-03", "2026-01-04"}
	for i, day := range days {
		for _, id := range []string{"o1", "o10"} { // equal sort values, prefix ids
			if err := tbl.Create(ctx, "Order", Values{"orderId": fmt.Sprintf("%s-%d", id, i), "status": "PENDING", "placedAt": day + "T00:00:00Z"}); err != nil {
				t.Fatal(err)
			}
		}
	}
	at := func(day string) string { return day + "T00:00:00Z" }
	tests := []struct {
		r    *Range
		want []string // the days kept
	}{
		{nil, days},
		{&Range{Op: Lt, Value: at(days[2])}, days[:2]},
		{&Range{Op: Le, Value: at(days[2])}, days[:3]},
		{&Range{Op: Gt, Value: at(days[1])}, days[2:]},
		{&Range{Op: Ge, Value: at(days[1])}, days[1:]},
		{&Range{Op: Eq, Value: at(days[3])}, days[3:]},
		{&Range{Op: Between, Value: at(days[1]), Upper: at(days[2])}, days[1:3]},
		{&Range{Op: Le, Value: "2099-01-01T00:00:00Z"}, days},
		{&Range{Op: Ge, Value: "2000-01-01T00:00:00Z"}, days},
	}
	for _, tt := range tests {
		name := "all"
		if tt.r != nil {
			name = fmt.Sprintf("%s %v", tt.r.Op, tt.r.Value)
		}
		t.Run(name, func(t *testing.T) {
			page, err := tbl.Read(ctx, "ByStatus", Request{Params: Params{"status": "PENDING"}, Range: tt.r})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, it := range page.Items {
				day := it.Values["placedAt"].(time.Time).Format("2006-01-02")
				if len(got) == 0 || got[len(got)-1] != day {
					got = append(got, day)
				}
			}
			if !slices.Equal(got, tt.want) || len(page.Items) != 2*len(tt.want) {
				t.Errorf("%d item(s) of days %v, want 2 of each of %v", len(page.Items), got, tt.want)
			}
		})
	}
}

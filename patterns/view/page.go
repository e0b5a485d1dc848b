package view

import (
	"context"
	"io"

	"github.com/keyplan/keyplan/patterns"
	"github.com/keyplan/keyplan/patterns/report"
)

// WritePage writes the design's HTML page (report.WriteHTML), its table
// filled with the model's examples as keyplan's runtime writes and reads
// them (Sample): keyplan plan --format html.
func WritePage(ctx context.Context, w io.Writer, d *patterns.Design) error {
	s, err := Sample(ctx, d, Options{})
	if err != nil {
		return err
	}
	return report.WriteHTML(w, d, s)
}

package report_test

import (
	"errors"
	"io"
	"os"
	"testing"

	"github.com/keyplan/keyplan/internal/testkit/testmodel"
	"github.com/keyplan/keyplan/patterns"
	"github.com/keyplan/keyplan/patterns/model"
	"github.com/keyplan/keyplan/patterns/report"
)

// FuzzPlan feeds arbitrary model files through the loader, the planner and
// every report format: bad input must come back as ErrInvalidModel, never
// as a panic.
func FuzzPlan(f *testing.F) {
	for _, file := range testmodel.Files(f) {
		b, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(`{"table": "T", "entities": {"A": {"id": "a", "attributes": {"a": "number"}}}, "patterns": {"G": {"get": "A"}}}`))
	f.Add([]byte("table: T\nentities: &a {A: *a}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := model.Parse("fuzz.yaml", data)
		if err != nil {
			if !errors.Is(err, model.ErrInvalidModel) {
				t.Fatalf("error does not match ErrInvalidModel: %v", err)
			}
			return
		}
		d, err := patterns.Plan(m)
		if err != nil {
			t.Fatalf("Plan of a loaded model: %v", err)
		}
		for _, format := range report.PlanFormats() {
			if err := report.Write(io.Discard, d, format); err != nil {
				t.Fatal(err)
			}
		}
		if err := report.WriteFindings(io.Discard, "fuzz.yaml", d.Diagnostics, report.SARIF); err != nil {
			t.Fatal(err)
		}
	})
}

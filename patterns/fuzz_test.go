package patterns

import (
	"errors"
	"io"
	"os"
	"testing"
)

// FuzzPlan feeds arbitrary model files through the loader, the planner and
// every report format: bad input must come back as ErrInvalidModel, never
// as a panic.
func FuzzPlan(f *testing.F) {
	for _, file := range models(f) {
		b, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(handmade))
	f.Add([]byte(validModel))
	f.Add([]byte(`{"table": "T", "entities": {"A": {"id": "a", "attributes": {"a": "number"}}}, "patterns": {"G": {"get": "A"}}}`))
	f.Add([]byte("table: T\nentities: &a {A: *a}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := Parse("fuzz.yaml", data)
		if err != nil {
			if !errors.Is(err, ErrInvalidModel) {
				t.Fatalf("error does not match ErrInvalidModel: %v", err)
			}
			return
		}
		d, err := Plan(m)
		if err != nil {
			t.Fatalf("Plan of a loaded model: %v", err)
		}
		for _, format := range Formats {
			if err := d.Write(io.Discard, format); err != nil {
				t.Fatal(err)
			}
		}
	})
}

package keyplantest

import (
	"os"
	"testing"

	"github.com/keyplan/keyplan/patterns"
	"github.com/keyplan/keyplan/patterns/model"
)

// Design loads a model file and plans it from scratch (no lock), failing
// t on an error.
func Design(t testing.TB, path string) *patterns.Design {
	t.Helper()
	m, err := model.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	return plan(t, m)
}

// DesignNamed is Design for a model whose file positions name it name
// (golden outputs made where the file had another relative path).
func DesignNamed(t testing.TB, path, name string) *patterns.Design {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return Parse(t, name, data)
}

// Parse plans a model given as bytes, named file in positions.
func Parse(t testing.TB, file string, data []byte) *patterns.Design {
	t.Helper()
	m, err := model.Parse(file, data)
	if err != nil {
		t.Fatal(err)
	}
	return plan(t, m)
}

// Open plans a model file with the lock beside it (patterns.Open; the
// lock is nil when there is none), failing t on an error.
func Open(t testing.TB, path string) (*patterns.Design, *patterns.Lock) {
	t.Helper()
	d, lock, err := patterns.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	return d, lock
}

func plan(t testing.TB, m *model.Model) *patterns.Design {
	t.Helper()
	d, err := patterns.Plan(m)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// Keyed is Design with the GSIs keyed as keys says whatever the model
// says (patterns.Options.IndexKeys): a test of the synthetic keys'
// machinery plans with patterns.IndexKeysSynthetic.
func Keyed(t testing.TB, path string, keys model.IndexKeys) *patterns.Design {
	t.Helper()
	m, err := model.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	d, err := patterns.PlanWith(m, patterns.Options{IndexKeys: keys})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

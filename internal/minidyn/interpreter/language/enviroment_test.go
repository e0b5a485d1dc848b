package language

import (
	"testing"

	"github.com/keyplan/keyplan/internal/minidyn/types"
)

func TestString(t *testing.T) {
	env := NewEnvironment()

	env.Set("foo", &String{Value: "blee"})
	env.Set("bar", &Number{Value: 10})

	if env.String() != "{bar => 10,foo => blee}" {
		t.Errorf("unexpected value. got=%v, want=%v", env.String(), "{bar => 10,foo => blee}")
	}
}

func TestApply(t *testing.T) {
	item := map[string]*types.Item{
		"a": {
			S: new("a"),
		},
	}

	env := NewEnvironment()
	env.Set(":fu", &String{Value: "blee"})
	env.Set("bar", &Number{Value: 10})

	env.Apply(item, map[string]string{":fu": "foo"}, map[string]bool{"bar": true})

	if len(item) != 2 {
		t.Errorf("Expected 3 items, got %d", len(item))
	}
}

func TestApplyRemovesWhatRemoveTook(t *testing.T) {
	item := map[string]*types.Item{"a": {S: new("a")}, "b": {S: new("b")}, "c": {S: new("c")}}

	env := NewEnvironment()
	if err := env.AddAttributes(item); err != nil {
		t.Fatal(err)
	}

	env.Remove("a")
	env.Remove("b")
	env.Set("b", &String{Value: "again"})
	env.Apply(item, nil, nil)

	if _, ok := item["a"]; ok || len(item) != 2 || *item["b"].S != "again" {
		t.Errorf("item after REMOVE a, REMOVE b, SET b: %v", item)
	}
}

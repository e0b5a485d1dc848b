package expression

import (
	"strings"
	"testing"

	"github.com/keyplan/keyplan/internal/engine/minidyn/types"
)

func s(v string) *types.Item { return &types.Item{S: &v} }
func n(v string) *types.Item { return &types.Item{N: &v} }
func l(vs ...*types.Item) *types.Item {
	if vs == nil {
		vs = []*types.Item{}
	}

	return &types.Item{L: vs}
}
func m(kv map[string]*types.Item) *types.Item { return &types.Item{M: kv} }

// item is the item the condition cases read.
func item() map[string]*types.Item {
	return map[string]*types.Item{
		"p": s("a"), "n": n("5"), "s": s("héllo"), "l": l(n("1"), n("2")),
		"m": m(map[string]*types.Item{"k": s("v")}), "ss": {SS: []*string{ptr("x"), ptr("y")}},
	}
}

func ptr(v string) *string { return &v }

// Each case was checked against DynamoDB Local 1.25.1 (a ConditionExpression
// on a PutItem): want is whether the condition holds on item(), or the
// message of the ValidationException.
func TestConditions(t *testing.T) {
	vals := map[string]*types.Item{":n": n("5"), ":s": s("x"), ":l": l(), ":one": n("1"), ":two": n("2"), ":big": n("9"), ":t": s("N")}

	for _, c := range []struct {
		expr string
		want any // bool, or the error's message (a prefix)
	}{
		{"n = :n", true},
		{"n < :s", false}, // different types: false
		{"n = :s", false},
		{"nope <> :n", true}, // a missing attribute is not equal
		{"nope = :n", false},
		{"n BETWEEN :one AND :big", true},
		{"n between :one and :big", true}, // keywords in any case
		{"n In (:one, :n)", true},
		{"NOT n = :n", false},
		{"(n = :n) AND (p = :s OR n = :n)", true},
		{"size(s) = :n", true}, // characters, not bytes
		{"size(l) = :two", true},
		{"size(m) = :one", true},
		{"size(ss) = :two", true},
		{"size(n) = :one", false}, // size of a number: no value
		{"contains(l, :two)", true},
		{"contains(m, :s)", false}, // contains on a map: false
		{"contains(ss, :s)", true},
		{"begins_with(s, :s)", false},
		{"attribute_type(n, :t)", true},
		{"l[7] = :one", false}, // past the end: no value
		{"l[0] = :one", true},
		{"m.k = :s", false},
		{"n < :l", "Invalid ConditionExpression: Incorrect operand type for operator or function; operator or function: <, operand type: L"},
		{"n = = :n", `Invalid ConditionExpression: Syntax error; token: "=", near: "= = :n"`},
		{"n = :n AND", `Invalid ConditionExpression: Syntax error; token: "<EOF>", near: "AND"`},
		// At the end, "near" keeps the spaces after the last token (DynamoDB Local 1.25.1).
		{"n = :n AND  ", `Invalid ConditionExpression: Syntax error; token: "<EOF>", near: "AND  "`},
		{"(n = :n) OR   ", `Invalid ConditionExpression: Syntax error; token: "<EOF>", near: "OR   "`},
		{"name = :n", "Invalid ConditionExpression: Attribute name is a reserved keyword; reserved keyword: name"},
		{"#x = :n", "Invalid ConditionExpression: An expression attribute name used in the document path is not defined; attribute name: #x"},
		{"n = :undefined", "Invalid ConditionExpression: An expression attribute value used in expression is not defined; attribute value: :undefined"},
		{"n BETWEEN :big AND :one", "Invalid ConditionExpression: The BETWEEN operator requires upper bound to be greater than or equal to lower bound"},
		{"n BETWEEN :one AND :s", "Invalid ConditionExpression: The BETWEEN operator requires same data type for lower and upper bounds"},
		{"begins_with(s, :n)", "Invalid ConditionExpression: Incorrect operand type for operator or function; operator or function: begins_with, operand type: N"},
		{"attribute_type(n, :s)", "Invalid ConditionExpression: Invalid attribute type name found; type: x"},
		{"foo(n)", "Invalid ConditionExpression: Invalid function name; function: foo"},
		{"begins_with(n)", "Invalid ConditionExpression: Incorrect number of operands for operator or function; operator or function: begins_with, number of operands: 1"},
		{"size(n)", "Invalid ConditionExpression: The function is not allowed to be used this way in an expression; function: size"},
		{"attribute_exists(:n)", "Invalid ConditionExpression: Operator or function requires a document path; operator or function: attribute_exists"},
		{"n = n", "Invalid ConditionExpression: The first operand must be distinct from the remaining operands for this operator or function; operator: =, first operand: [n]"},
		{"size(:n) = :n", "Invalid ConditionExpression: Incorrect operand type for operator or function; operator or function: size, operand type: N"},
		{"((n = :n))", "Invalid ConditionExpression: The expression has redundant parentheses;"},
		{"_n = :n", `Invalid ConditionExpression: Syntax error; token: "_", near: "_n"`},
		{"n ! :n", `Invalid ConditionExpression: Syntax error; token: "!", near: "n ! :n"`},
		{"a" + strings.Repeat(".b", 32) + " = :n", "Invalid ConditionExpression: The document path has too many nesting levels; nesting levels: 33"},
	} {
		req, err := NewRequest(nil, vals)
		if err != nil {
			t.Fatal(err)
		}

		cond, err := ParseCondition(ConditionExpression, c.expr, req)

		switch want := c.want.(type) {
		case bool:
			if err != nil {
				t.Errorf("%s: %v", c.expr, err)
			} else if got := cond.Eval(item()); got != want {
				t.Errorf("%s = %v, want %v", c.expr, got, want)
			}
		case string:
			if err == nil || !strings.HasPrefix(err.Error(), want) {
				t.Errorf("%s: got %v, want %q", c.expr, err, want)
			}
		}
	}
}

// Update cases, checked against DynamoDB Local 1.25.1; want is the item's
// attributes after the update (key p omitted), or the error's message.
func TestUpdates(t *testing.T) {
	vals := map[string]*types.Item{":n": n("2"), ":s": s("x"), ":l": l(s("z")), ":ss": {SS: []*string{ptr("x")}}, ":one": n("1")}

	for _, c := range []struct {
		expr string
		want any // map[string]*types.Item or a message prefix
	}{
		{"SET cur = :n, prev = cur", map[string]*types.Item{"cur": n("2"), "prev": n("1"), "l": l(n("1")), "ss": {SS: []*string{ptr("x"), ptr("y")}}}},
		{"SET cur = cur + :one", map[string]*types.Item{"cur": n("2"), "l": l(n("1")), "ss": {SS: []*string{ptr("x"), ptr("y")}}}},
		{"SET l = list_append(l, :l)", map[string]*types.Item{"cur": n("1"), "l": l(n("1"), s("z")), "ss": {SS: []*string{ptr("x"), ptr("y")}}}},
		{"SET l[5] = :n, l[3] = :s", map[string]*types.Item{"cur": n("1"), "l": l(n("1"), s("x"), n("2")), "ss": {SS: []*string{ptr("x"), ptr("y")}}}},
		{"REMOVE l[0] DELETE ss :ss", map[string]*types.Item{"cur": n("1"), "l": l(), "ss": {SS: []*string{ptr("y")}}}},
		{"ADD cur :one, fresh :n", map[string]*types.Item{"cur": n("2"), "fresh": n("2"), "l": l(n("1")), "ss": {SS: []*string{ptr("x"), ptr("y")}}}},
		{"set cur = if_not_exists(nope, :n)", map[string]*types.Item{"cur": n("2"), "l": l(n("1")), "ss": {SS: []*string{ptr("x"), ptr("y")}}}},
		{"SET cur = nope + :one", "The provided expression refers to an attribute that does not exist in the item"},
		{"SET cur = ss + :one", "An operand in the update expression has an incorrect data type"},
		{"SET q.r = :n", "The document path provided in the update expression is invalid for update"},
		{"REMOVE q.r", "The document path provided in the update expression is invalid for update"},
		{"SET a = :n REMOVE a", "Invalid UpdateExpression: Two document paths overlap with each other; must remove or rewrite one of these paths; path one: [a], path two: [a]"},
		{"SET a.b = :n, a[1] = :n", "Invalid UpdateExpression: Two document paths conflict with each other; must remove or rewrite one of these paths; path one: [a, b], path two: [a, [1]]"},
		{"SET a = :n SET b = :n", `Invalid UpdateExpression: The "SET" section can only be used once in an update expression;`},
		{"SET a = size(l)", "Invalid UpdateExpression: The function is not allowed in an update expression; function: size"},
		{"ADD cur :s", "Invalid UpdateExpression: Incorrect operand type for operator or function; operator: ADD, operand type: STRING"},
		{"SET a = list_append(:l)", "Invalid UpdateExpression: Incorrect number of operands for operator or function; operator or function: list_append, number of operands: 1"},
		{"SET a = list_append(list_append(:l, :l), :l)", "Invalid UpdateExpression: The function is not allowed to be used this way in an expression; function: list_append"},
		{"SET a = if_not_exists(b, :n + :n)", `Invalid UpdateExpression: Syntax error; token: "+"`},
		{"SET a = :n + :n + :n", `Invalid UpdateExpression: Syntax error; token: "+"`},
		{"SET a  =  ", `Invalid UpdateExpression: Syntax error; token: "<EOF>", near: "=  "`},
		{"SET a = :n,  ", `Invalid UpdateExpression: Syntax error; token: "<EOF>", near: ",  "`},
		{"  SET", `Invalid UpdateExpression: Syntax error; token: "<EOF>", near: "SET"`},
	} {
		req, err := NewRequest(nil, vals)
		if err != nil {
			t.Fatal(err)
		}

		old := map[string]*types.Item{"p": s("k"), "cur": n("1"), "l": l(n("1")), "ss": {SS: []*string{ptr("x"), ptr("y")}}}

		upd, err := ParseUpdate(c.expr, req)
		if err == nil {
			var got map[string]*types.Item

			got, err = upd.Apply(old, false)
			if err == nil {
				want, ok := c.want.(map[string]*types.Item)
				if !ok {
					t.Errorf("%s: applied, want %v", c.expr, c.want)
					continue
				}

				delete(got, "p")

				if !types.Equal(&types.Item{M: got}, &types.Item{M: want}) {
					t.Errorf("%s: got %v, want %v", c.expr, show(got), show(want))
				}

				if *old["cur"].N != "1" || len(old["l"].L) != 1 {
					t.Errorf("%s changed the old item", c.expr)
				}

				continue
			}
		}

		if want, ok := c.want.(string); !ok || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("%s: got %v, want %v", c.expr, err, c.want)
		}
	}
}

func show(m map[string]*types.Item) string {
	var b strings.Builder
	for k, v := range m {
		b.WriteString(k + "=" + types.TypeOf(v) + " ")
	}

	return b.String()
}

// Placeholders a request declares and no expression uses are refused.
func TestUnusedPlaceholders(t *testing.T) {
	req, _ := NewRequest(map[string]string{"#a": "a", "#b": "b"}, map[string]*types.Item{":v": n("1")})
	if _, err := ParseCondition(ConditionExpression, "#a = :v", req); err != nil {
		t.Fatal(err)
	}

	if err := req.CheckUnused(); err == nil || err.Error() != "Value provided in ExpressionAttributeNames unused in expressions: keys: {#b}" {
		t.Fatalf("got %v", err)
	}

	if _, err := NewRequest(map[string]string{"a": "a"}, nil); err == nil || !strings.Contains(err.Error(), "ExpressionAttributeNames contains invalid key") {
		t.Fatalf("a name without #: %v", err)
	}
}

// Projections keep nested structure and list order.
func TestProjection(t *testing.T) {
	it := map[string]*types.Item{"a": m(map[string]*types.Item{"b": l(n("0"), n("1"), n("2")), "c": s("x")}), "z": s("z")}

	pr, err := ParseProjection("a.b[2], a.b[0], z, nope, a.b[9]", nil)
	if err != nil {
		t.Fatal(err)
	}

	got := pr.Apply(it)
	want := map[string]*types.Item{"a": m(map[string]*types.Item{"b": l(n("0"), n("2"))}), "z": s("z")}

	if !types.Equal(&types.Item{M: got}, &types.Item{M: want}) {
		t.Fatalf("got %v", got)
	}

	if _, err := ParseProjection("a, a.b", nil); err == nil || !strings.Contains(err.Error(), "overlap") {
		t.Fatalf("overlapping paths: %v", err)
	}

	if _, err := ParseProjection("a[99999999999999]", nil); err == nil || !strings.Contains(err.Error(), "List index is not within the allowable range") {
		t.Fatalf("a huge index: %v", err)
	}
}

// Deep nesting is refused without exhausting the stack.
func TestNestingIsBounded(t *testing.T) {
	deep := strings.Repeat("(", 100000) + "a = :v" + strings.Repeat(")", 100000)
	req, _ := NewRequest(nil, map[string]*types.Item{":v": n("1")})

	if _, err := ParseCondition(ConditionExpression, deep[:MaxExpressionBytes], req); err == nil {
		t.Fatal("deep nesting accepted")
	}

	many := "a = :v" + strings.Repeat(" OR a = :v", 310)

	if _, err := ParseCondition(ConditionExpression, many, req); err == nil || !strings.Contains(err.Error(), "too many operators; operator count: 301") {
		t.Fatalf("621 operators: %v", err)
	}
}

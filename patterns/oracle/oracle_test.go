package oracle

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/keyplan/keyplan/patterns/model"
)

const shopModel = `
table: Shop
entities:
  Customer:
    id: [customerId]
    attributes:
      customerId: {type: string, maxLength: 10}
      email: {type: string, maxLength: 20}
      nick: {type: string, optional: true}
  Order:
    id: [customerId, orderId]
    within: Customer
    version: rev
    attributes:
      customerId: {type: string, maxLength: 10}
      orderId: {type: string, maxLength: 10}
      status: {type: string, values: [OPEN, PAID, "A#B"]}
      total: {type: number, min: -5, max: 100}
      at: time
      note: {type: string, optional: true}
      rev: {type: number, min: 1}
patterns:
  GetCustomer: {get: Customer}
  ByEmail: {get: Customer, where: [email], unique: true}
  Orders: {query: Order, where: [customerId], sort: at desc, limit: 2}
  OrdersByTotal: {query: Order, where: [customerId], sort: [total, at]}
  OpenOrders: {query: Order, where: [customerId], filter: {status: OPEN}}
  CustomerWithOrders: {query: [Customer, Order], where: [customerId]}
  ByNick: {query: Customer, where: [nick]}
writes:
  SignUp: {put: Customer, if: absent}
  Place: {put: Order, if: absent}
  Pay: {update: Order, set: [status], with: [total], condition: {status: {ne: PAID}}}
  Refund: {update: Order, add: {total: -$amount}, condition: {total: {ge: $amount}}}
  Forget: {update: Order, remove: [note]}
  Cancel: {delete: Order}
  Rewrite: {put: Order, if: present}
  Both:
    transact:
      - {put: Customer, if: absent}
      - {check: Order, condition: {note: {absent: true}}}
`

func parseModel(t testing.TB, src string) *model.Model {
	t.Helper()
	m, err := model.Parse("shop.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

var t0 = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

func order(c, o, status string, total int, at time.Time) *Item {
	return &Item{Entity: "Order", Values: Values{"customerId": c, "orderId": o, "status": status, "total": int64(total), "at": at, "rev": int64(1)}}
}

func names(items []*Item) []string {
	var out []string
	for _, it := range items {
		if o, ok := it.Values["orderId"]; ok {
			out = append(out, o.(string))
		} else {
			out = append(out, it.Values["customerId"].(string))
		}
	}
	return out
}

func loaded(t *testing.T, m *model.Model, items ...*Item) *State {
	t.Helper()
	s := NewState(m)
	if err := s.Load(items...); err != nil {
		t.Fatal(err)
	}
	return s
}

func TestRead(t *testing.T) {
	m := parseModel(t, shopModel)
	s := loaded(t, m,
		&Item{Entity: "Customer", Values: Values{"customerId": "a", "email": "a@x", "nick": "n"}},
		&Item{Entity: "Customer", Values: Values{"customerId": "ab", "email": "ab@x"}},
		order("a", "o1", "OPEN", 5, t0),
		order("a", "o2", "PAID", 5, t0.Add(time.Millisecond)),
		order("a", "o3", "OPEN", -5, t0.Add(-time.Millisecond)),
		order("ab", "o4", "OPEN", 7, t0),
		order("a#b", "o5", "OPEN", 7, t0),
	)
	for _, c := range []struct {
		name, pattern string
		params        map[string]any
		r             *Range
		want          []string
	}{
		{"a prefix matches nothing more", "Orders", map[string]any{"customerId": "a"}, nil, []string{"o2", "o1", "o3"}},
		{"desc, a millisecond apart", "Orders", map[string]any{"customerId": "ab"}, nil, []string{"o4"}},
		{"the separator is a value", "Orders", map[string]any{"customerId": "a#b"}, nil, []string{"o5"}},
		{"filter constant", "OpenOrders", map[string]any{"customerId": "a"}, nil, []string{"o1", "o3"}},
		{"two sort attributes", "OrdersByTotal", map[string]any{"customerId": "a"}, nil, []string{"o3", "o1", "o2"}},
		{"range on the first sort attribute", "OrdersByTotal", map[string]any{"customerId": "a"}, &Range{Op: Ge, Value: 0}, []string{"o1", "o2"}},
		{"between, bounds outside the declared range", "OrdersByTotal", map[string]any{"customerId": "a"}, &Range{Op: Between, Value: -100, Upper: 1000}, []string{"o3", "o1", "o2"}},
		{"time range", "Orders", map[string]any{"customerId": "a"}, &Range{Op: Lt, Value: t0}, []string{"o3"}},
		{"collection", "CustomerWithOrders", map[string]any{"customerId": "ab"}, nil, []string{"ab", "o4"}},
		{"get by id", "GetCustomer", map[string]any{"customerId": "a"}, nil, []string{"a"}},
		{"an item lacking the where attribute", "ByNick", map[string]any{"nick": "n"}, nil, []string{"a"}},
		{"absent value", "Orders", map[string]any{"customerId": "zz"}, nil, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			ans, err := s.Read(m.Pattern(c.pattern), c.params, c.r)
			if err != nil {
				t.Fatal(err)
			}
			got := names(ans.Items)
			if !ans.Ordered {
				slices.Sort(got)
			}
			if !slices.Equal(got, c.want) {
				t.Errorf("got %v, want %v", got, c.want)
			}
		})
	}
	for _, c := range []struct {
		name, pattern string
		params        map[string]any
		r             *Range
		msg           string
	}{
		{"missing parameter", "Orders", map[string]any{}, nil, "customerId missing"},
		{"unknown parameter", "Orders", map[string]any{"customerId": "a", "x": 1}, nil, `"x" is not one of its parameters`},
		{"too long", "Orders", map[string]any{"customerId": "abcdefghijk"}, nil, "longer than maxLength 10"},
		{"empty", "Orders", map[string]any{"customerId": ""}, nil, "empty"},
		{"range without sort", "OpenOrders", map[string]any{"customerId": "a"}, &Range{Op: Eq, Value: 1}, "needs a sort attribute"},
		{"empty between", "OrdersByTotal", map[string]any{"customerId": "a"}, &Range{Op: Between, Value: 3, Upper: 1}, "is empty"},
		{"begins_with on a number", "OrdersByTotal", map[string]any{"customerId": "a"}, &Range{Op: BeginsWith, Value: 1}, "applies to strings"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := s.Read(m.Pattern(c.pattern), c.params, c.r)
			if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), c.msg) {
				t.Errorf("got %v, want ErrInvalid with %q", err, c.msg)
			}
		})
	}
}

// Check compares in order, runs of equal sort values as sets, a first
// page as the first Limit items, values of the attributes returned.
func TestCheck(t *testing.T) {
	m := parseModel(t, shopModel)
	s := loaded(t, m,
		order("a", "o1", "OPEN", 5, t0),
		order("a", "o2", "PAID", 5, t0),
		order("a", "o3", "OPEN", 5, t0.Add(time.Millisecond)),
	)
	ans, err := s.Read(m.Pattern("Orders"), map[string]any{"customerId": "a"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	o := func(id string) *Item { return s.Get("Order", Values{"customerId": "a", "orderId": id}) }
	changed := o("o2").clone()
	changed.Values["status"] = "OPEN"
	for _, c := range []struct {
		name string
		got  []*Item
		page bool
		msg  string // "" ok
	}{
		{"in order", []*Item{o("o3"), o("o1"), o("o2")}, false, ""},
		{"a run of equal values in any order", []*Item{o("o3"), o("o2"), o("o1")}, false, ""},
		{"out of order", []*Item{o("o1"), o("o3"), o("o2")}, false, "position 1 holds"},
		{"missing", []*Item{o("o3"), o("o1")}, false, "2 item(s), expected 3; missing"},
		{"twice", []*Item{o("o3"), o("o1"), o("o1")}, false, "returned twice"},
		{"a value differs", []*Item{o("o3"), o("o1"), changed}, false, `status is "OPEN", expected "PAID"`},
		{"first page, cut in a run", []*Item{o("o3"), o("o2")}, true, ""},
		{"first page too long", []*Item{o("o3"), o("o2"), o("o1")}, true, "3 item(s), expected 2"},
		{"extra", []*Item{o("o3"), order("a", "o9", "OPEN", 1, t0)}, true, "extra Order"},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := ans.Check(m, c.got, c.page)
			switch {
			case c.msg == "" && err != nil:
				t.Errorf("unexpected: %v", err)
			case c.msg != "" && (err == nil || !strings.Contains(err.Error(), c.msg)):
				t.Errorf("got %v, want %q", err, c.msg)
			}
		})
	}
}

func TestWrite(t *testing.T) {
	m := parseModel(t, shopModel)
	base := func() *State {
		return loaded(t, m,
			&Item{Entity: "Customer", Values: Values{"customerId": "a", "email": "a@x"}},
			order("a", "o1", "OPEN", 5, t0),
		)
	}
	cust := func(id, email string) map[string]any { return map[string]any{"customerId": id, "email": email} }
	for _, c := range []struct {
		name   string
		write  string
		params map[string]any
		want   error // nil, ErrCondition, ErrInvalid
		check  func(t *testing.T, s *State)
	}{
		{"create", "SignUp", cust("b", "b@x"), nil, func(t *testing.T, s *State) {
			if s.Get("Customer", Values{"customerId": "b"}) == nil {
				t.Error("not created")
			}
		}},
		{"create an identity taken", "SignUp", cust("a", "other@x"), ErrCondition, nil},
		{"create a unique value taken", "SignUp", cust("b", "a@x"), ErrCondition, nil},
		{"create with an empty string", "SignUp", cust("b", ""), ErrInvalid, nil},
		{"create with an unknown parameter", "SignUp", map[string]any{"customerId": "b", "email": "e", "x": 1}, ErrInvalid, nil},
		{"create versioned: starts at 1", "Place", map[string]any{"customerId": "a", "orderId": "o2", "status": "OPEN", "total": 1, "at": t0}, nil, func(t *testing.T, s *State) {
			if v := s.Get("Order", Values{"customerId": "a", "orderId": "o2"}).Values["rev"]; v != Number("1") {
				t.Errorf("rev %v", v)
			}
		}},
		{"update: with as held, version read", "Pay", map[string]any{"customerId": "a", "orderId": "o1", "status": "PAID", "total": 5, "rev": 1}, nil, func(t *testing.T, s *State) {
			o := s.Get("Order", Values{"customerId": "a", "orderId": "o1"})
			if o.Values["status"] != "PAID" || o.Values["rev"] != Number("2") {
				t.Errorf("%s", o)
			}
		}},
		{"update: stale version", "Pay", map[string]any{"customerId": "a", "orderId": "o1", "status": "PAID", "total": 5, "rev": 2}, ErrCondition, nil},
		{"update: with not as held", "Pay", map[string]any{"customerId": "a", "orderId": "o1", "status": "PAID", "total": 6, "rev": 1}, ErrCondition, nil},
		{"update: absent item", "Pay", map[string]any{"customerId": "a", "orderId": "zz", "status": "PAID", "total": 5, "rev": 1}, ErrCondition, nil},
		{"update: missing version", "Pay", map[string]any{"customerId": "a", "orderId": "o1", "status": "PAID", "total": 5}, ErrInvalid, nil},
		{"add: condition on a parameter", "Refund", map[string]any{"customerId": "a", "orderId": "o1", "amount": 5, "rev": 1}, nil, func(t *testing.T, s *State) {
			if v := s.Get("Order", Values{"customerId": "a", "orderId": "o1"}).Values["total"]; v != Number("0") {
				t.Errorf("total %v", v)
			}
		}},
		{"add: condition fails", "Refund", map[string]any{"customerId": "a", "orderId": "o1", "amount": 6, "rev": 1}, ErrCondition, nil},
		{"remove an absent optional", "Forget", map[string]any{"customerId": "a", "orderId": "o1", "rev": 1}, nil, nil},
		{"delete", "Cancel", map[string]any{"customerId": "a", "orderId": "o1", "rev": 1}, nil, func(t *testing.T, s *State) {
			if s.Len() != 1 {
				t.Errorf("%d items", s.Len())
			}
		}},
		{"delete an absent item", "Cancel", map[string]any{"customerId": "a", "orderId": "zz", "rev": 1}, ErrCondition, nil},
		{"replace keeps id and version", "Rewrite", map[string]any{"customerId": "a", "orderId": "o1", "status": "PAID", "total": 3, "at": t0, "rev": 1}, nil, func(t *testing.T, s *State) {
			o := s.Get("Order", Values{"customerId": "a", "orderId": "o1"})
			if o.Values["total"] != Number("3") || o.Values["rev"] != Number("2") {
				t.Errorf("%s", o)
			}
		}},
		{"transaction: all or nothing", "Both", map[string]any{"customerId": "b", "email": "b@x", "orderId": "nope"}, nil, nil},
		{"transaction: one step fails, nothing is written", "Both", map[string]any{"customerId": "a", "email": "b@x", "orderId": "o1"}, ErrCondition, func(t *testing.T, s *State) {
			if s.Len() != 2 {
				t.Errorf("%d items", s.Len())
			}
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := base()
			err := s.Write(m.Write(c.write), c.params)
			if c.want == nil && err != nil || c.want != nil && !errors.Is(err, c.want) {
				t.Fatalf("got %v, want %v", err, c.want)
			}
			if err != nil && s.Len() != 2 {
				t.Errorf("a refused write changed the items: %d", s.Len())
			}
			if c.check != nil {
				c.check(t, s)
			}
		})
	}
}

// Conditions mean what DynamoDB makes of an absent attribute: ne and
// absent hold, the rest do not (checked on DynamoDB Local).
func TestConditionOnAbsent(t *testing.T) {
	m := parseModel(t, shopModel)
	s := loaded(t, m, order("a", "o1", "OPEN", 5, t0))
	ne := cond{c: &model.Condition{Attr: "note", Op: model.CondNe}, want: "x"}
	eq := cond{c: &model.Condition{Attr: "note", Op: model.CondEq}, want: "x"}
	lt := cond{c: &model.Condition{Attr: "note", Op: model.CondLt}, want: "x"}
	absent := cond{c: &model.Condition{Attr: "note", Op: model.CondAbsent}}
	it := s.Get("Order", Values{"customerId": "a", "orderId": "o1"})
	for _, c := range []struct {
		k    cond
		item *Item
		want bool
	}{{ne, it, true}, {ne, nil, true}, {eq, it, false}, {lt, it, false}, {absent, it, true}, {absent, nil, true}} {
		if got := c.k.holds(c.item); got != c.want {
			t.Errorf("%s on %v: %v", c.k.c, c.item, got)
		}
	}
}

func TestNormalize(t *testing.T) {
	i64 := func(n int64) *int64 { return &n }
	for _, c := range []struct {
		a    model.Attribute
		v    any
		want any // nil: invalid
	}{
		{model.Attribute{Type: model.TypeString, MaxLength: 2}, "é", "é"},
		{model.Attribute{Type: model.TypeString, MaxLength: 2}, "éa", nil}, // 3 bytes
		{model.Attribute{Type: model.TypeString}, "", nil},
		{model.Attribute{Type: model.TypeString}, "a#b%", "a#b%"},
		{model.Attribute{Type: model.TypeString, Values: []string{"x"}}, "y", nil},
		{model.Attribute{Type: model.TypeNumber, Min: i64(-5), Max: i64(5)}, int64(-5), Number("-5")},
		{model.Attribute{Type: model.TypeNumber, Min: i64(-5), Max: i64(5)}, 6, nil},
		{model.Attribute{Type: model.TypeNumber, Min: i64(-5), Max: i64(5)}, 1.5, nil},
		{model.Attribute{Type: model.TypeNumber}, 1.5, Number("1.5")},
		{model.Attribute{Type: model.TypeNumber}, "0.10", Number("0.1")},
		{model.Attribute{Type: model.TypeNumber}, "1e3", Number("1000")},
		{model.Attribute{Type: model.TypeNumber, Digits: 2}, 99, Number("99")},
		{model.Attribute{Type: model.TypeNumber, Digits: 2}, -100, nil},
		{model.Attribute{Type: model.TypeTTL}, -1, nil},
		{model.Attribute{Type: model.TypeTime}, "2026-01-02T03:04:05.0009Z", time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)},
		{model.Attribute{Type: model.TypeTime}, time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC), nil},
		{model.Attribute{Type: model.TypeBool}, "true", true},
		{model.Attribute{Type: model.TypeBool}, "yes", nil},
	} {
		got, err := Normalize(&c.a, c.v)
		switch {
		case c.want == nil && err == nil:
			t.Errorf("%s %v: accepted as %v", c.a.Type, c.v, got)
		case c.want != nil && (err != nil || !equalValues(got, c.want)):
			t.Errorf("%s %v: got %v (%v), want %v", c.a.Type, c.v, got, err, c.want)
		}
	}
}

// Generated items are valid, deterministic, and hold the adversarial
// values the generator promises.
func TestGenerate(t *testing.T) {
	m := parseModel(t, shopModel)
	a, b := Generate(m, 30, 7), Generate(m, 30, 7)
	if fmt.Sprint(a) != fmt.Sprint(b) {
		t.Error("the same seed gave different items")
	}
	if fmt.Sprint(a) == fmt.Sprint(Generate(m, 30, 8)) {
		t.Error("another seed gave the same items")
	}
	s := NewState(m)
	if err := s.Load(a...); err != nil {
		t.Fatal(err)
	}
	if s.Len() != 60 {
		t.Errorf("%d items, want 30 of each entity", s.Len())
	}
	seen := map[string]bool{}
	for _, it := range a {
		for _, v := range it.Values {
			seen[Text(v)] = true
		}
	}
	for _, want := range []string{`"a"`, `"ab"`, `"a#b"`, `"mmmmmmmmmm"`, "-5", "100"} {
		if !seen[want] {
			t.Errorf("no item holds %s", want)
		}
	}
}

// The generated reads and writes run on the reference without failing in
// ways other than its own: invalid or a condition.
func TestGeneratedOps(t *testing.T) {
	m := parseModel(t, shopModel)
	g := NewGenerator(m, 3)
	s := NewState(m)
	done, refused := 0, 0
	for range 400 {
		err := s.Apply(g.Op(s))
		switch {
		case err == nil:
			done++
		case errors.Is(err, ErrCondition) || errors.Is(err, ErrInvalid):
			refused++
		default:
			t.Fatal(err)
		}
		for _, p := range m.Patterns {
			rd := g.Read(s, p)
			if _, err := s.Read(p, rd.Params, rd.Range); err != nil && !errors.Is(err, ErrInvalid) {
				t.Fatal(err)
			}
		}
	}
	if done < 150 || refused < 40 {
		t.Errorf("%d done, %d refused: the generator should do both often", done, refused)
	}
}

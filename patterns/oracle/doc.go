// Package oracle is keyplan's reference evaluator: what a model's reads
// must return and what its writes must do, by definition, on a set of
// items, and a generator of items, reads and writes aimed at the classic
// single-table mistakes.
//
// It shares no assumption with the planner or the runtime: it imports
// package patterns for the model's types only, never looks at a key,
// template or plan, and identifies an item by its entity and its id
// attributes' values, whatever the layout. Values are checked against the
// model's declarations by its own rules (Normalize), and compared by
// DynamoDB's orders (strings by UTF-8 bytes, numbers by value).
//
// # Using the package
//
//	s := oracle.NewState(model)
//	_ = s.Load(oracle.Generate(model, 20, seed)...) // items of every entity
//	err := s.Write(model.Write("PlaceOrder"), params) // nil, ErrCondition or ErrInvalid
//	ans, err := s.Read(model.Pattern("OrdersByStatus"), map[string]any{"status": "PAID"}, nil)
//	err = ans.Check(model, itemsTheTableReturned, false) // what differs
//
// A Generator draws the same values, items, reads (Generator.Read) and
// write steps (Generator.Op) from the same seed; patterns/prove's Prove
// runs them against a table through the runtime and against a State, and
// compares.
//
// # Semantics
//
// A read (State.Read) returns the items of its entities whose where
// attributes equal the parameters and whose filter attributes hold the
// constants; when it sorts, those that hold every sort attribute, within
// the range on the first, in sort order. Items with equal sort values
// have no order among themselves (DynamoDB orders them by the rest of the
// key, which the model does not fix): Answer.Check compares such a run as
// a set. An unsorted read is compared as a set; a first page holds the
// first Limit items of a sorted read, any Limit of an unsorted one.
//
// A write (State.Write, Batch, Create, Delete, Replace) is all or nothing
// and either holds, fails a condition (ErrCondition: the item's presence,
// its version, with values, a declared condition, a unique value taken)
// or is not well formed (ErrInvalid). Conditions mean what DynamoDB makes
// of them on an absent attribute: ne and absent hold, the other
// comparisons do not. An add to an absent number starts from 0 and is not
// held to the attribute's declared range.
package oracle

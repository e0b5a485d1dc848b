package require

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// Assertions binds the checks to one test, as require.New does.
type Assertions struct{ t testing.TB }

// New returns checks bound to t.
func New(t testing.TB) *Assertions { return &Assertions{t: t} }

func fail(t testing.TB, msg string, args []any) {
	t.Helper()
	if len(args) > 0 {
		if f, ok := args[0].(string); ok {
			msg += ": " + fmt.Sprintf(f, args[1:]...)
		} else {
			msg += ": " + fmt.Sprint(args...)
		}
	}
	t.Fatal(msg)
}

func equal(expected, actual any) bool {
	if expected == nil || actual == nil {
		return expected == actual
	}
	eb, ok1 := expected.([]byte)
	ab, ok2 := actual.([]byte)
	if ok1 && ok2 {
		return bytes.Equal(eb, ab)
	}
	return reflect.DeepEqual(expected, actual)
}

func isNil(v any) bool {
	if v == nil {
		return true
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Chan, reflect.Func, reflect.Interface, reflect.Map, reflect.Pointer, reflect.Slice, reflect.UnsafePointer:
		return rv.IsNil()
	}
	return false
}

func isEmpty(v any) bool {
	if v == nil {
		return true
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Array, reflect.Chan, reflect.Map, reflect.Slice, reflect.String:
		return rv.Len() == 0
	case reflect.Pointer:
		if rv.IsNil() {
			return true
		}
		return isEmpty(rv.Elem().Interface())
	}
	return rv.IsZero()
}

// contains reports whether s (a string, slice, array or map) holds elem
// (a substring, an element, a key); ok is false when s is none of them.
func contains(s, elem any) (found, ok bool) {
	rv := reflect.ValueOf(s)
	switch rv.Kind() {
	case reflect.String:
		e, isStr := elem.(string)
		return isStr && strings.Contains(rv.String(), e), true
	case reflect.Slice, reflect.Array:
		for i := range rv.Len() {
			if equal(rv.Index(i).Interface(), elem) {
				return true, true
			}
		}
		return false, true
	case reflect.Map:
		for _, k := range rv.MapKeys() {
			if equal(k.Interface(), elem) {
				return true, true
			}
		}
		return false, true
	}
	return false, false
}

// Equal fails t unless expected and actual are deeply equal.
func Equal(t testing.TB, expected, actual any, msg ...any) {
	t.Helper()
	if !equal(expected, actual) {
		fail(t, fmt.Sprintf("not equal:\nexpected: %#v\nactual:   %#v", expected, actual), msg)
	}
}

// NoError fails t if err is not nil.
func NoError(t testing.TB, err error, msg ...any) {
	t.Helper()
	if err != nil {
		fail(t, fmt.Sprintf("unexpected error: %v", err), msg)
	}
}

// Error fails t if err is nil.
func Error(t testing.TB, err error, msg ...any) {
	t.Helper()
	if err == nil {
		fail(t, "an error was expected", msg)
	}
}

// EqualError fails t unless err's message is text.
func EqualError(t testing.TB, err error, text string, msg ...any) {
	t.Helper()
	if err == nil || err.Error() != text {
		fail(t, fmt.Sprintf("error %v, want %q", err, text), msg)
	}
}

// ErrorContains fails t unless err's message contains text.
func ErrorContains(t testing.TB, err error, text string, msg ...any) {
	t.Helper()
	if err == nil || !strings.Contains(err.Error(), text) {
		fail(t, fmt.Sprintf("error %v does not contain %q", err, text), msg)
	}
}

// ErrorAs fails t unless errors.As(err, target).
func ErrorAs(t testing.TB, err error, target any, msg ...any) {
	t.Helper()
	if !errors.As(err, target) {
		fail(t, fmt.Sprintf("error %v is not a %T", err, target), msg)
	}
}

// ErrorIs fails t unless errors.Is(err, target).
func ErrorIs(t testing.TB, err, target error, msg ...any) {
	t.Helper()
	if !errors.Is(err, target) {
		fail(t, fmt.Sprintf("error %v is not %v", err, target), msg)
	}
}

// Nil fails t unless v is nil (a nil pointer, map, slice … included).
func Nil(t testing.TB, v any, msg ...any) {
	t.Helper()
	if !isNil(v) {
		fail(t, fmt.Sprintf("expected nil, got %#v", v), msg)
	}
}

// NotNil fails t if v is nil.
func NotNil(t testing.TB, v any, msg ...any) {
	t.Helper()
	if isNil(v) {
		fail(t, "expected a value, got nil", msg)
	}
}

// True fails t unless v.
func True(t testing.TB, v bool, msg ...any) {
	t.Helper()
	if !v {
		fail(t, "expected true", msg)
	}
}

// NotSame fails t if the pointers a and b point to the same object.
func NotSame(t testing.TB, a, b any, msg ...any) {
	t.Helper()
	ra, rb := reflect.ValueOf(a), reflect.ValueOf(b)
	if ra.Kind() == reflect.Pointer && rb.Kind() == reflect.Pointer && ra.Type() == rb.Type() && ra.Pointer() == rb.Pointer() {
		fail(t, fmt.Sprintf("expected different pointers, both are %p", a), msg)
	}
}

// False fails t unless v is false.
func False(t testing.TB, v bool, msg ...any) {
	t.Helper()
	if v {
		fail(t, "expected false", msg)
	}
}

// Empty fails t unless v is its zero value or has length 0.
func Empty(t testing.TB, v any, msg ...any) {
	t.Helper()
	if !isEmpty(v) {
		fail(t, fmt.Sprintf("expected empty, got %#v", v), msg)
	}
}

// NotEmpty fails t if v is empty.
func NotEmpty(t testing.TB, v any, msg ...any) {
	t.Helper()
	if isEmpty(v) {
		fail(t, "expected a non-empty value", msg)
	}
}

// Len fails t unless v has length n.
func Len(t testing.TB, v any, n int, msg ...any) {
	t.Helper()
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Array, reflect.Chan, reflect.Map, reflect.Slice, reflect.String:
		if rv.Len() != n {
			fail(t, fmt.Sprintf("length %d, want %d: %#v", rv.Len(), n, v), msg)
		}
	default:
		fail(t, fmt.Sprintf("%T has no length", v), msg)
	}
}

// Contains fails t unless s contains elem.
func Contains(t testing.TB, s, elem any, msg ...any) {
	t.Helper()
	if found, ok := contains(s, elem); !ok || !found {
		fail(t, fmt.Sprintf("%#v does not contain %#v", s, elem), msg)
	}
}

// NotContains fails t if s contains elem.
func NotContains(t testing.TB, s, elem any, msg ...any) {
	t.Helper()
	if found, ok := contains(s, elem); !ok || found {
		fail(t, fmt.Sprintf("%#v contains %#v", s, elem), msg)
	}
}

// ElementsMatch fails t unless a and b hold the same elements, in any
// order.
func ElementsMatch(t testing.TB, a, b any, msg ...any) {
	t.Helper()
	av, bv := reflect.ValueOf(a), reflect.ValueOf(b)
	if av.Len() != bv.Len() {
		fail(t, fmt.Sprintf("%#v and %#v differ in length", a, b), msg)
		return
	}
	used := make([]bool, bv.Len())
outer:
	for i := range av.Len() {
		for j := range bv.Len() {
			if !used[j] && equal(av.Index(i).Interface(), bv.Index(j).Interface()) {
				used[j] = true
				continue outer
			}
		}
		fail(t, fmt.Sprintf("%#v is not in %#v", av.Index(i).Interface(), b), msg)
	}
}

// The same checks as methods, bound by New.

func (a *Assertions) Equal(expected, actual any, msg ...any) {
	a.t.Helper()
	Equal(a.t, expected, actual, msg...)
}
func (a *Assertions) NoError(err error, msg ...any) { a.t.Helper(); NoError(a.t, err, msg...) }
func (a *Assertions) Error(err error, msg ...any)   { a.t.Helper(); Error(a.t, err, msg...) }
func (a *Assertions) EqualError(err error, text string, msg ...any) {
	a.t.Helper()
	EqualError(a.t, err, text, msg...)
}
func (a *Assertions) ErrorContains(err error, text string, msg ...any) {
	a.t.Helper()
	ErrorContains(a.t, err, text, msg...)
}
func (a *Assertions) Nil(v any, msg ...any)        { a.t.Helper(); Nil(a.t, v, msg...) }
func (a *Assertions) NotNil(v any, msg ...any)     { a.t.Helper(); NotNil(a.t, v, msg...) }
func (a *Assertions) True(v bool, msg ...any)      { a.t.Helper(); True(a.t, v, msg...) }
func (a *Assertions) NotSame(x, y any, msg ...any) { a.t.Helper(); NotSame(a.t, x, y, msg...) }
func (a *Assertions) False(v bool, msg ...any)     { a.t.Helper(); False(a.t, v, msg...) }
func (a *Assertions) Empty(v any, msg ...any)      { a.t.Helper(); Empty(a.t, v, msg...) }
func (a *Assertions) NotEmpty(v any, msg ...any)   { a.t.Helper(); NotEmpty(a.t, v, msg...) }
func (a *Assertions) Len(v any, n int, msg ...any) {
	a.t.Helper()
	Len(a.t, v, n, msg...)
}
func (a *Assertions) Contains(s, elem any, msg ...any) {
	a.t.Helper()
	Contains(a.t, s, elem, msg...)
}
func (a *Assertions) NotContains(s, elem any, msg ...any) {
	a.t.Helper()
	NotContains(a.t, s, elem, msg...)
}

// Package keyplantest is the test kit keyplan's own tests share: a model
// file loaded and planned in one call that fails the test on any error,
// so each package's tests do not grow their own copy.
//
// # Using the package
//
//	d := keyplantest.Design(t, "../examples/ecommerce.yaml")     // planned from scratch
//	d, lock := keyplantest.Open(t, "../examples/ecommerce.yaml") // with the lock beside it
//
// Package patterns' own internal tests cannot import it (it imports
// patterns); they keep one small helper of their own (plan_test.go).
package keyplantest

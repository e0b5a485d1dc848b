// Package testmodel holds the test models (model files as Go strings) that
// tests of more than one package use, or that began as one package's copy
// of another's: each model has one name here, and a test that needs it
// names it (testmodel.Orders) instead of pasting it. A variant says what
// it adds to the model it extends. It imports only the standard library,
// so any package's tests, patterns' own included, can import it.
package testmodel

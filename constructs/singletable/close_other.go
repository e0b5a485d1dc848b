//go:build !linux

package singletable

// endRuntime does nothing where the runtime's process cannot be found
// (no /proc): Close is jsii.Close.
func endRuntime() {}

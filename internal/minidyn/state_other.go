//go:build !unix

package minidyn

import "os"

// openNoFollow opens a file to read (the symlink was refused by Lstat).
func openNoFollow(path string) (*os.File, error) { return os.Open(path) }

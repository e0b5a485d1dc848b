//go:build !unix

package store

import (
	"io/fs"
	"os"
)

// checkOwner: ownership is not checked on this system (the directory's
// ACLs are the user's to set).
func checkOwner(fs.FileInfo) error { return nil }

// openNoFollow opens the data file (a symlink was refused by Lstat).
func openNoFollow(name string, flag int, perm os.FileMode) (*os.File, error) {
	return os.OpenFile(name, flag, perm)
}

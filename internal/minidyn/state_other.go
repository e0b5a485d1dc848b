//go:build !unix

package minidyn

import (
	"io/fs"
	"os"
)

// checkOwner: ownership is not checked on this system (the directory's
// ACLs are the user's to set).
func checkOwner(fs.FileInfo) error { return nil }

// readNoFollow reads a file (the symlink was refused by Lstat).
func readNoFollow(path string) ([]byte, error) { return os.ReadFile(path) }

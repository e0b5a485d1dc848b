//go:build !unix

package minidyn

import "os"

// openNoFollow opens a file to read (the symlink was refused by Lstat).
func openNoFollow(path string) (*os.File, error) { return os.Open(path) }

// checkPrivateMode: ownership and mode are not checked on this system
// (the file's ACLs are the user's to set).
func checkPrivateMode(os.FileInfo) error { return nil }

//go:build windows

package engine

import "os"

// private: Windows keeps a file's owner in its ACL, which keyplan does
// not read; a user's profile (where the cache is) is theirs alone by
// default.
func private(path string) error {
	_, err := os.Lstat(path)
	return err
}

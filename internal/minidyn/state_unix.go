//go:build unix

package minidyn

import (
	"os"
	"syscall"
)

// openNoFollow opens a file to read, refusing a symlink put in its place
// since it was checked.
func openNoFollow(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW, 0)
}

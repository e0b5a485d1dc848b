package gen

import (
	"os"
	"path/filepath"

	"github.com/keyplan/keyplan/internal/atomicfile"
	"github.com/keyplan/keyplan/patterns"
)

// File is the file WriteDir writes in its directory.
const File = "keyplan.gen.go"

// WriteDir generates the design's code (Go) and replaces dir/File with it
// atomically (internal/atomicfile: a reader sees the old file or the new
// one, and nothing planted at a temporary name is followed), creating dir
// when it is missing. It returns the file's path and size.
func WriteDir(dir string, d *patterns.Design, o Options) (path string, size int, err error) {
	src, err := Go(d, o)
	if err != nil {
		return "", 0, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", 0, err
	}
	path = filepath.Join(dir, File)
	return path, len(src), atomicfile.WriteFile(path, src, 0o644)
}

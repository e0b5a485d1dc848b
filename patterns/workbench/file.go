package workbench

import (
	"fmt"
	"io"
	"os"

	"github.com/keyplan/keyplan/patterns/model"
)

// What an import takes, checked before the file is parsed (Import), so
// that a file too big for the model it would make is refused at once, in
// bounded time and memory, instead of after minutes and gigabytes: the
// model keyplan writes must load (patterns.MaxModelBytes, 4 MB), and a
// Workbench file is some three times the size of the model it makes.
const (
	// MaxFileBytes bounds a Workbench file: four times the model keyplan
	// loads, far above any real model (the public AWS samples are under
	// 100 KB).
	MaxFileBytes = 4 * model.MaxModelBytes
	// MaxItems bounds the items of a Workbench file (TableData, every
	// table's and facet's together): each becomes an example item, and
	// ten thousand make some 2 MB of model, more than any proof needs.
	MaxItems = 10000
)

// ReadFile imports a Workbench file (Import); "-" reads standard input.
// A file that cannot be read, or is larger than MaxFileBytes, is an error
// naming it.
func ReadFile(file string, o ImportOptions) (*Imported, error) {
	var r io.Reader = os.Stdin
	if file != "-" {
		f, err := os.Open(file)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		r = f
	}
	data, err := io.ReadAll(io.LimitReader(r, MaxFileBytes+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	if len(data) > MaxFileBytes {
		return nil, precheck(file, data)
	}
	return Import(file, data, o)
}

package workbench

import (
	"fmt"
	"io"
	"os"

	"github.com/keyplan/keyplan/patterns"
)

// MaxFileBytes bounds a Workbench file ReadFile reads: far above any
// real model (the public AWS samples are under 100 KB).
const MaxFileBytes = 64 << 20

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
		return nil, &Error{File: file, Msg: fmt.Sprintf("larger than %d MB; a Workbench model is far smaller", MaxFileBytes>>20)}
	}
	return Import(file, data, o)
}

// Guesses counts the notes that are guesses (Note.Guess).
func (im *Imported) Guesses() int {
	n := 0
	for _, x := range im.Notes {
		if x.Guess {
			n++
		}
	}
	return n
}

// Loads says why the model made does not load (nil when it does): names
// the Workbench file gives that clash in keyplan, say. The user fixes the
// model printed.
func (im *Imported) Loads() error {
	_, err := patterns.Parse("imported.yaml", im.YAML)
	return err
}

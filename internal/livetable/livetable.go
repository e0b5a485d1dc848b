package livetable

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/keyplan/keyplan/internal/atomicfile"
	"github.com/keyplan/keyplan/patterns"
	"github.com/keyplan/keyplan/patterns/adopt"
	"github.com/keyplan/keyplan/patterns/dynamo/migrate"
	"github.com/keyplan/keyplan/patterns/model"
)

// Client is what the commands call: DescribeTable and its kin, and Scan.
// Nothing else: they never write to the table.
type Client interface {
	migrate.LiveReader
	migrate.Scanner
}

// ImportOptions say which table to import, where to write its model
// (its lock beside it, patterns.LockPath) and how much to read.
type ImportOptions struct {
	Table  string
	Out    string
	Sample migrate.SampleOptions
}

// Imported is what Import wrote.
type Imported struct {
	*adopt.Imported
	Live   *patterns.LiveTable
	Sample *migrate.Sample
	// Lock is the lock's path; LockErr why none was written (the model
	// does not plan: the user fixes it, then keyplan lock).
	Lock    string
	LockErr error
}

// Import reads the table (DescribeLive, then a bounded, rate-limited
// SampleTable), infers its model (adopt.FromLive, adopt.Infer) and
// writes it to o.Out, with the lock of the table as deployed beside it
// when the model plans. It refuses to overwrite either file.
func Import(ctx context.Context, c Client, o ImportOptions) (*Imported, error) {
	lockPath := patterns.LockPath(o.Out)
	for _, p := range []string{o.Out, lockPath} {
		if _, err := os.Stat(p); !errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("%s exists: keyplan import writes a new model and its lock; name another --out", p)
		}
	}
	lt, err := migrate.DescribeLive(ctx, c, o.Table, migrate.LiveOptions{})
	if err != nil {
		return nil, err
	}
	s, err := migrate.SampleTable(ctx, c, o.Table, lt.PK, o.Sample)
	if err != nil {
		return nil, err
	}
	im, err := adopt.Infer(adopt.FromLive(lt, s.Items, s.Complete, s.Cut))
	if err != nil {
		return nil, err
	}
	out := &Imported{Imported: im, Live: lt, Sample: s}
	if err := atomicfile.WriteFile(o.Out, im.YAML, 0o644); err != nil {
		return nil, err
	}
	lk, err := im.Lock(lt)
	if err != nil {
		out.LockErr = err
		return out, nil
	}
	if err := lk.WriteFile(lockPath); err != nil {
		return nil, err
	}
	out.Lock = lockPath
	return out, nil
}

// Diff compares the lock with the table it is deployed to and writes
// each difference (text, or the patterns.LiveDiff as JSON); when the
// table's GSIs differ from the lock's and the model changes them, the
// phases planned from what is deployed (patterns.LivePhases). It reports
// whether the table drifted.
func Diff(ctx context.Context, c migrate.LiveReader, table string, lk *patterns.Lock, d *patterns.Design, w io.Writer, asJSON bool) (drift bool, err error) {
	if lk == nil {
		return false, errors.New("no lock: diff --live compares a lock with its table (keyplan import table writes one, keyplan lock another)")
	}
	lt, err := migrate.DescribeLive(ctx, c, table, migrate.LiveOptions{})
	if err != nil {
		return false, err
	}
	ld := patterns.CompareLive(lk, lt)
	var phases []*patterns.Phase
	if ld.IndexDrift() {
		phases = patterns.LivePhases(patterns.Compare(lk, d), ld, lt.TTL, d)
	}
	if asJSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return !ld.Clean(), enc.Encode(struct {
			*patterns.LiveDiff
			Phases []*patterns.Phase `json:"livePhases,omitempty"`
		}{ld, phases})
	}
	for _, dr := range ld.Drifts {
		fmt.Fprintf(w, "%s\n", dr)
	}
	for _, u := range ld.Unrecorded {
		fmt.Fprintf(w, "not compared: %s (the lock does not record it)\n", u)
	}
	for i, p := range phases {
		fmt.Fprintf(w, "phase %d from the table as it is: %s\n", i+1, p)
	}
	if ld.Clean() {
		fmt.Fprintf(w, "table %s (%s, created %s) is as its lock says\n", ld.Table, model.Printable(ld.ARN), ld.Created)
	} else {
		fmt.Fprintf(w, "table %s differs from its lock: %d difference(s)\n", ld.Table, len(ld.Drifts))
	}
	return !ld.Clean(), nil
}

package prove

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/keyplan/keyplan/patterns"
	"github.com/keyplan/keyplan/patterns/dynamo"
	"github.com/keyplan/keyplan/patterns/model"
)

// ValidateOptions say where ValidateTable proves a design.
type ValidateOptions struct {
	// Table is the table's name.
	// Default: a new one, ScratchTable's.
	Table string
	// Existing says the table exists and holds the example items: nothing
	// is created, written or dropped; the expectations are read, as the
	// table is deployed (Lock's phase during a migration).
	// Default: a new table, created, loaded and dropped.
	Existing bool
	// Keep keeps the table ValidateTable created.
	// Default: dropped, even when ctx ends first.
	Keep bool
	// Lock is the model's lock, for an existing table during a migration.
	// Default: none.
	Lock *patterns.Lock
	// Generate proves the design on generated data too (ProveDesign, on
	// tables of its own; not with Existing, which only reads, and says
	// so in Report.Notes): this many
	// items of each entity, then as many random writes, every read
	// compared with the reference after each. Seed seeds the generator.
	// Default: none.
	Generate int
	Seed     uint64
	// IndexKeys is the keying d's new GSIs were planned with for this
	// proof (keyplan validate --index-keys), said in Report.Notes (as are
	// the example writes Existing does not run).
	// Default: the model's.
	IndexKeys string
	// Lacks says why the engine has no multi-attribute GSI keys ("": it
	// has them): a design with native GSIs is then refused before any
	// table is made, saying what to do instead (NativeGap).
	// Default: not asked.
	Lacks func() string
}

// ValidateTable proves a design on an engine, as keyplan validate does:
// on a new table (created with admin, loaded with the examples, read,
// then dropped unless Keep: a table half made when ctx ends goes too), or
// on an existing one (ValidateExisting). db is what the runtime reads and
// writes through (a client that emulates transactions, say). It returns
// the report and the table's name; an error with no report is the
// table's creation, one with a report is dropping it (the table may be
// left). The proof by generated data is Report.Proof (NotRun when the
// engine or ctx failed it).
// A model without examples.expect makes no table (only its proof runs)
// unless Keep: then the table is made, with the example items if any, and
// kept. A design keeping values in S3 (store: s3) gets an object store in
// memory on each table ValidateTable makes, the construct's bucket being
// no engine's; an existing table gets none.
func ValidateTable(ctx context.Context, admin dynamo.TableAdmin, db dynamo.Client, d *patterns.Design, o ValidateOptions) (rep *Report, table string, err error) {
	if o.Lacks != nil {
		if msg := dynamo.NativeGap(d, o.Lock, o.Lacks); msg != "" {
			return nil, "", errors.New(msg)
		}
	}
	if o.IndexKeys != "" {
		defer func() {
			if rep != nil {
				rep.Notes = append(rep.Notes, fmt.Sprintf("new GSIs keyed %s for this proof (--index-keys)", o.IndexKeys))
			}
		}()
	}
	if o.Generate > 0 && !o.Existing {
		defer func() {
			if rep != nil {
				var perr error
				if rep.Proof, perr = ProveDesign(ctx, admin, db, d, ProveOptions{Seed: o.Seed, Items: o.Generate, Steps: o.Generate}); perr != nil {
					rep.Proof = &Proof{Seed: o.Seed, Items: o.Generate, NotRun: perr.Error()}
				}
			}
		}()
		if !loadsExamples(d.Model()) && !o.Keep {
			return &Report{}, "", nil
		}
	}
	table = o.Table
	if table == "" {
		table = ScratchTable(d.Table, time.Now())
	}
	if o.Existing {
		if o.Generate > 0 {
			defer func() {
				rep.Notes = append(rep.Notes, "generated data not run: --existing only reads (validate without it proves generated data on tables of its own)")
			}()
		}
		if ex := d.Model().Examples; ex != nil && len(ex.Steps) > 0 {
			defer func() {
				rep.Notes = append(rep.Notes, fmt.Sprintf("%d example write(s) not run: --existing only reads", len(ex.Steps)))
			}()
		}
		if l := o.Lock; l != nil && l.Migration != nil {
			return validate(ctx, dynamo.NewRollout(l, db, table), false, l.Cleanup), table, nil
		}
		var cleanup *patterns.Cleanup
		if o.Lock != nil {
			cleanup = o.Lock.Cleanup
		}
		return validate(ctx, dynamo.New(d, db, table), false, cleanup), table, nil
	}
	// Only a table this run created is dropped: one that was there (a
	// name given with --table) is refused, untouched.
	created, cerr := dynamo.CreateScratchTable(ctx, admin, patterns.NewLock(d), table)
	if created && !o.Keep {
		defer func() {
			drop, cancel := context.WithTimeout(context.Background(), dropTime)
			defer cancel()
			if derr := dynamo.DropTable(drop, admin, table); derr != nil {
				err = errors.Join(err, fmt.Errorf("table %s may be left: %w", table, derr))
			}
		}()
	}
	switch {
	case errors.Is(cerr, dynamo.ErrTableExists):
		return nil, table, fmt.Errorf("%w; it is left as it is: validate loads the examples into a table it creates (and drops); to prove them on a table that holds them, use --existing; otherwise give --table another name, or none", cerr)
	case cerr != nil && !created:
		return nil, table, fmt.Errorf("%w (table %s may have been made: it is not dropped)", cerr, table)
	case cerr != nil:
		return nil, table, cerr
	}
	return Validate(ctx, dynamo.New(d, db, table, proofObjects(d)...)), table, nil
}

// Refusal says why ValidateTable has nothing to do with these options on
// a design (nil: it has): what it proves is the examples' expectations
// and generated data, each on a table it can use.
//   - Existing reads the expectations on the table, nothing else: a
//     design without them has nothing to read there.
//   - Otherwise, without expectations, items or writes, only generated
//     data proves the design (on tables of its own: Table names none of
//     them).
func (o ValidateOptions) Refusal(d *patterns.Design) error {
	m := d.Model()
	if ex := m.Examples; ex != nil && len(ex.Expect) > 0 || loadsExamples(m) && !o.Existing {
		return nil
	}
	switch {
	case o.Existing:
		return fmt.Errorf("%s has no examples.expect, which is all --existing runs (it only reads the table): nothing to prove on %s", m.Source, o.Table)
	case o.Generate == 0:
		return fmt.Errorf("%s has no examples.expect and generated data is off (--generate 0): nothing to prove", m.Source)
	case o.Table != "" && !o.Keep:
		return fmt.Errorf("--table %s: %s has no examples.expect, so validate makes no table to load examples into; generated data (--generate %d) runs on tables of its own: leave --table out", o.Table, m.Source, o.Generate)
	}
	return nil
}

// ScratchTable names a table made to validate a design: short and unique
// whatever the design's table is called (a valid name may be 255
// characters, too long to prefix).
func ScratchTable(model string, now time.Time) string {
	if len(model) > 32 {
		model = model[:32]
	}
	return "kpv-" + model + "-" + strconv.FormatInt(now.UnixNano(), 36)
}

// dropTime bounds dropping ValidateTable's table: a table still being
// created cannot be deleted, so dropping waits for it.
const dropTime = 2 * time.Minute

// loadsExamples reports whether the model's examples give anything to
// load into a table: expectations, or items and writes (each must be
// held as the example says, with or without a read of it).
func loadsExamples(m *model.Model) bool {
	ex := m.Examples
	return ex != nil && (len(ex.Expect) > 0 || len(ex.Items) > 0 || len(ex.Steps) > 0)
}

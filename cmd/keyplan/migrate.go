package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/keyplan/keyplan/internal/dynalite"
	"github.com/keyplan/keyplan/patterns"
	"github.com/keyplan/keyplan/patterns/dynamo"
)

// migrateFlags are keyplan migrate's options.
type migrateFlags struct {
	endpoint, table, checkpoint string
	segments                    int
	maxWCU                      float64
	pageSize                    int
	applyIndexes, verify        bool
	progress                    time.Duration
}

func migrate(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("migrate", flag.ContinueOnError)
	var o migrateFlags
	fs.StringVar(&o.endpoint, "endpoint", os.Getenv(dynalite.EnvEndpoint), "DynamoDB endpoint URL (default: $"+dynalite.EnvEndpoint+", else AWS with the default credentials and region)")
	fs.StringVar(&o.table, "table", "", "the table's physical name (required)")
	fs.IntVar(&o.segments, "segments", 0, "parallel Scan segments (default: from the table's size, 1 per 25,000 items or 128 MB, at most 64)")
	fs.Float64Var(&o.maxWCU, "max-wcu", 0, "write capacity units per second the backfill may use (default: no limit)")
	fs.IntVar(&o.pageSize, "page-size", dynamo.DefaultPageSize, "items per Scan page (a checkpoint is written after each)")
	fs.StringVar(&o.checkpoint, "checkpoint", "", "progress file, to resume a stopped run (default: MODEL.migrate.TABLE.json beside the model)")
	fs.BoolVar(&o.applyIndexes, "apply-indexes", false, "create and delete the phase's GSIs with UpdateTable (local engines; on AWS cdk deploy does it), and go on through every phase")
	fs.BoolVar(&o.verify, "verify", false, "write nothing: check that every item is as the phase needs (after the construct's backfill job ran), and advance the lock if so")
	fs.DurationVar(&o.progress, "progress", 10*time.Second, "how often to print progress when stderr is not a terminal (0: never)")
	file, code := parse(fs, args, stdout, stderr)
	if code >= 0 {
		return code
	}
	switch {
	case o.table == "":
		fmt.Fprintln(stderr, "keyplan migrate: --table NAME is required (the table's physical name)")
		return exitUsage
	case !patterns.ValidTableName(o.table):
		fmt.Fprintf(stderr, "keyplan migrate: --table %q: expected %s\n", o.table, patterns.NameRule)
		return exitUsage
	case o.segments < 0 || o.segments > 1_000_000:
		fmt.Fprintf(stderr, "keyplan migrate: --segments %d: expected 1 to 1000000\n", o.segments)
		return exitUsage
	case o.maxWCU < 0:
		fmt.Fprintf(stderr, "keyplan migrate: --max-wcu %v: expected a positive number\n", o.maxWCU)
		return exitUsage
	case o.pageSize < 1 || o.pageSize > 10000:
		fmt.Fprintf(stderr, "keyplan migrate: --page-size %d: expected 1 to 10000\n", o.pageSize)
		return exitUsage
	}
	if o.checkpoint == "" {
		o.checkpoint = strings.TrimSuffix(file, filepath.Ext(file)) + ".migrate." + o.table + ".json"
	}
	d, lk, code := designAndLock(file, stderr)
	if d == nil {
		return code
	}
	lockPath := patterns.LockPath(file)
	switch {
	case lk == nil:
		fmt.Fprintf(stderr, "keyplan migrate: %s has no lock (%s): nothing is deployed to migrate\n", file, lockPath)
		return exitUsage
	case lk.Migration == nil:
		fmt.Fprintf(stderr, "keyplan migrate: no migration in progress in %s (keyplan diff %s shows what would start one; keyplan lock %s starts it)\n", lockPath, file, file)
		return exitUsage
	case !lk.Accepts(d):
		fmt.Fprintf(stderr, "keyplan migrate: %s is not the model the migration in %s leads to: keyplan diff %s shows the difference\n", file, lockPath, file)
		return exitUsage
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	client, err := migrateClient(ctx, o.endpoint)
	if err != nil {
		fmt.Fprintf(stderr, "keyplan migrate: %v\n", err)
		return exitUsage
	}
	for lk.Migration != nil {
		mg := lk.Migration
		phase := mg.Phases[mg.Current]
		name := fmt.Sprintf("phase %d of %d", mg.Current+1, len(mg.Phases))
		desc, err := dynamo.PhaseReady(ctx, client, o.table, lk, dynamo.PhaseOptions{Apply: o.applyIndexes, Log: func(msg string) { fmt.Fprintln(stderr, msg) }})
		if err != nil {
			fmt.Fprintf(stderr, "keyplan migrate: %s, %s: %v\n", o.table, name, err)
			if _, ok := errors.AsType[*dynamo.NotAtPhaseError](err); ok {
				fmt.Fprintln(stderr, "  on a local engine, --apply-indexes applies them")
			}
			if ctx.Err() != nil {
				return exitFindings
			}
			return exitUsage
		}
		if len(phase.Backfill) > 0 {
			code := backfill(ctx, client, o, lk, desc, name, stdout, stderr)
			if code != exitClean {
				return code
			}
		} else {
			fmt.Fprintf(stdout, "%s: nothing to backfill (%s)\n", name, phase.String())
		}
		if err := lk.Advance(); err != nil {
			fmt.Fprintf(stderr, "keyplan migrate: %v\n", err)
			return exitUsage
		}
		if err := lk.WriteFile(lockPath); err != nil {
			fmt.Fprintf(stderr, "keyplan migrate: %v\n", err)
			return exitUsage
		}
		if lk.Migration == nil {
			fmt.Fprintf(stdout, "%s: the migration is done: %s is at the target design (keyplan diff exits 0); commit the lock and deploy once more\n", lockPath, o.table)
			return exitClean
		}
		next := lk.Migration.Phases[lk.Migration.Current]
		fmt.Fprintf(stdout, "%s: at phase %d of %d (%s)\n", lockPath, lk.Migration.Current+1, len(lk.Migration.Phases), next.String())
		if !o.applyIndexes {
			fmt.Fprintf(stdout, "next: commit the lock, cdk deploy, then keyplan migrate %s --table %s again\n", file, o.table)
			return exitClean
		}
	}
	return exitClean
}

// migrateClient is a client for a long backfill: an endpoint's (local
// engines), or AWS's with the default credential chain and region.
func migrateClient(ctx context.Context, endpoint string) (*dynamodb.Client, error) {
	if endpoint != "" {
		return dynamodb.New(newClient(endpoint, defaultRequestTimeout).Options(), dynamo.PatientRetries), nil
	}
	cfg, err := config.LoadDefaultConfig(ctx)
	if err != nil {
		return nil, fmt.Errorf("AWS configuration: %w", err)
	}
	if cfg.Region == "" {
		return nil, errors.New("no AWS region: set AWS_REGION, or --endpoint for a local engine")
	}
	return dynamodb.NewFromConfig(cfg, dynamo.PatientRetries), nil
}

// backfill runs the phase's backfill with progress, then prints the
// summary; exit 0 when every item is done.
func backfill(ctx context.Context, c *dynamodb.Client, o migrateFlags, lk *patterns.Lock, t *types.TableDescription, name string, stdout, stderr io.Writer) int {
	r, err := dynamo.NewRekeyer(lk, c, o.table)
	if err != nil {
		fmt.Fprintf(stderr, "keyplan migrate: %v\n", err)
		return exitUsage
	}
	r.DryRun = o.verify
	segments := o.segments
	if segments == 0 {
		segments = dynamo.DefaultSegments(t)
		if cp, _ := dynamo.ReadCheckpoint(o.checkpoint); cp != nil {
			segments = cp.Segments // resume as it was started
		}
	}
	what := "backfilling"
	if o.verify {
		what = "verifying"
	}
	fmt.Fprintf(stdout, "%s: %s %s (%s) of %s with %d segment(s)%s\n", name, what, strings.Join(lk.Migration.Phases[lk.Migration.Current].Backfill, ", "),
		lk.Migration.Phases[lk.Migration.Current].String(), o.table, segments, limitText(o.maxWCU))
	p := newProgress(stderr, o.progress, aws.ToInt64(t.ItemCount), r)
	start := time.Now()
	opts := dynamo.BackfillOptions{Segments: segments, PageSize: int32(o.pageSize), MaxWCU: o.maxWCU, Checkpoint: o.checkpoint}
	if o.verify {
		opts.Checkpoint = ""
	}
	res, err := r.Backfill(ctx, c, opts)
	p.stop()
	if res != nil {
		summary(stdout, name, res, time.Since(start), o.verify)
	}
	switch {
	case ctx.Err() != nil:
		fmt.Fprintf(stderr, "keyplan migrate: interrupted; the progress is in %s: run the same command again to resume\n", o.checkpoint)
		return exitFindings
	case err != nil:
		fmt.Fprintf(stderr, "keyplan migrate: %v\n", err)
		if !o.verify {
			fmt.Fprintf(stderr, "the progress is in %s: run the same command again to resume\n", o.checkpoint)
		}
		return exitFindings
	case res.Stats.Failed > 0:
		for _, f := range res.Failed {
			fmt.Fprintf(stderr, "  %v\n", f)
		}
		fmt.Fprintf(stderr, "keyplan migrate: %d item(s) could not be rewritten; the lock stays at %s (fix them and run again)\n", res.Stats.Failed, name)
		return exitFindings
	case res.Stats.Pending > 0:
		fmt.Fprintf(stderr, "keyplan migrate: %d item(s) still need the phase's keys: the backfill is not complete; the lock stays at %s\n", res.Stats.Pending, name)
		return exitFindings
	}
	return exitClean
}

func limitText(wcu float64) string {
	if wcu == 0 {
		return ""
	}
	return fmt.Sprintf(", at most %g WCU/s", wcu)
}

func summary(w io.Writer, name string, res *dynamo.BackfillResult, took time.Duration, verify bool) {
	s := res.Stats
	resumed := ""
	if res.Resumed {
		resumed = " (resumed: counts include the stopped runs)"
	}
	if verify {
		fmt.Fprintf(w, "%s verified in %s: %s items scanned, %s already right, %s still to rewrite, %s of other entities\n",
			name, took.Round(time.Millisecond), num(s.Scanned), num(s.Unchanged), num(s.Pending), num(s.Skipped))
		return
	}
	rate := float64(s.Scanned-res.Before.Scanned) / max(took.Seconds(), 0.001)
	fmt.Fprintf(w, "%s backfilled in %s%s: %s items scanned, %s rewritten, %s already right, %s of other entities, %s re-read after a concurrent write, %s deleted meanwhile, %s failed; %s write units, %s items/s\n",
		name, took.Round(time.Millisecond), resumed, num(s.Scanned), num(s.Rewritten), num(s.Unchanged), num(s.Skipped), num(s.Conflicts), num(s.Deleted), num(s.Failed),
		num(s.MilliWCU/1000), num(int64(rate)))
}

// num writes an integer with thousands separators.
func num(n int64) string {
	s := fmt.Sprint(n)
	if n < 0 {
		return s
	}
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}

// progress reports a backfill as it runs: a bar redrawn in place on a
// terminal, a line every interval otherwise.
type progress struct {
	done chan struct{}
	end  chan struct{}
}

func newProgress(w io.Writer, every time.Duration, total int64, r *dynamo.Rekeyer) *progress {
	p := &progress{done: make(chan struct{}), end: make(chan struct{})}
	tty := isTerminal(w)
	if tty {
		every = 200 * time.Millisecond
	}
	if every <= 0 {
		close(p.end)
		return p
	}
	start := time.Now()
	base := r.Snapshot().Scanned
	go func() {
		defer close(p.end)
		tick := time.NewTicker(every)
		defer tick.Stop()
		for {
			select {
			case <-p.done:
				if tty {
					fmt.Fprint(w, "\r\033[K")
				}
				return
			case <-tick.C:
			}
			s := r.Snapshot()
			rate := float64(s.Scanned-base) / time.Since(start).Seconds()
			line := fmt.Sprintf("%s items scanned, %s rewritten, %s items/s", num(s.Scanned), num(s.Rewritten+s.Pending), num(int64(rate)))
			if total > 0 {
				frac := min(1, float64(s.Scanned)/float64(total))
				eta := "?"
				if rate > 0 {
					eta = (time.Duration(float64(max(0, total-s.Scanned))/rate) * time.Second).Round(time.Second).String()
				}
				line = fmt.Sprintf("%s of ~%s items (%.0f%%), %s rewritten, %s items/s, ETA %s", num(s.Scanned), num(total), frac*100, num(s.Rewritten+s.Pending), num(int64(rate)), eta)
				if tty {
					const width = 24
					n := int(frac * width)
					line = "[" + strings.Repeat("#", n) + strings.Repeat(" ", width-n) + "] " + line
				}
			}
			if tty {
				fmt.Fprint(w, "\r\033[K"+line)
			} else {
				fmt.Fprintln(w, line)
			}
		}
	}()
	return p
}

func (p *progress) stop() {
	select {
	case <-p.end:
		return
	default:
	}
	close(p.done)
	<-p.end
}

// isTerminal reports whether w is a terminal (a character device).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

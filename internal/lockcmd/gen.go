package lockcmd

import (
	"fmt"
	"path/filepath"

	"github.com/keyplan/keyplan/internal/cli"
	"github.com/keyplan/keyplan/patterns"
	"github.com/keyplan/keyplan/patterns/gen"
)

// Gen is keyplan gen go: the package of one table (the model's, or the
// one --table names, embedding its lock), or, for a model of several
// tables without --table, one package for all of them (gen.GoTables,
// each embedding its table's lock). A design that fails its checks
// writes nothing (exit 1).
func Gen(c *cli.Call, file string, ts []*patterns.Opened, table, pkg, out string) int {
	if len(ts) == 1 || table != "" {
		t, err := Table(c, file, ts, table)
		if err != nil {
			return c.Fail(cli.Usage, "--table %v (or no --table: one package for the model's tables)", err)
		}
		ts = []*patterns.Opened{t}
	}
	var tables []gen.Table
	for _, t := range ts {
		if DesignErrors(c, t.Design, "no code is generated from a design that fails its checks (keyplan check %s)", file) > 0 {
			return cli.Findings
		}
		tables = append(tables, gen.Table{Design: t.Design, Lock: t.Lock})
	}
	o := gen.Options{Package: pkg, Source: filepath.ToSlash(file), Lock: tables[0].Lock}
	var path string
	var size int
	var err error
	if len(tables) == 1 {
		path, size, err = gen.WriteDir(out, tables[0].Design, o)
	} else {
		path, size, err = gen.WriteTablesDir(out, tables, o)
	}
	if err != nil {
		return c.Fail(cli.Usage, "%s: %v", file, err)
	}
	fmt.Fprintf(c.Stdout, "wrote %s (package %s, %d bytes)\n", path, pkg, size)
	return cli.Clean
}

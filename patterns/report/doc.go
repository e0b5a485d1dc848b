// Package report renders keyplan designs and findings for people and
// tools: a terminal summary (text), the validation table (pattern,
// operation, index, key condition) and the key layout per entity
// (markdown), the design as one JSON object (json), findings for
// code-scanning UIs (SARIF 2.1.0), a diff against a lock in each of
// text, markdown and JSON, and the design or the diff as one
// self-contained HTML page (WriteHTML, WriteDiffHTML; patterns/view draws
// its sample).
//
// # Using the package
//
//	d, err := patterns.Plan(m)
//	err = report.Write(os.Stdout, d, report.Markdown)
//	err = report.WriteFindings(os.Stdout, "shop.yaml", d.Diagnostics, report.SARIF)
//	err = report.WriteDiff(os.Stdout, "shop.yaml", patterns.Compare(lock, d), report.Text)
//
// Every format is deterministic: the same design gives the same bytes, so
// the outputs are golden files in testdata/plans (go test ./patterns/report
// -update rewrites them). What a terminal would act on (escapes, carriage
// returns) never reaches it raw through [Terminal].
package report

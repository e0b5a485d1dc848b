// Package report renders keyplan designs and findings for people and
// tools: a terminal summary (text), the validation table and key layout
// of seed 001 (markdown), the design as one JSON object (json), and
// findings for code-scanning UIs (SARIF 2.1.0).
//
// # Using the package
//
//	d, err := patterns.Plan(m)
//	err = report.Write(os.Stdout, d, report.Markdown)
//	err = report.WriteFindings(os.Stdout, "shop.yaml", d.Diagnostics, report.SARIF)
//
// Every format is deterministic: the same design gives the same bytes, so
// the outputs are golden files in testdata/plans (go test ./patterns/report
// -update rewrites them).
package report

// Package view computes what the HTML view of a design shows: sample
// items as keyplan's runtime writes them (their key attributes included)
// and, for every pattern, the items one read of it returns. It runs the
// runtime (patterns/dynamo) on the in-process engine (internal/engine's
// memory engine, on a loopback port for the time it takes), so the page's highlighted rows are what the read returned,
// not what the page believes it should return; package report draws the
// page (WriteHTML) and computes nothing.
//
// # Using the package
//
//	d, err := patterns.Plan(m)
//	s, err := view.Sample(ctx, d, view.Options{})         // the model's examples
//	err = report.WriteHTML(os.Stdout, d, s)
//
// Other items (generated ones, say) go in Options.Items, with
// Options.Source saying where they come from.
package view

// Package workbench carries keyplan designs to and from AWS's NoSQL
// Workbench data models (the JSON file Workbench imports and exports,
// format version 3.0, as the public models of aws-samples write it).
//
// Export writes a design as a Workbench model: the table, its key
// attributes and every attribute with its DynamoDB type, the GSIs with
// their projections, and one facet per entity whose key aliases are the
// entity's key templates and whose items are sample items as keyplan's
// runtime writes them. A natively keyed GSI is keyed on its attribute
// where it has one per key, else shown by a synthetic rendering (GSIxPK,
// GSIxSK holding its attributes joined by '#'); the ids and attribute
// declarations the format has no field for ride in the description.
//
// Import makes a keyplan model of a Workbench table: entities from its
// facets (or from the shapes of its items' keys), hand-made keys with
// templates inferred from the items' key values, the items as examples,
// and starter patterns inferred from the keys; every inference is said
// in a note, written as a comment at the top of the model. The inference
// is package adopt's, which keyplan import table runs on a live table's
// items too: one inference, two inputs. What the model
// made could not hold (more than MaxFileBytes or MaxItems) is refused
// before the file is parsed.
//
// # Using the package
//
//	s, err := view.Sample(ctx, d, view.Options{})
//	err = workbench.Export(os.Stdout, d, s, workbench.ExportOptions{Now: time.Now()})
//
//	im, err := workbench.Import("model.json", data, workbench.ImportOptions{})
//	os.Stdout.Write(im.YAML)
//
// The package is pure (the standard library and a YAML library): the
// sample comes from package view.
package workbench

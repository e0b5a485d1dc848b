// Package adopt infers a keyplan model from a table that was designed by
// hand: its entities from the shapes of the items' keys (tags,
// separators, which parts vary), each entity's key templates per index,
// its attributes and their types, and patterns the keys can answer, every
// inference said in the model as a comment. It has two inputs, one
// inference: a NoSQL Workbench data model (package workbench reads the
// file) and a live table (keyplan import table: FromLive, from what
// patterns/dynamo's DescribeLive and SampleTable read).
//
// # Using the package
//
//	im, err := adopt.Infer(&adopt.Table{Name: "Shop", PK: "PK", SK: "SK", Items: items, ...})
//	os.Stdout.Write(im.YAML)
//
// The package is pure (the core, the reports and a YAML library): the
// table and its items come from the caller.
package adopt

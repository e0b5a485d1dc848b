// Package store keeps a served engine's tables in a data directory (keyplan
// local --data DIR): one bbolt file (go.etcd.io/bbolt: a B+tree of pages,
// copy-on-write, each read-write transaction fsync'd before Commit returns,
// one writer process at a time by an exclusive file lock).
//
// The file holds, per table, one metadata record (the table as a whole:
// its definition, TTL and whatever else the engine keeps of it, as the
// engine encodes it) and its items, one record per primary key. A Commit
// applies a list of Changes in one transaction: it is all stored, durably,
// or none of it. The engine decides what a record says; this package never
// reads one, so a new piece of table state (tags, stream settings) is a
// field of the engine's metadata record, and needs no change here.
//
// Using the package:
//
//	db, err := store.Open(dir) // refused: another process holds dir (ErrInUse), a foreign or damaged file
//	err = db.Commit([]store.Change{{Kind: store.PutTable, Table: "T", Value: meta},
//		{Kind: store.PutItem, Table: "T", Key: key, Value: item}})
//	err = db.Each(func(t store.Table) error { ... t.Items(...) ... })
//	err = db.Close()
package store

// Package lockcmd is keyplan lock and keyplan diff (without --live) on
// every table of a model file: each table's design compared with its own
// lock (patterns.OpenTables: shop.lock.json for a model of one table,
// shop.Orders.lock.json and so on for a model that declares tables), the
// lock written or the difference printed, per table in the order the
// model declares them. The exit code is the worst over the tables.
// keyplan gen go is here too (Gen): one package per table, or one for
// the model's tables.
package lockcmd

// Package partiql parses the PartiQL statements DynamoDB runs
// (ExecuteStatement, BatchExecuteStatement, ExecuteTransaction): SELECT,
// INSERT, UPDATE and DELETE, with DynamoDB's literals (strings in single
// quotes, numbers, TRUE/FALSE, NULL, MISSING, lists [...], maps {...},
// sets <<...>>), parameters (?), paths (a.b[0], "quoted names"), the
// operators of a WHERE clause (=, <>, <, <=, >, >=, AND, OR, NOT,
// BETWEEN, IN, IS [NOT] MISSING/NULL, + and -) and its functions
// (begins_with, contains, attribute_type, size, exists; list_append,
// set_add, set_delete in SET). It knows nothing of tables: the server
// turns a statement into the requests it stands for.
package partiql

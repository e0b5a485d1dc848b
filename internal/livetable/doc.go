// Package livetable is keyplan's commands on a table that is deployed:
// keyplan import table (Import: describe the table, sample its items
// within a budget, infer a model with package adopt, write it and the
// lock of the table as deployed) and keyplan diff --live (Diff: the lock
// compared with the table, patterns.CompareLive, and the phases planned
// from the GSIs the table has). Both only read the table.
package livetable

// Command backfill is the worker of the singletable construct's backfill
// job (Props.Backfill): the Step Functions Distributed Map invokes it per
// Scan segment with a patterns.BackfillTask, and it runs the rekey engine
// (migrate.Rekeyer, the same keyplan migrate runs) page by page until the
// segment ends or its time runs short, returning where to resume.
package main

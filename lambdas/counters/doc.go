// Command counters is keyplan's stream handler for counters: it keeps each
// parent's count (or sum) of its children, once per stream record.
package main

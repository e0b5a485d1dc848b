// Command archive is keyplan's stream handler for TTL expiries: it keeps
// the expired items of archived entities in S3.
package main

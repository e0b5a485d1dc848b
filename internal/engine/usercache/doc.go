// Package usercache is where keyplan keeps what it installs once for
// every project of a user: the pinned local engines (dynalite, DynamoDB
// Local).
package usercache

/*
Package core holds the tables: items in primary key order (an ordered map
of encoded keys, so a Query or a Scan page costs O(log n + items read)),
secondary indexes kept in step with every write, the checks DynamoDB makes
on an item before storing it, and writes prepared (checked, condition
evaluated) before they are committed, so a refused write changes nothing
and a transaction applies all or none.
*/
package core

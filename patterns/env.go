package patterns

// TableNameEnv is the environment variable that carries the table's name
// from the singletable construct to application code and stream handlers.
const TableNameEnv = "KEYPLAN_TABLE_NAME"

package patterns

// The contract between the singletable construct, the stream handlers and
// the runtime: every name one side writes and another reads is defined
// here, once. A test looks for second copies of these literals anywhere
// in the repository.

// Module is keyplan's Go module: the construct builds the handlers from it.
const Module = "github.com/keyplan/keyplan"

// Environment variables the construct sets and code reads.
const (
	// TableNameEnv carries the table's physical name to application code
	// and stream handlers.
	TableNameEnv = "KEYPLAN_TABLE_NAME"
	// LockEnv is the path of the lock a stream handler reads (default
	// DesignPath): the table's design as deployed, and during a migration
	// its target and current phase.
	LockEnv = "KEYPLAN_LOCK"
	// ArchiveBucketEnv names the archive handler's bucket.
	ArchiveBucketEnv = "KEYPLAN_ARCHIVE_BUCKET"
	// ObjectsBucketEnv names the bucket of values kept in S3 (the
	// construct's ObjectsBucket) to keyplan migrate, for a migration that
	// moves values into or out of it.
	ObjectsBucketEnv = "KEYPLAN_OBJECTS_BUCKET"
	// BackfillMaxWCUEnv is a backfill worker's write-rate limit, in
	// write units per second ("" or 0: none).
	BackfillMaxWCUEnv = "KEYPLAN_BACKFILL_MAX_WCU"
)

// The design layer: one Lambda layer per table carries the table's lock
// (Lock.Bytes: the planned designs, never re-planned at cold start) to
// its handlers. Lambda mounts a layer's content under /opt.
const (
	// LayerDir is the layer's directory holding the lock.
	LayerDir = "keyplan"
	// DesignFile is the lock's file name in LayerDir.
	DesignFile = "lock.json"
	// DesignPath is where a handler finds the lock at run time.
	DesignPath = "/opt/" + LayerDir + "/" + DesignFile
)

// Handler names one of keyplan's stream handlers.
type Handler string

// The stream handlers, by the model feature that needs them.
const (
	// HandlerFanout keeps copies equal to their source (copies).
	HandlerFanout Handler = "fanout"
	// HandlerCounters keeps counts and sums of child items (counters).
	HandlerCounters Handler = "counters"
	// HandlerArchive writes TTL expiries to S3 (archive).
	HandlerArchive Handler = "archive"
)

// Handlers lists every stream handler keyplan ships, in order.
func Handlers() []Handler { return []Handler{HandlerFanout, HandlerCounters, HandlerArchive} }

// Package is the handler's main package, relative to the module root.
func (h Handler) Package() string { return "lambdas/" + string(h) }

// BackfillWorker is the backfill job's worker: its main package, relative
// to the module root. The construct's state machine invokes it once per
// stretch of a Scan segment (BackfillTask in, BackfillTask out).
const BackfillWorker = "lambdas/backfill"

// BackfillTask is the state the backfill job's state machine carries per
// Scan segment: the worker reads it, rewrites pages of the segment until
// the segment ends or its time runs short, and returns it updated. The
// state machine loops until Done, and fails the job when Failed > 0.
type BackfillTask struct {
	Segment  int `json:"segment"`
	Segments int `json:"segments"`
	// Next is where the segment resumes (the Scan's LastEvaluatedKey).
	Next map[string]string `json:"next,omitempty"`
	Done bool              `json:"done"`
	// Counts, over the segment so far.
	Scanned   int64 `json:"scanned"`
	Rewritten int64 `json:"rewritten"`
	Failed    int64 `json:"failed"`
}

// The BackfillTask fields the state machine's definition reads.
const (
	BackfillTaskDone   = "done"
	BackfillTaskFailed = "failed"
)

// StreamEvent is the eventName of a DynamoDB stream record.
type StreamEvent string

// Stream record events.
const (
	EventInsert StreamEvent = "INSERT"
	EventModify StreamEvent = "MODIFY"
	EventRemove StreamEvent = "REMOVE"
)

// The identity on a stream record of a removal by the TTL service.
const (
	TTLIdentityType = "Service"
	TTLPrincipal    = "dynamodb.amazonaws.com"
)

// Reserved items: keyplan's own bookkeeping in the table. Their partition
// keys start with ReservedPrefix, which no entity tag can (tags are
// entity names in upper case), so no entity's key equals one.
const (
	ReservedPrefix = "~"
	// GuardTag keys the guard items that keep unique alternate keys unique.
	GuardTag = ReservedPrefix + "UNIQUE"
	// MarkerTag keys the counters handler's once-only markers.
	MarkerTag = ReservedPrefix + "EVENT"
	// FanoutTag keys the fanout handler's continuations: the copies of
	// one source value still to update, and where to resume. Their sort
	// key is FanoutTag itself (the fanout's event filter matches it).
	FanoutTag = ReservedPrefix + "FANOUT"
	// MigrationTag keys keyplan migrate's bookkeeping: the table's stamp,
	// the verifying scan's progress, the phases verified there.
	MigrationTag = ReservedPrefix + "MIGRATION"
)

// The stream handlers' metrics: one line of each batch's log in
// CloudWatch's embedded metric format (its _aws member), which CloudWatch
// Logs makes metrics of, in MetricNamespace, by MetricDimension (the
// function's name). The construct alarms on MetricUndecodable.
const (
	MetricNamespace = "keyplan"
	MetricDimension = "FunctionName"
	// MetricRecords counts the records a batch held; MetricFailed those
	// reported back to be retried (a write refused, a parent missing).
	MetricRecords = "Records"
	MetricFailed  = "RecordsFailed"
	// MetricNoEntity counts the records of items that are no entity of
	// the design (another application's, an earlier model's): skipped,
	// never failed.
	MetricNoEntity = "RecordsOfNoEntity"
	// MetricUndecodable counts the records a handler could not read what
	// its job needs from (an attribute stored as NULL or another type, an
	// image missing): skipped, each logged with its key, never failed (a
	// retry cannot change what the record holds).
	MetricUndecodable = "RecordsUndecodable"
)

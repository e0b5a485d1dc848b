package server

// The persistence seam: how a served engine keeps its tables in a data
// directory (keyplan local --data), through a Durable (internal/engine/minidyn/store
// on a bbolt file).
//
// What is stored, and how to add to it. Each table is one metadata record
// (tableRecord, encoded whole by c.tableRecord) and its items, one record
// per primary key (the stored item in DynamoDB's JSON); each on-demand
// backup is one record by its ARN (backupJSON), journaled, like a table's
// record, after the operation that made or deleted it. Table state that an
// operation adds (tags, a stream setting, a TTL status) is a field of
// tableRecord, written in c.tableRecord and read back in restoreTable;
// nothing else changes: every operation that is neither a read nor an item
// write (itemOps) is followed, under the same exclusive gate, by a
// comparison of every table's record with the last one journaled
// (c.journalTables), and whatever differs is journaled, whole. Item writes
// are journaled where every write is applied (c.commit).
//
// When a request is answered. The engine applies a request in memory (as
// without a store), journals its changes in order, and answers only once a
// commit holding them is on disk: a committer goroutine commits whatever
// has been journaled since its last commit in one transaction (group
// commit: the writers waiting meanwhile share one fsync). Every request,
// a read too, waits for the changes journaled up to its end, so nothing a
// client sees (a written item, or one read back) can later be missing.
//
// When a commit fails (a full disk, an I/O error), the engine is put back
// to what the store holds: the committer takes the engine's gate, drops
// every change not yet committed (the failed batch and whatever followed
// it: it may depend on them), reloads the tables they touched from the
// store, drops their stream records and the remembered transaction
// tokens, and every request that waited on any of those changes is
// answered 500 (InternalServerError, saying so), the failure logged at
// once. Later requests run on the stored state: when the disk has room
// again, writes succeed again.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	ddbtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/keyplan/keyplan/internal/engine/minidyn/core"
	"github.com/keyplan/keyplan/internal/engine/minidyn/store"
	"github.com/keyplan/keyplan/internal/engine/minidyn/types"
)

// Durable is where a served engine keeps its tables: *store.DB, or a
// stand-in in tests.
type Durable interface {
	// Commit stores changes in order, all or none, durably before it
	// returns.
	Commit([]store.Change) error
	// Each calls fn with every stored table.
	Each(fn func(store.Table) error) error
	// Backups calls fn with every stored backup's ARN and record.
	Backups(fn func(arn string, record []byte) error) error
	// ReadTable calls fn with one stored table (found false: none).
	ReadTable(name string, fn func(store.Table) error) (found bool, err error)
}

// The engine's state, as Save writes it and Load reads it: each table as
// the CreateTable that makes it again, its TTL setting, its latest
// stream (not the stream's records), and its items in DynamoDB's JSON.
type (
	stateJSON struct {
		Version int         `json:"version"`
		Tables  []tableJSON `json:"tables"`
	}
	tableJSON struct {
		Create     CreateTableInput                  `json:"create"`
		Created    time.Time                         `json:"created"`
		TTL        *ddbtypes.TimeToLiveSpecification `json:"ttl,omitempty"`
		TTLChanged time.Time                         `json:"ttlChanged,omitzero"`
		Stream     *streamStateJSON                  `json:"stream,omitempty"`
		// GSICreated is when UpdateTable created each GSI it created
		// (Backfilling, CREATING until the activation delay passed).
		GSICreated map[string]time.Time         `json:"gsiCreated,omitempty"`
		Items      []map[string]*AttributeValue `json:"items"`
	}
	// streamStateJSON is a table's latest stream: its label (so its ARN)
	// and view type, and whether it is enabled. A state written before
	// it was kept has the stream in Create's StreamSpecification.
	streamStateJSON struct {
		Label    string                  `json:"label"`
		View     ddbtypes.StreamViewType `json:"view"`
		Created  time.Time               `json:"created"`
		Disabled bool                    `json:"disabled,omitempty"`
	}
)

// tableRecord is table name's metadata record, encoded: the table's
// state as the state file keeps it (tableJSON: the CreateTable that makes
// it again, when it was made, its TTL and stream settings, its GSIs'
// creation times), without the items, which have records of their own.
// New table state is a field of tableJSON, written in tableState and
// read back in restoreMeta.
func (c *Client) tableRecord(name string) ([]byte, error) {
	b, err := json.Marshal(c.tableState(name))
	if err != nil {
		return nil, fmt.Errorf("encoding table %s's record: %w", name, err)
	}

	return b, nil
}

// tableState is table name's state, without its items.
func (c *Client) tableState(name string) tableJSON {
	t, m := c.tables[name], c.meta[name]
	tj := tableJSON{Create: c.createInputOf(t, m), Created: m.created, TTLChanged: m.ttlChanged, GSICreated: m.gsiCreated}

	if m.ttlEnabled() {
		tj.TTL = &ddbtypes.TimeToLiveSpecification{AttributeName: aws.String(m.ttlAttribute), Enabled: aws.Bool(true)}
	}

	if m.streamLabel != "" {
		tj.Stream = &streamStateJSON{Label: m.streamLabel, View: m.streamView, Created: m.streamCreated, Disabled: m.streamArn == ""}
	}

	return tj
}

// restoreMeta gives a table made again from its CreateTable (on c) the
// rest of its state.
func (c *Client) restoreMeta(table *core.Table, m *tableMeta, tj *tableJSON) {
	m.created, m.ttlChanged = tj.Created, tj.TTLChanged
	maps.Copy(m.gsiCreated, tj.GSICreated)

	if tj.TTL != nil && aws.ToBool(tj.TTL.Enabled) {
		m.ttlAttribute = aws.ToString(tj.TTL.AttributeName)
	}

	if st := tj.Stream; st != nil {
		c.restoreStream(table, m, st)
	}
}

// itemOps are the operations whose only changes are item writes
// (journaled by c.commit); readOps change nothing. Every other operation
// may change tables: it runs alone and its tables' records are compared
// after it (c.journalTables).
var itemOps = map[string]bool{
	"PutItem": true, "DeleteItem": true, "UpdateItem": true, "BatchWriteItem": true, "TransactWriteItems": true,
}

func readOp(op string) bool {
	switch op {
	case "Query", "Scan", "BatchGetItem", "TransactGetItems":
		return true
	}

	return strings.HasPrefix(op, "Get") || strings.HasPrefix(op, "Describe") || strings.HasPrefix(op, "List")
}

// journal holds the changes applied in memory and not yet committed.
type journal struct {
	mu      sync.Mutex
	pending []entry
	// seq counts the entries journaled so far.
	seq atomic.Uint64
	// meta is each table's record as last journaled (or loaded).
	meta map[string][]byte
	// backups are the ARNs of the backups journaled (or loaded): a
	// backup does not change once made.
	backups map[string]bool
	wake    chan struct{}
}

type entry struct {
	kind  store.Kind
	table string
	key   string
	item  map[string]*types.Item
	meta  []byte
	// stream is the engine's stream sequence number before the change:
	// the records after it are this change's and later ones'.
	stream uint64
}

func (j *journal) add(e entry) {
	j.mu.Lock()
	j.pending = append(j.pending, e)
	j.seq.Add(1)
	j.mu.Unlock()

	select {
	case j.wake <- struct{}{}:
	default:
	}
}

// take is every entry journaled and not taken yet, and the sequence
// number of the last.
func (j *journal) take() ([]entry, uint64) {
	j.mu.Lock()
	defer j.mu.Unlock()

	p := j.pending
	j.pending = nil

	return p, j.seq.Load()
}

// journalWrite journals an applied item write (under c.mu), after its
// table's record when the table is new to the journal (an operation that
// makes a table and writes its items, such as a restore, journals them
// before journalTables runs: the store never holds items without their
// table's record).
func (c *Client) journalWrite(w *core.Write, stream uint64) {
	j, name := c.journal, w.Table.Name
	if _, ok := j.meta[name]; !ok && c.meta[name] != nil {
		if rec, err := c.tableRecord(name); err == nil {
			j.meta[name] = rec
			j.add(entry{kind: store.PutTable, table: name, meta: rec, stream: stream})
		}
	}

	e := entry{kind: store.PutItem, table: name, key: w.Key, item: w.New, stream: stream}
	if w.New == nil {
		e.kind = store.DeleteItem
	}

	j.add(e)
}

// commitUnrecorded applies a prepared write that no stream records (a
// restore's items, as DynamoDB's), journaled like every write (under
// c.mu).
func (c *Client) commitUnrecorded(w *core.Write) {
	w.Commit()

	if c.journal != nil {
		c.journalWrite(w, c.seq)
	}
}

// journalTables journals every table whose record differs from the one
// last journaled, and every table gone.
func (c *Client) journalTables() error {
	c.mu.Lock()
	defer c.mu.Unlock()

	j := c.journal

	for _, name := range slices.Sorted(maps.Keys(c.tables)) {
		rec, err := c.tableRecord(name)
		if err != nil {
			return err
		}

		if !bytes.Equal(rec, j.meta[name]) {
			j.meta[name] = rec
			j.add(entry{kind: store.PutTable, table: name, meta: rec, stream: c.seq})
		}
	}

	for _, name := range slices.Sorted(maps.Keys(j.meta)) {
		if c.tables[name] == nil {
			delete(j.meta, name)
			j.add(entry{kind: store.DropTable, table: name, stream: c.seq})
		}
	}

	return c.journalBackups()
}

// journalBackups journals every backup made and every one deleted since
// the last journaled (under c.mu).
func (c *Client) journalBackups() error {
	j := c.journal

	for _, arn := range slices.Sorted(maps.Keys(c.backups)) {
		if j.backups[arn] {
			continue
		}

		rec, err := c.backups[arn].record()
		if err != nil {
			return err
		}

		j.backups[arn] = true
		j.add(entry{kind: store.PutBackup, key: arn, meta: rec, stream: c.seq})
	}

	for _, arn := range slices.Sorted(maps.Keys(j.backups)) {
		if c.backups[arn] == nil {
			delete(j.backups, arn)
			j.add(entry{kind: store.DropBackup, key: arn, stream: c.seq})
		}
	}

	return nil
}

// loadBackups reads every backup st holds.
func loadBackups(st Durable) (map[string]*backup, error) {
	out := map[string]*backup{}

	err := st.Backups(func(arn string, rec []byte) error {
		b, err := backupOfRecord(arn, rec)
		if err != nil {
			return err
		}

		out[arn] = b

		return nil
	})

	return out, err
}

// journalCleared journals a table whose items were all removed at once
// (ClearTable): dropped, then its record again (under c.mu).
func (c *Client) journalCleared(name string) error {
	if c.journal == nil {
		return nil
	}

	rec, err := c.tableRecord(name)
	if err != nil {
		return err
	}

	c.journal.meta[name] = rec
	c.journal.add(entry{kind: store.DropTable, table: name, stream: c.seq})
	c.journal.add(entry{kind: store.PutTable, table: name, meta: rec, stream: c.seq})

	return nil
}

// durability is a served engine's committer and the requests waiting on
// it.
type durability struct {
	st   Durable
	log  func(string)
	mu   sync.Mutex
	cond *sync.Cond
	// done: every entry up to it is committed, or failed.
	done   uint64
	failed []failure
	stop   chan struct{}
	exited chan struct{}
}

type failure struct {
	lo, hi uint64 // entries lo+1..hi
	err    error
}

// maxFailures is how many failed ranges are remembered for the requests
// still to wake up.
const maxFailures = 1024

// Persist keeps the engine's tables in st from now on: the tables st
// holds replace the engine's (checked as CreateTable and PutItem check
// them: a record the engine cannot read is an error, and nothing is
// replaced), and every request is answered once its changes are
// committed to st. log gets a line for each failed commit, at once.
func (s *Server) Persist(st Durable, log func(string)) error {
	fresh := NewClient()
	fresh.indexActivationDelay = s.client.indexActivationDelay
	stored := map[string][]byte{}

	err := st.Each(func(t store.Table) error {
		table, m, err := fresh.restoreTable(t)
		if err != nil {
			return err
		}

		fresh.tables[t.Name], fresh.meta[t.Name] = table, m
		stored[t.Name] = bytes.Clone(t.Meta)

		return nil
	})
	if err != nil {
		return err
	}

	backups, err := loadBackups(st)
	if err != nil {
		return err
	}

	c := s.client

	c.mu.Lock()
	c.tables, c.meta, c.streams, c.seq = fresh.tables, fresh.meta, fresh.streams, fresh.seq
	c.journal = &journal{meta: stored, wake: make(chan struct{}, 1)}
	c.setBackups(backups)
	c.mu.Unlock()

	d := &durability{st: st, log: log, stop: make(chan struct{}), exited: make(chan struct{})}
	d.cond = sync.NewCond(&d.mu)
	s.durable = d

	go s.commitLoop()

	return nil
}

// Import replaces the engine's tables with those r holds (the JSON state
// file an earlier keyplan wrote, Load) and commits them all to the store
// (Persist first).
func (s *Server) Import(r io.Reader) error {
	if s.durable == nil {
		return fmt.Errorf("engine state: no store to import into")
	}

	if err := s.Load(r); err != nil {
		return err
	}

	c := s.client

	c.mu.Lock()
	defer c.mu.Unlock()

	var changes []store.Change

	for _, name := range slices.Sorted(maps.Keys(c.tables)) {
		rec, err := c.tableRecord(name)
		if err != nil {
			return err
		}

		changes = append(changes, store.Change{Kind: store.DropTable, Table: name}, store.Change{Kind: store.PutTable, Table: name, Value: rec})
		c.journal.meta[name] = rec
		t := c.tables[name]

		t.Each(func(item map[string]*types.Item) bool {
			key, _ := t.EncodeKey(item)
			changes = append(changes, store.Change{Kind: store.PutItem, Table: name, Key: []byte(key), Value: appendItems(nil, item)})

			return true
		})
	}

	return s.durable.st.Commit(changes)
}

// restoreTable makes a stored table again: its record through CreateTable
// (on c, a fresh client), its items through PutItem's checks.
func (c *Client) restoreTable(t store.Table) (*core.Table, *tableMeta, error) {
	var rec tableJSON

	dec := json.NewDecoder(bytes.NewReader(t.Meta))
	dec.DisallowUnknownFields()

	if err := dec.Decode(&rec); err != nil {
		return nil, nil, fmt.Errorf("table %s: its record: %w", t.Name, err)
	}

	in := rec.Create
	if aws.ToString(in.TableName) != t.Name {
		return nil, nil, fmt.Errorf("table %s: its record is table %q's", t.Name, aws.ToString(in.TableName))
	}

	if _, err := c.CreateTable(context.Background(), &in); err != nil {
		return nil, nil, fmt.Errorf("table %s: its record: %w", t.Name, err)
	}

	table, m := c.tables[t.Name], c.meta[t.Name]
	c.restoreMeta(table, m, &rec)

	err := t.Items(func(key, value []byte) error {
		var raw map[string]*AttributeValue
		if err := json.Unmarshal(value, &raw); err != nil {
			return fmt.Errorf("table %s, item %q: %w", t.Name, key, err)
		}

		item, err := fromWireMap(raw)
		if err != nil {
			return fmt.Errorf("table %s, item %q: %w", t.Name, key, err)
		}

		w, err := table.PreparePut(item, nil)
		if err != nil {
			return fmt.Errorf("table %s, item %q: %w", t.Name, key, apiErr(err))
		}

		if w.Key != string(key) {
			return fmt.Errorf("table %s, item %q: stored under another key than its own (%q)", t.Name, key, w.Key)
		}

		w.Commit()

		return nil
	})
	if err != nil {
		return nil, nil, err
	}

	return table, m, nil
}

// commitLoop commits what is journaled, batch after batch, until
// StopPersisting.
func (s *Server) commitLoop() {
	d, j := s.durable, s.client.journal
	defer close(d.exited)

	for {
		select {
		case <-j.wake:
		case <-d.stop:
			// Requests are over (the HTTP server has shut down): what
			// they journaled is committed before the store closes.
			if batch, hi := j.take(); len(batch) > 0 {
				s.commitBatch(batch, hi)
			}

			return
		}

		if batch, hi := j.take(); len(batch) > 0 {
			s.commitBatch(batch, hi)
		}
	}
}

func (s *Server) commitBatch(batch []entry, hi uint64) {
	d := s.durable
	lo := hi - uint64(len(batch))

	changes := make([]store.Change, len(batch))
	for i, e := range batch {
		changes[i] = store.Change{Kind: e.kind, Table: e.table, Key: []byte(e.key), Value: e.meta}
		if e.kind == store.PutItem {
			changes[i].Value = appendItems(nil, e.item)
		}
	}

	done := hi

	err := d.st.Commit(changes)
	if err != nil {
		hi, done = s.rollBack(batch, err)
	}

	d.mu.Lock()
	if err != nil {
		d.failed = append(d.failed, failure{lo: lo, hi: hi, err: err})
		if len(d.failed) > maxFailures {
			d.failed = slices.Delete(d.failed, 0, len(d.failed)-maxFailures)
		}
	}

	d.done = done
	d.cond.Broadcast()
	d.mu.Unlock()
}

// rollBack puts the engine back to what the store holds after a failed
// commit of batch: that batch and every change journaled after it are
// dropped, the tables they touched reloaded. It returns the sequence
// number of the last change dropped, and the one after it: a request
// that ends after the rollback waits on that one (it saw none of the
// dropped changes), one that ended before on a dropped one.
func (s *Server) rollBack(batch []entry, cerr error) (hi, done uint64) {
	s.gate.Lock()
	defer s.gate.Unlock()

	c, j := s.client, s.client.journal

	c.mu.Lock()
	defer c.mu.Unlock()

	j.mu.Lock()
	rest := j.pending
	j.pending = nil
	hi = j.seq.Load()
	done = j.seq.Add(1)
	j.mu.Unlock()

	all := append(batch, rest...)
	touched := map[string]bool{}
	backups := false

	for _, e := range all {
		if e.kind == store.PutBackup || e.kind == store.DropBackup {
			backups = true
		} else {
			touched[e.table] = true
		}
	}

	var errs []string

	for _, name := range slices.Sorted(maps.Keys(touched)) {
		if err := c.reloadTable(s.durable.st, name); err != nil {
			errs = append(errs, err.Error())
		}
	}

	if backups {
		if err := c.reloadBackups(s.durable.st); err != nil {
			errs = append(errs, err.Error())
		}
	}

	c.dropStreamRecordsAfter(all[0].stream)
	clear(c.tokens)

	msg := fmt.Sprintf("the data directory's store failed to commit %d change(s) (%v): they are not kept, and the %d request(s) that made or read them are answered 500; the tables they touched (%s) are as the store holds them",
		len(all), cerr, len(all), strings.Join(slices.Sorted(maps.Keys(touched)), ", "))
	if backups {
		msg += ", and so are the backups"
	}
	if len(errs) > 0 {
		msg += "; reloading them failed: " + strings.Join(errs, "; ")
	}

	if s.durable.log != nil {
		s.durable.log(msg)
	}

	return hi, done
}

// reloadTable makes table name what st holds (under c.mu).
func (c *Client) reloadTable(st Durable, name string) error {
	j := c.journal

	found, err := st.ReadTable(name, func(t store.Table) error {
		scratch := NewClient()
		scratch.indexActivationDelay = c.indexActivationDelay

		table, m, err := scratch.restoreTable(t)
		if err != nil {
			return err
		}

		old := c.meta[name]
		if old != nil && bytes.Equal(j.meta[name], t.Meta) {
			m = old // the same table: its stream goes on
		} else {
			if old != nil {
				c.endStream(old)
			}

			var rec tableJSON
			if err := json.Unmarshal(t.Meta, &rec); err == nil && rec.Stream != nil {
				c.restoreStream(table, m, rec.Stream)
			}
		}

		c.tables[name], c.meta[name] = table, m
		j.meta[name] = bytes.Clone(t.Meta)

		return nil
	})

	switch {
	case err != nil:
		return err
	case !found && c.meta[name] != nil:
		c.endStream(c.meta[name])
		delete(c.tables, name)
		delete(c.meta, name)
	}

	if !found {
		delete(j.meta, name)
	}

	return nil
}

// reloadBackups makes the backups what st holds (under c.mu).
func (c *Client) reloadBackups(st Durable) error {
	b, err := loadBackups(st)
	if err != nil {
		return err
	}

	c.setBackups(b)

	return nil
}

// setBackups makes b the backups, as stored (under c.mu).
func (c *Client) setBackups(b map[string]*backup) {
	c.backups = b
	c.journal.backups = map[string]bool{}

	for arn := range b {
		c.journal.backups[arn] = true
	}
}

// dropStreamRecordsAfter removes every stream record after sequence
// number seq (changes that were not kept).
func (c *Client) dropStreamRecordsAfter(seq uint64) {
	for _, st := range c.streams {
		for _, sh := range st.shards {
			n := len(sh.records)
			sh.records = slices.DeleteFunc(sh.records, func(r streamRecord) bool { return r.seq > seq })
			st.records -= n - len(sh.records)
		}
	}
}

// wait returns once every change journaled up to target is committed, or
// with the error of the commit that failed it.
func (d *durability) wait(target uint64) error {
	d.mu.Lock()
	defer d.mu.Unlock()

	for d.done < target {
		d.cond.Wait()
	}

	for _, f := range d.failed {
		if target > f.lo && target <= f.hi {
			return &apiError{Code: "InternalServerError", Message: "The data directory's store could not commit this request's changes, or changes it read; nothing of them is kept: " + f.err.Error()}
		}
	}

	return nil
}

// StopPersisting commits what is journaled and stops the committer (once
// no request is served any more); the store is the caller's to close.
func (s *Server) StopPersisting() {
	if d := s.durable; d != nil {
		select {
		case <-d.stop:
		default:
			close(d.stop)
		}

		<-d.exited
	}
}

// createInputOf is the CreateTable that makes table t again.
func (c *Client) createInputOf(t *core.Table, m *tableMeta) CreateTableInput {
	in := CreateTableInput{
		TableName: aws.String(t.Name), AttributeDefinitions: m.definitions, BillingMode: m.billing,
		ProvisionedThroughput: m.throughput, Tags: m.tags,
	}

	for _, k := range t.Description(t.Name).KeySchema {
		in.KeySchema = append(in.KeySchema, ddbtypes.KeySchemaElement{AttributeName: aws.String(k.AttributeName), KeyType: ddbtypes.KeyType(k.KeyType)})
	}

	gsis, lsis := t.IndexDefinitions()

	for _, d := range gsis {
		in.GlobalSecondaryIndexes = append(in.GlobalSecondaryIndexes, ddbtypes.GlobalSecondaryIndex{
			IndexName: aws.String(d.Name), KeySchema: fromCoreKeySchema(d.KeySchema), Projection: fromCoreProjection(d.Projection),
			ProvisionedThroughput: m.gsiThroughput[d.Name],
		})
	}

	for _, d := range lsis {
		in.LocalSecondaryIndexes = append(in.LocalSecondaryIndexes, ddbtypes.LocalSecondaryIndex{
			IndexName: aws.String(d.Name), KeySchema: fromCoreKeySchema(d.KeySchema), Projection: fromCoreProjection(d.Projection),
		})
	}

	return in
}

func fromCoreKeySchema(in []types.KeySchemaElement) []ddbtypes.KeySchemaElement {
	out := make([]ddbtypes.KeySchemaElement, len(in))
	for i, k := range in {
		out[i] = ddbtypes.KeySchemaElement{AttributeName: aws.String(k.AttributeName), KeyType: ddbtypes.KeyType(k.KeyType)}
	}

	return out
}

func fromCoreProjection(p *types.Projection) *ddbtypes.Projection {
	if p == nil || p.ProjectionType == nil {
		return &ddbtypes.Projection{ProjectionType: ddbtypes.ProjectionTypeAll}
	}

	out := &ddbtypes.Projection{ProjectionType: ddbtypes.ProjectionType(*p.ProjectionType)}
	for _, a := range p.NonKeyAttributes {
		out.NonKeyAttributes = append(out.NonKeyAttributes, aws.ToString(a))
	}

	return out
}

const stateVersion = 1

// Load replaces the engine's tables with those r holds (the JSON state
// file an earlier keyplan wrote). Every table and item is checked as
// CreateTable and PutItem check them; nothing is replaced when any is
// refused.
func (s *Server) Load(r io.Reader) error {
	var st stateJSON

	dec := json.NewDecoder(r)
	if err := dec.Decode(&st); err != nil {
		return fmt.Errorf("engine state: %w", err)
	}

	if st.Version != stateVersion {
		return fmt.Errorf("engine state: version %d, want %d", st.Version, stateVersion)
	}

	fresh := NewClient()
	fresh.indexActivationDelay = s.client.indexActivationDelay

	for _, tj := range st.Tables {
		in := tj.Create
		if _, err := fresh.CreateTable(context.Background(), &in); err != nil {
			return fmt.Errorf("engine state: table %s: %w", aws.ToString(in.TableName), err)
		}

		name := aws.ToString(in.TableName)
		table, m := fresh.tables[name], fresh.meta[name]
		m.created, m.ttlChanged = tj.Created, tj.TTLChanged
		maps.Copy(m.gsiCreated, tj.GSICreated)

		if tj.TTL != nil && aws.ToBool(tj.TTL.Enabled) {
			m.ttlAttribute = aws.ToString(tj.TTL.AttributeName)
		}

		if st := tj.Stream; st != nil {
			fresh.restoreStream(table, m, st)
		}

		for i, raw := range tj.Items {
			item, err := fromWireMap(raw)
			if err != nil {
				return fmt.Errorf("engine state: table %s, item %d: %w", name, i, err)
			}

			w, err := table.PreparePut(item, nil)
			if err != nil {
				return fmt.Errorf("engine state: table %s, item %d: %w", name, i, apiErr(err))
			}

			w.Commit()
		}
	}

	c := s.client

	c.mu.Lock()
	defer c.mu.Unlock()

	c.tables, c.meta, c.streams, c.seq = fresh.tables, fresh.meta, fresh.streams, fresh.seq

	return nil
}

// restoreStream gives a loaded table its latest stream again: the same
// ARN, enabled or not, with a new shard (the records are not kept).
func (c *Client) restoreStream(table *core.Table, m *tableMeta, st *streamStateJSON) {
	if m.streamArn != "" { // a Create that named the stream too
		delete(c.streams, m.streamArn)
	}

	c.startStream(table, m, st.View, st.Label, st.Created)

	if st.Disabled {
		c.endStream(m)
	}
}

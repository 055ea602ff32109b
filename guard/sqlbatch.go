package guard

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/idemkit/idem/guard/internal/core"
)

// The batch calls of the SQL engine (see the package doc on batches).
//
// One transaction claims every distinct key of a batch. PostgreSQL and
// SQLite insert them all with one INSERT … ON CONFLICT DO NOTHING RETURNING
// (PostgreSQL from arrays through unnest, so the statement is the same for
// every batch size and stays prepared) and read the rest back, locked, with
// one SELECT … FOR UPDATE. MySQL has no RETURNING: it reads the batch's
// keys first with one SELECT … FOR UPDATE and then inserts the absent ones
// with one plain multi-row INSERT. Not INSERT IGNORE, which turns every
// error of the row (a truncated key text, a bad value) into a warning and so
// would claim a key with a wrong record; not ON DUPLICATE KEY UPDATE, whose
// count of affected rows cannot tell which rows it inserted. A key that
// another transaction inserted between the read and the insert fails the
// insert with a duplicate-key error, which InnoDB rolls back alone (the
// transaction goes on); the engine reads those keys again and inserts the
// rest. Under READ COMMITTED the read takes no gap locks, so absent keys
// block no one.

// batchID is the identity of a record in a batch: consumer and key hash.
type batchID struct {
	consumer string
	h        [32]byte
}

// batchKey is one distinct key of a batch call, with its claim's outcome.
type batchKey struct {
	idx      int // index of the first message with the key
	consumer string
	key      string
	h        [32]byte
	fp       []byte
	rejected error // Reject from an earlier attempt: this attempt records the key failed

	// set by each attempt
	owner   string
	v       core.Verdict
	rec     *Record
	now     time.Time     // the store's clock when the claim was decided
	claimed time.Duration // Event.Claim
	effect  time.Duration // Event.Effect
}

func (k *batchKey) id() batchID { return batchID{k.consumer, k.h} }

// oneOff marks a query whose text depends on the size of a batch: backends
// run it without preparing it, so that no statement cache fills up with one
// statement per batch size.
const oneOff = "/* idem:one-off */ "

// isOneOff reports whether a backend should run q without keeping it
// prepared. SQL backends call it.
func isOneOff(q string) bool { return strings.HasPrefix(q, oneOff) }

// planSQL plans a batch of n messages and returns its distinct keys.
func (e *sqlEngine) planSQL(ctx context.Context, n int, msg func(i int) (consumer, key string, fp []byte)) (batchPlan, []*batchKey) {
	p := planBatch(n, func(i int) (string, string, batchID) {
		c, k, _ := msg(i)
		return c, k, batchID{c, KeyHash(k)}
	}, func(consumer string) error { return e.checkConsumer(ctx, consumer) })
	keys := make([]*batchKey, len(p.leads))
	for j, i := range p.leads {
		c, k, fp := msg(i)
		keys[j] = &batchKey{idx: i, consumer: c, key: k, h: KeyHash(k), fp: fp}
	}
	return p, keys
}

// chunks splits keys into batches of at most MaxBatchLen, each sorted by
// consumer and key hash, so that concurrent batches lock their rows in one
// order.
func chunks(keys []*batchKey) [][]*batchKey {
	var out [][]*batchKey
	for len(keys) > 0 {
		n := min(len(keys), MaxBatchLen)
		c := slices.Clone(keys[:n])
		slices.SortFunc(c, func(a, b *batchKey) int {
			if x := strings.Compare(a.consumer, b.consumer); x != 0 {
				return x
			}
			return bytes.Compare(a.h[:], b.h[:])
		})
		out = append(out, c)
		keys = keys[n:]
	}
	return out
}

// DoBatch runs the transactional effects of a batch of messages (see the
// package doc on batches): one transaction claims every key with one
// statement, runs the effects of the fresh keys in the order of the batch,
// and commits once. It returns one Result per message, in order.
func (e *sqlEngine) DoBatch(ctx context.Context, msgs []TxMessage[core.Tx]) []Result {
	res := make([]Result, len(msgs))
	p, keys := e.planSQL(ctx, len(msgs), func(i int) (string, string, []byte) {
		return msgs[i].Consumer, msgs[i].Key, msgs[i].Fingerprint
	})
	for _, c := range chunks(keys) {
		e.doChunk(ctx, msgs, c, res, p.leader)
	}
	e.answerFollowers(ctx, p, res, func(i int) (string, string, []byte) {
		return msgs[i].Consumer, msgs[i].Key, msgs[i].Fingerprint
	})
	return res
}

// answerFollowers fills in the answers of the messages that were refused
// before the claim and of the later copies of a key.
func (e *sqlEngine) answerFollowers(ctx context.Context, p batchPlan, res []Result, msg func(i int) (consumer, key string, fp []byte)) {
	for i, f := range p.first {
		switch {
		case f < 0:
			res[i] = Result{Err: p.errs[i]}
		case f != i:
			c, k, fp := msg(i)
			v, rec, err := e.cfg.followerVerdict(fp, p.leader[f])
			if err == nil {
				res[i].Outcome, err = e.cfg.refuse(ctx, c, k, v, rec)
			}
			res[i].Err = err
		}
	}
}

// errDropped ends an attempt of a batch whose effect for one message failed:
// the transaction is rolled back and run again without it.
var errDropped = errors.New("guard: batch attempt dropped a message")

// doChunk runs one transaction of DoBatch over keys.
func (e *sqlEngine) doChunk(ctx context.Context, msgs []TxMessage[core.Tx], keys []*batchKey, res []Result, leads []batchLeader) {
	start := time.Now()
	active := keys
	for len(active) > 0 {
		var (
			dropped *batchKey
			dropErr error
		)
		err := e.retry(ctx, active[0].consumer, "", func() error {
			dropped, dropErr = nil, nil
			tx, err := e.b.Begin(ctx)
			if err != nil {
				return fmt.Errorf("guard: begin: %w", err)
			}
			committed := false
			defer func() {
				if !committed {
					tx.Rollback(context.WithoutCancel(ctx))
				}
			}()
			if err := e.claimBatch(ctx, tx, active, StateDone, start); err != nil {
				return err
			}
			for _, k := range active {
				if !k.v.Action.Acquires() {
					continue
				}
				if k.rejected != nil {
					if _, err := tx.Exec(ctx, e.q.setState, string(StateFailed), reasonText(k.rejected), k.consumer, k.h[:]); err != nil {
						return fmt.Errorf("guard: mark %s failed: %w", k.consumer, err)
					}
					continue
				}
				applyStart := time.Now()
				err := msgs[k.idx].Apply(ctx, tx)
				k.effect = time.Since(applyStart)
				if err != nil {
					if retryableSQL(err) {
						return err
					}
					dropped, dropErr = k, err
					return errDropped
				}
			}
			if err := tx.Commit(ctx); err != nil {
				return fmt.Errorf("guard: commit: %w", err)
			}
			committed = true
			return nil
		})
		switch {
		case errors.Is(err, errDropped) && IsRejected(dropErr):
			dropped.rejected = dropErr // recorded failed in the next attempt
			continue
		case errors.Is(err, errDropped):
			res[dropped.idx] = Result{Err: dropErr}
			leads[dropped.idx] = batchLeader{err: dropErr}
			active = slices.DeleteFunc(slices.Clone(active), func(k *batchKey) bool { return k == dropped })
			continue
		case err != nil:
			for _, k := range active {
				res[k.idx] = Result{Err: err}
				leads[k.idx] = batchLeader{err: err}
			}
			return
		}
		break
	}
	for _, k := range active {
		switch {
		case k.v.Action.Acquires() && k.rejected != nil:
			ferr := errFor(ErrFailed, k.consumer, "", k.rejected)
			e.cfg.Observer.Observe(ctx, Event{Decision: DecisionFailed, Consumer: k.consumer, Key: k.key, Err: ferr, Duration: time.Since(start)})
			res[k.idx] = Result{Err: ferr}
			leads[k.idx] = batchLeader{rec: &Record{Consumer: k.consumer, Key: k.key, State: StateFailed, Result: reasonText(k.rejected),
				ExpiresAt: k.now.Add(e.cfg.Retention)}, now: k.now}
		case k.v.Action.Acquires():
			e.cfg.Observer.Observe(ctx, Event{Decision: DecisionApplied, Consumer: k.consumer, Key: k.key, Duration: time.Since(start),
				Claim: k.claimed, Effect: k.effect})
			res[k.idx] = Result{Outcome: Applied}
			leads[k.idx] = e.cfg.acquiredLeader(k.consumer, k.key, k.fp, k.now, false)
		default:
			out, err := e.cfg.refuseClaim(ctx, k.claimed, k.consumer, k.key, k.v, k.rec)
			res[k.idx] = Result{Outcome: out, Err: err}
			leads[k.idx] = batchLeader{rec: k.rec, now: k.now}
		}
	}
}

// ClaimBatch claims the keys of a batch for external effects with one
// statement in one transaction (see the package doc on batches) and returns
// one Claimed per message, in order: a Lease as Claim returns it, or an
// error. A later copy of a key claimed by the batch is *InProgressError
// (the first copy holds its lease) or ErrKeyConflict.
func (e *sqlEngine) ClaimBatch(ctx context.Context, msgs []Message) []Claimed {
	out := make([]Claimed, len(msgs))
	msg := func(i int) (string, string, []byte) { return msgs[i].Consumer, msgs[i].Key, msgs[i].Fingerprint }
	p, keys := e.planSQL(ctx, len(msgs), msg)
	for _, c := range chunks(keys) {
		e.claimChunk(ctx, c, out, p.leader)
	}
	for i, f := range p.first {
		switch {
		case f < 0:
			out[i].Err = p.errs[i]
		case f != i:
			v, rec, err := e.cfg.followerVerdict(msgs[i].Fingerprint, p.leader[f])
			if err == nil {
				info := core.LeaseInfo{Consumer: msgs[i].Consumer, Key: msgs[i].Key}
				out[i].Lease, err = claimAnswer(ctx, engineLeases{e}, e.cfg, info, v, rec)
			}
			out[i].Err = err
		}
	}
	return out
}

// claimChunk runs one transaction of ClaimBatch over keys.
func (e *sqlEngine) claimChunk(ctx context.Context, keys []*batchKey, out []Claimed, leads []batchLeader) {
	start := time.Now()
	err := e.retry(ctx, keys[0].consumer, "", func() error {
		tx, err := e.b.Begin(ctx)
		if err != nil {
			return fmt.Errorf("guard: begin: %w", err)
		}
		committed := false
		defer func() {
			if !committed {
				tx.Rollback(context.WithoutCancel(ctx))
			}
		}()
		if err := e.claimBatch(ctx, tx, keys, StatePending, start); err != nil {
			return err
		}
		if err := tx.Commit(ctx); err != nil {
			return fmt.Errorf("guard: commit: %w", err)
		}
		committed = true
		return nil
	})
	for _, k := range keys {
		if err != nil {
			out[k.idx].Err = err
			leads[k.idx] = batchLeader{err: err}
			continue
		}
		info := core.LeaseInfo{Consumer: k.consumer, Key: k.key, Owner: k.owner, Duration: e.cfg.Lease, Started: start}
		out[k.idx].Lease, out[k.idx].Err = claimAnswer(ctx, engineLeases{e}, e.cfg, info, k.v, k.rec)
		out[k.idx].rec, out[k.idx].now = k.rec, k.now
		if k.v.Action.Acquires() {
			leads[k.idx] = e.cfg.acquiredLeader(k.consumer, k.key, k.fp, k.now, true)
		} else {
			leads[k.idx] = batchLeader{rec: k.rec, now: k.now}
		}
	}
}

// RunBatch runs the external effects of a batch of messages: ClaimBatch
// claims every key with one statement, then each acquired key's apply runs
// under its lease, one after the other in the order of the batch, and its
// outcome is recorded as Run records it (see runLease). It returns one
// Result per message, in order; a later copy of a key is answered from the
// first one's outcome (Duplicate after an applied effect).
func (e *sqlEngine) RunBatch(ctx context.Context, msgs []LeaseMessage) []Result {
	return runLeases(ctx, e.cfg, msgs, e.ClaimBatch)
}

// runLeases is RunBatch over a store's ClaimBatch: it claims the first copy
// of each key, runs the acquired ones under their leases in order, and
// answers the later copies from the first one's outcome.
func runLeases(ctx context.Context, cfg Config, msgs []LeaseMessage, claimBatch func(context.Context, []Message) []Claimed) []Result {
	res := make([]Result, len(msgs))
	p := planBatch(len(msgs), func(i int) (string, string, batchID) {
		return msgs[i].Consumer, msgs[i].Key, batchID{msgs[i].Consumer, KeyHash(msgs[i].Key)}
	}, func(string) error { return nil }) // the claims check identities
	firsts := make([]Message, len(p.leads))
	for j, i := range p.leads {
		firsts[j] = Message{Consumer: msgs[i].Consumer, Key: msgs[i].Key, Fingerprint: msgs[i].Fingerprint}
	}
	claims := claimBatch(ctx, firsts)
	for j, i := range p.leads {
		c := claims[j]
		if c.Err != nil || c.Lease.Outcome() != Applied {
			if c.Err == nil {
				res[i].Outcome = Duplicate
			}
			res[i].Err = c.Err
			p.leader[i] = batchLeader{rec: c.rec, now: c.now, err: c.Err}
			continue
		}
		l := c.Lease
		res[i].Outcome, res[i].Err = runLease(ctx, l, msgs[i].Apply)
		if res[i].Err != nil {
			p.leader[i] = batchLeader{err: res[i].Err}
		} else {
			p.leader[i] = cfg.acquiredLeader(l.consumer, l.key, msgs[i].Fingerprint, time.Now(), false)
		}
	}
	for i, f := range p.first {
		switch {
		case f < 0:
			res[i].Err = p.errs[i]
		case f != i:
			v, rec, err := cfg.followerVerdict(msgs[i].Fingerprint, p.leader[f])
			if err == nil {
				res[i].Outcome, err = cfg.refuse(ctx, msgs[i].Consumer, msgs[i].Key, v, rec)
			}
			res[i].Err = err
		}
	}
	return res
}

// claimBatch claims keys inside tx in state (done for DoBatch, pending for
// ClaimBatch): every key gets its verdict and, for an existing record, the
// record it was made on; the verdict's write (a reclaim, a takeover, an
// uncertain mark) is carried out.
func (e *sqlEngine) claimBatch(ctx context.Context, tx core.Tx, keys []*batchKey, state State, start time.Time) error {
	for _, k := range keys {
		k.v, k.rec, k.owner = core.Verdict{}, nil, ""
		if state == StatePending {
			k.owner = core.NewOwnerToken()
		}
	}
	var err error
	if e.dialect == MySQL {
		err = e.claimReadFirst(ctx, tx, keys, state)
	} else {
		err = e.claimInsertFirst(ctx, tx, keys, state)
	}
	if err != nil {
		return err
	}
	lease := time.Duration(0)
	if state == StatePending {
		lease = e.cfg.Lease
	}
	for _, k := range keys {
		k.claimed = time.Since(start)
		if k.v.Action == core.ActInsert {
			continue
		}
		if err := e.carryOut(ctx, tx, k.consumer, k.key, k.h[:], k.fp, state, k.owner, lease, k.v); err != nil {
			return err
		}
	}
	return nil
}

// claimInsertFirst claims keys with INSERT … ON CONFLICT DO NOTHING
// RETURNING and reads the others back, locked (PostgreSQL, SQLite). A row
// that vanished between the two (released, forgotten, purged) is inserted
// again.
func (e *sqlEngine) claimInsertFirst(ctx context.Context, tx core.Tx, keys []*batchKey, state State) error {
	todo := keys
	for round := 0; len(todo) > 0; round++ {
		if round == 3 {
			return errVanished
		}
		inserted, err := e.insertBatch(ctx, tx, todo, state)
		if err != nil {
			return err
		}
		var rest []*batchKey
		for _, k := range todo {
			if inserted[k.id()] {
				k.v = core.Verdict{Action: core.ActInsert}
			} else {
				rest = append(rest, k)
			}
		}
		if len(rest) == 0 {
			break
		}
		if todo, err = e.readBatch(ctx, tx, rest); err != nil {
			return err
		}
	}
	return nil
}

// claimReadFirst claims keys by reading them locked and inserting the
// absent ones with a plain multi-row INSERT (MySQL; see the top of this
// file). A key inserted by another transaction in between fails the insert
// alone; it is read again.
func (e *sqlEngine) claimReadFirst(ctx context.Context, tx core.Tx, keys []*batchKey, state State) error {
	todo := keys
	for round := 0; ; round++ {
		absent, err := e.readBatch(ctx, tx, todo)
		if err != nil || len(absent) == 0 {
			return err
		}
		_, err = e.insertBatch(ctx, tx, absent, state)
		switch {
		case err == nil:
			for _, k := range absent {
				k.v = core.Verdict{Action: core.ActInsert}
			}
			return nil
		case uniqueViolation(err) && round < 3:
			todo = absent
		default:
			return err
		}
	}
}

// readBatch reads the records of keys, locked, and decides each key found;
// it returns the keys that have no record.
func (e *sqlEngine) readBatch(ctx context.Context, tx core.Tx, keys []*batchKey) ([]*batchKey, error) {
	query, args := e.q.batchRead(keys)
	rows, err := tx.Query(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("guard: read %s records: %w", keys[0].consumer, err)
	}
	defer rows.Close()
	byID := make(map[batchID]*batchKey, len(keys))
	for _, k := range keys {
		byID[k.id()] = k
	}
	found := make(map[batchID]bool, len(keys))
	for rows.Next() {
		var (
			consumer string
			h        []byte
		)
		r, err := scanRecord(rows.Scan, &consumer, &h)
		if err != nil {
			return nil, fmt.Errorf("guard: read %s records: %w", keys[0].consumer, err)
		}
		id := batchID{consumer: consumer}
		copy(id.h[:], h)
		k := byID[id]
		if k == nil || found[id] {
			continue
		}
		if !r.State.valid() {
			return nil, fmt.Errorf("guard: %s record has unknown state %q", consumer, r.State)
		}
		found[id] = true
		r.Consumer = consumer
		k.rec, k.now = &r.Record, r.now
		k.v = decideClaim(&r.Record, r.now, k.fp, e.cfg.Delivery)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("guard: read %s records: %w", keys[0].consumer, err)
	}
	var absent []*batchKey
	for _, k := range keys {
		if !found[k.id()] {
			absent = append(absent, k)
		}
	}
	return absent, nil
}

// insertBatch inserts a record in state for each of keys, skipping those
// that exist (PostgreSQL, SQLite) or failing when one does (MySQL), and
// returns the keys it inserted (PostgreSQL, SQLite: RETURNING; MySQL: nil,
// all of them when it succeeds).
func (e *sqlEngine) insertBatch(ctx context.Context, tx core.Tx, keys []*batchKey, state State) (map[batchID]bool, error) {
	if e.q.batchLockPG != "" {
		consumers, hashes := make([]string, len(keys)), make([][]byte, len(keys))
		for i, k := range keys {
			consumers[i], hashes[i] = k.consumer, k.h[:]
		}
		if _, err := tx.Exec(ctx, e.q.batchLockPG, consumers, hashes); err != nil {
			return nil, fmt.Errorf("guard: claim %s: lock the keys: %w", keys[0].consumer, err)
		}
	}
	query, args := e.q.batchInsert(keys, state, us(e.cfg.Lease), us(e.cfg.Retention))
	if e.dialect == MySQL {
		_, err := tx.Exec(ctx, query, args...)
		if err != nil && !uniqueViolation(err) {
			err = fmt.Errorf("guard: claim %s: %w", keys[0].consumer, err)
		}
		return nil, err
	}
	rows, err := tx.Query(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("guard: claim %s: %w", keys[0].consumer, err)
	}
	defer rows.Close()
	inserted := make(map[batchID]bool, len(keys))
	for rows.Next() {
		var (
			id batchID
			h  []byte
		)
		if err := rows.Scan(&id.consumer, &h); err != nil {
			return nil, fmt.Errorf("guard: claim %s: %w", keys[0].consumer, err)
		}
		copy(id.h[:], h)
		inserted[id] = true
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("guard: claim %s: %w", keys[0].consumer, err)
	}
	return inserted, nil
}

// batchInsert returns the claim insert of keys in state, and its arguments.
func (q *queries) batchInsert(keys []*batchKey, state State, leaseUS, retentionUS int64) (string, []any) {
	if q.dialect == Postgres {
		n := len(keys)
		consumers, hashes, texts, states, fps, owners := make([]string, n), make([][]byte, n), make([]string, n), make([]string, n), make([][]byte, n), make([]string, n)
		for i, k := range keys {
			consumers[i], hashes[i], texts[i], states[i], fps[i], owners[i] = k.consumer, k.h[:], keyText(k.key), string(state), StoredFingerprint(k.fp), k.owner
		}
		return q.batchInsertPG, []any{consumers, hashes, texts, states, fps, owners, leaseUS, retentionUS}
	}
	sd := dialects[q.dialect]
	lease := `NULL`
	if state == StatePending {
		lease = sd.plus
	}
	row := `(?, ?, ?, ?, ?, ?, ` + lease + `, ` + sd.now + `, ` + sd.plus + `)`
	var b strings.Builder
	b.WriteString(oneOff + `INSERT INTO ` + q.table + ` (consumer, key_hash, key_text, state, fingerprint, owner, lease_until, created_at, expires_at) VALUES `)
	args := make([]any, 0, len(keys)*8)
	for i, k := range keys {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(row)
		var fp any
		if stored := StoredFingerprint(k.fp); stored != nil {
			fp = stored
		}
		h := k.h
		args = append(args, k.consumer, h[:], keyText(k.key), string(state), fp, k.owner)
		if state == StatePending {
			args = append(args, leaseUS)
		}
		args = append(args, retentionUS)
	}
	if q.dialect == SQLite {
		b.WriteString(sd.onConflict + ` RETURNING consumer, key_hash`)
	}
	return b.String(), args
}

// batchRead returns the locked read of the records of keys, and its
// arguments. MySQL's has room for a power of two of keys (the last one
// repeated), so that a few prepared statements serve every batch size.
func (q *queries) batchRead(keys []*batchKey) (string, []any) {
	switch q.dialect {
	case Postgres:
		consumers, hashes := make([]string, len(keys)), make([][]byte, len(keys))
		for i, k := range keys {
			consumers[i], hashes[i] = k.consumer, k.h[:]
		}
		return q.batchReadPG, []any{consumers, hashes}
	case MySQL:
		n := 1
		for n < len(keys) {
			n *= 2
		}
		args := make([]any, 0, 2*n)
		for i := range n {
			k := keys[min(i, len(keys)-1)]
			args = append(args, k.consumer, k.h[:])
		}
		return q.batchReadMySQL(n), args
	}
	var b strings.Builder
	b.WriteString(oneOff + q.batchSelect + ` WHERE (consumer, key_hash) IN (VALUES `)
	args := make([]any, 0, 2*len(keys))
	for i, k := range keys {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString("(?, ?)")
		args = append(args, k.consumer, k.h[:])
	}
	b.WriteString(")")
	return b.String(), args
}

// batchReadMySQL returns MySQL's locked read of n keys.
func (q *queries) batchReadMySQL(n int) string {
	if s, ok := q.mysqlReads.Load(n); ok {
		return s.(string)
	}
	var b strings.Builder
	b.WriteString(q.batchSelect + ` WHERE (consumer, key_hash) IN (`)
	for i := range n {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString("(?, ?)")
	}
	b.WriteString(") FOR UPDATE")
	s, _ := q.mysqlReads.LoadOrStore(n, b.String())
	return s.(string)
}

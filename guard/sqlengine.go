package guard

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/idemkit/idem/guard/internal/core"
)

// sqlEngine is the dedup logic shared by the SQL stores (SQLStore and
// pgxguard.Store): claims, leases, operators and purge, written once over an
// core.Backend. Its methods are the stores' methods.
type sqlEngine struct {
	b       core.Backend
	dialect Dialect
	cfg     Config
	q       *queries
	ids     *core.KeyIdentityCache // shared with the engine's With views
}

// newSQLEngine returns the engine for b in dialect d.
func newSQLEngine(b core.Backend, d Dialect, opts ...Option) (*sqlEngine, error) {
	cfg, err := NewConfig(opts...)
	if err != nil {
		return nil, err
	}
	q, err := queriesFor(d, cfg)
	if err != nil {
		return nil, err
	}
	return &sqlEngine{b: b, dialect: d, cfg: cfg, q: q, ids: core.NewKeyIdentityCache()}, nil
}

// queriesFor returns the statements of dialect d for cfg's table.
func queriesFor(d Dialect, cfg Config) (*queries, error) {
	q, err := newQueries(d, cfg.Table)
	if err == nil && cfg.DailyPartitions {
		err = q.partitioned(cfg.Table)
	}
	return q, err
}

// Config returns the store's resolved options.
func (e *sqlEngine) Config() Config { return e.cfg }

// With returns an engine sharing e's database with opts applied on top of e's
// options. Generated handlers use it to layer a consumer's settings (lease,
// delivery, retention) over the store's.
func (e *sqlEngine) With(opts ...Option) (*sqlEngine, error) {
	cfg, err := e.cfg.With(opts...)
	if err != nil {
		return nil, err
	}
	q := e.q
	if cfg.Table != e.cfg.Table || cfg.DailyPartitions != e.cfg.DailyPartitions {
		if q, err = queriesFor(e.dialect, cfg); err != nil {
			return nil, err
		}
	}
	return &sqlEngine{b: e.b, dialect: e.dialect, cfg: cfg, q: q, ids: e.ids}, nil
}

// Dialect returns the store's dialect.
func (e *sqlEngine) Dialect() Dialect { return e.dialect }

// CreateTable creates the dedup table if it does not exist (CreateTableSQL).
// Production schemas should come from idemgen's migrations; this is for tests
// and quick starts.
func (e *sqlEngine) CreateTable(ctx context.Context) error {
	stmts, err := CreateTableSQL(e.dialect, e.cfg.Table)
	if err != nil {
		return err
	}
	for _, s := range stmts {
		if _, err := e.b.Exec(ctx, s); err != nil {
			return fmt.Errorf("guard: create table %s: %w", e.cfg.Table, err)
		}
	}
	return nil
}

// us is d in microseconds, the resolution of every SQL store's clock,
// rounded up: a duration is never shortened (d > 0 by NewConfig).
func us(d time.Duration) int64 { return int64((d-1)/time.Microsecond) + 1 }

// errVanished: the row we conflicted with was deleted before we could lock it
// (released, forgotten or purged); the claim is simply tried again.
var errVanished = errors.New("guard: dedup record vanished during claim")

// retry runs op until it succeeds, fails for good, or MaxRetries retryable
// failures (serialization, deadlock, busy) have happened, sleeping with jitter
// between tries.
func (e *sqlEngine) retry(ctx context.Context, consumer, key string, op func() error) error {
	for attempt := 1; ; attempt++ {
		err := op()
		if err == nil || !(errors.Is(err, errVanished) || retryableSQL(err)) || attempt > e.cfg.MaxRetries || ctx.Err() != nil {
			return err
		}
		e.cfg.Observer.Observe(ctx, Event{Decision: DecisionRetried, Consumer: consumer, Key: key, Attempt: attempt, Err: err})
		backoff := time.Duration(1<<min(attempt, 6)) * time.Millisecond
		t := time.NewTimer(backoff/2 + rand.N(backoff))
		select {
		case <-ctx.Done():
			t.Stop()
			return err
		case <-t.C:
		}
	}
}

// retryableSQL reports serialization failures, deadlocks, lock wait timeouts
// and a busy SQLite database.
func retryableSQL(err error) bool {
	var st interface{ SQLState() string } // pgconn.PgError
	if errors.As(err, &st) {
		switch st.SQLState() {
		case "40001", "40P01":
			return true
		}
	}
	var my *mysql.MySQLError
	if errors.As(err, &my) {
		switch my.Number {
		case 1213, 1205:
			return true
		}
	}
	var lite interface{ Code() int } // modernc.org/sqlite *Error
	if errors.As(err, &lite) {
		switch lite.Code() & 0xff {
		case 5, 6: // SQLITE_BUSY, SQLITE_LOCKED
			return true
		}
	}
	return false
}

// uniqueViolation reports a duplicate-key error (MySQL 1062, PostgreSQL 23505).
func uniqueViolation(err error) bool {
	var my *mysql.MySQLError
	if errors.As(err, &my) && my.Number == 1062 {
		return true
	}
	var st interface{ SQLState() string }
	return errors.As(err, &st) && st.SQLState() == "23505"
}

// claim is the first step of Do and Claim inside tx: insert a fresh record, or
// lock the existing one and carry out decideClaim's verdict on it. It returns
// the verdict and the record it was made on.
func (e *sqlEngine) claim(ctx context.Context, tx core.Execer, consumer, key string, h []byte, fp []byte, state State, owner string, lease time.Duration) (core.Verdict, *Record, error) {
	if err := e.lockKey(ctx, tx, consumer, h); err != nil {
		return core.Verdict{}, nil, err
	}
	insert, args := e.claimInsert(consumer, key, h, fp, state, owner, lease)
	n, err := tx.Exec(ctx, insert, args...)
	return e.claimed(ctx, tx, consumer, key, h, fp, state, owner, lease, n, err)
}

// lockKey takes the key's transaction lock before its claim, on a table
// whose partitions cannot refuse a duplicate by themselves (queries.lockKey
// is "" otherwise).
func (e *sqlEngine) lockKey(ctx context.Context, tx core.Execer, consumer string, h []byte) error {
	if e.q.lockKey == "" {
		return nil
	}
	if _, err := tx.Exec(ctx, e.q.lockKey, consumer, h); err != nil {
		return fmt.Errorf("guard: claim %s: lock the key: %w", consumer, err)
	}
	return nil
}

// beginClaim begins a transaction whose first statement is the claim of
// key (see claim): with a backend that pipelines (core.ExecBeginner, pgx),
// BEGIN and the claim's insert go in one round trip. On an error no
// transaction is left open.
func (e *sqlEngine) beginClaim(ctx context.Context, consumer, key string, h []byte, fp []byte, state State, owner string, lease time.Duration) (core.Tx, core.Verdict, *Record, error) {
	insert, args := e.claimInsert(consumer, key, h, fp, state, owner, lease)
	var (
		tx  core.Tx
		n   int64
		err error
	)
	// A key lock must come first: only a table that needs none pipelines.
	if pb, ok := e.b.(core.ExecBeginner); ok && e.q.lockKey == "" {
		if tx, n, err = pb.BeginExec(ctx, insert, args...); tx == nil {
			return nil, core.Verdict{}, nil, fmt.Errorf("guard: begin and claim %s: %w", consumer, err)
		}
	} else {
		if tx, err = e.b.Begin(ctx); err != nil {
			return nil, core.Verdict{}, nil, fmt.Errorf("guard: begin: %w", err)
		}
		if err = e.lockKey(ctx, tx, consumer, h); err != nil {
			tx.Rollback(context.WithoutCancel(ctx))
			return nil, core.Verdict{}, nil, err
		}
		n, err = tx.Exec(ctx, insert, args...)
	}
	v, rec, err := e.claimed(ctx, tx, consumer, key, h, fp, state, owner, lease, n, err)
	if err != nil {
		tx.Rollback(context.WithoutCancel(ctx))
		return nil, core.Verdict{}, nil, err
	}
	return tx, v, rec, nil
}

// claimInsert is the claim's insert of a fresh record, and its arguments.
func (e *sqlEngine) claimInsert(consumer, key string, h []byte, fp []byte, state State, owner string, lease time.Duration) (string, []any) {
	kt := keyText(key)
	var fpArg any
	if stored := StoredFingerprint(fp); stored != nil {
		fpArg = stored
	}
	if state == StatePending {
		return e.q.insertPending, []any{consumer, h, kt, string(state), fpArg, owner, us(lease), us(e.cfg.Retention)}
	}
	return e.q.insertDone, []any{consumer, h, kt, string(state), fpArg, owner, us(e.cfg.Retention)}
}

// claimed goes on with a claim whose insert affected n rows (or failed with
// err): a fresh record, or the existing one locked and decided.
func (e *sqlEngine) claimed(ctx context.Context, tx core.Execer, consumer, key string, h []byte, fp []byte, state State, owner string, lease time.Duration, n int64, err error) (core.Verdict, *Record, error) {
	switch {
	case err == nil && n == 1:
		return core.Verdict{Action: core.ActInsert}, nil, nil
	case err == nil && !e.q.insertIsConflictFree:
		return core.Verdict{}, nil, fmt.Errorf("guard: claim insert affected %d rows", n)
	case err != nil && !(uniqueViolation(err) && !e.q.insertIsConflictFree):
		return core.Verdict{}, nil, fmt.Errorf("guard: claim %s: %w", consumer, err)
	}
	rec, err := e.read(ctx, tx, e.q.selectLocked, consumer, h)
	if err != nil {
		return core.Verdict{}, nil, err
	}
	if rec == nil {
		return core.Verdict{}, nil, errVanished
	}
	rec.Consumer = consumer
	v := decideClaim(&rec.Record, rec.now, fp, e.cfg.Delivery)
	if err := e.carryOut(ctx, tx, consumer, key, h, fp, state, owner, lease, v); err != nil {
		return core.Verdict{}, nil, err
	}
	return v, &rec.Record, nil
}

// carryOut makes the write a claim's verdict v on an existing record needs:
// a fresh record over an expired one, a takeover of an abandoned lease, or
// the uncertain mark.
func (e *sqlEngine) carryOut(ctx context.Context, tx core.Execer, consumer, key string, h, fp []byte, state State, owner string, lease time.Duration, v core.Verdict) error {
	kt := keyText(key)
	var fpArg any
	if stored := StoredFingerprint(fp); stored != nil {
		fpArg = stored
	}
	var err error
	switch v.Action {
	case core.ActReclaim:
		reclaim := e.q.reclaimDone
		args := []any{kt, string(state), fpArg, owner, us(e.cfg.Retention), consumer, h}
		if state == StatePending {
			reclaim = e.q.reclaimPending
			args = []any{kt, string(state), fpArg, owner, us(lease), us(e.cfg.Retention), consumer, h}
		}
		_, err = tx.Exec(ctx, reclaim, args...)
	case core.ActTakeover:
		if state == StatePending {
			_, err = tx.Exec(ctx, e.q.takeover, owner, us(lease), consumer, h)
		} else { // a transactional effect over an abandoned lease: overwrite
			_, err = tx.Exec(ctx, e.q.reclaimDone, kt, string(state), fpArg, owner, us(e.cfg.Retention), consumer, h)
		}
	case core.ActMarkUncertain:
		_, err = tx.Exec(ctx, e.q.setState, string(StateUncertain), nil, consumer, h)
	}
	if err != nil {
		return fmt.Errorf("guard: claim %s: %w", consumer, err)
	}
	return nil
}

type readRecord struct {
	Record
	now time.Time
}

func (e *sqlEngine) read(ctx context.Context, x core.Execer, query, consumer string, h []byte) (*readRecord, error) {
	r, err := e.scan(ctx, x, query, consumer, h)
	if err == nil && r != nil && !r.State.valid() {
		return nil, fmt.Errorf("guard: %s record has unknown state %q", consumer, r.State)
	}
	return r, err
}

// scan reads a record as it is stored, whatever its state.
func (e *sqlEngine) scan(ctx context.Context, x core.Execer, query, consumer string, h []byte) (*readRecord, error) {
	r, err := scanRecord(x.QueryRow(ctx, query, consumer, h).Scan)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("guard: read %s record: %w", consumer, err)
	}
	r.Consumer = consumer
	return r, nil
}

// scanRecord scans a row of the record's columns (queries.selectPlain's),
// after the destinations first.
func scanRecord(scan func(dest ...any) error, first ...any) (*readRecord, error) {
	var (
		state, owner                sql.NullString
		fp, result                  []byte
		leaseUntil                  sql.NullInt64
		expiresAt, createdAt, nowUS int64
		kt                          string
	)
	if err := scan(append(first, &state, &fp, &owner, &result, &leaseUntil, &expiresAt, &createdAt, &nowUS, &kt)...); err != nil {
		return nil, err
	}
	r := &readRecord{now: time.UnixMicro(nowUS)}
	r.Key, r.State, r.Fingerprint, r.Owner, r.Result = kt, State(state.String), fp, owner.String, result
	r.CreatedAt, r.ExpiresAt = time.UnixMicro(createdAt), time.UnixMicro(expiresAt)
	if leaseUntil.Valid {
		r.LeaseUntil = time.UnixMicro(leaseUntil.Int64)
	}
	return r, nil
}

// Do runs a transactional effect (see the package doc): in one transaction it claims
// the key (the first statement), runs apply, and commits both or neither.
// Serialization failures and deadlocks retry the whole transaction, so apply
// may run more than once but commits at most once; it must do all its work
// through the transaction it is given.
//
// apply's Reject error keeps the key as failed. Rather than roll back to a
// savepoint taken after the claim, the store rolls the
// whole transaction back and records the failure in a second, short
// transaction: a savepoint costs every message a round trip (about 10% of
// throughput on PostgreSQL, see BENCHMARKS.md) to save work on rare
// rejections. Between the two, a concurrent delivery may claim the key and
// run apply itself; the record then holds its outcome (done or failed), which
// is what this delivery answers.
func (e *sqlEngine) Do(ctx context.Context, consumer, key string, fp []byte, apply func(ctx context.Context, tx core.Tx) error) (Outcome, error) {
	if err := e.startClaim(ctx, consumer, key); err != nil {
		return 0, err
	}
	start := time.Now()
	h := KeyHash(key)
	var (
		rejected        error
		claimed, effect time.Duration // Event.Claim and Event.Effect of the attempt that commits
	)
	out, refused, err := e.transact(ctx, consumer, key, h[:], fp, StateDone, func(tx core.Tx) (bool, error) {
		rejected = nil
		claimed = time.Since(start)
		applyStart := time.Now()
		err := apply(ctx, tx)
		effect = time.Since(applyStart)
		if err != nil {
			if IsRejected(err) {
				rejected = err
				return false, nil
			}
			return false, err
		}
		return true, nil
	})
	switch {
	case rejected != nil:
		return e.reject(ctx, consumer, key, h[:], fp, rejected, start)
	case err != nil || refused:
		return out, err
	}
	e.cfg.Observer.Observe(ctx, Event{Decision: DecisionApplied, Consumer: consumer, Key: key, Duration: time.Since(start),
		Claim: claimed, Effect: effect})
	return Applied, nil
}

// reject records a business rejection: the key becomes failed with the
// rejection as its reason, unless another delivery recorded an outcome first.
func (e *sqlEngine) reject(ctx context.Context, consumer, key string, h, fp []byte, rejected error, start time.Time) (Outcome, error) {
	out, refused, err := e.transact(ctx, consumer, key, h, fp, StateFailed, func(tx core.Tx) (bool, error) {
		if _, err := tx.Exec(ctx, e.q.setState, string(StateFailed), reasonText(rejected), consumer, h); err != nil {
			return false, fmt.Errorf("guard: mark %s failed: %w", consumer, err)
		}
		return true, nil
	})
	if err != nil || refused {
		return out, err
	}
	ferr := errFor(ErrFailed, consumer, "", rejected)
	e.cfg.Observer.Observe(ctx, Event{Decision: DecisionFailed, Consumer: consumer, Key: key, Err: ferr, Duration: time.Since(start)})
	return 0, ferr
}

// transact runs, with retries, a transaction that claims key in state as its
// first statement and, when the claim acquires the key, calls then with the
// transaction: then's true commits it (out is Applied), false rolls it back.
// A refused claim rolls back, except an uncertain mark it made, and answers
// through Refuse (refused is true).
func (e *sqlEngine) transact(ctx context.Context, consumer, key string, h, fp []byte, state State, then func(tx core.Tx) (commit bool, err error)) (out Outcome, refused bool, err error) {
	begun := time.Now() // for Event.Claim of a refusal
	err = e.retry(ctx, consumer, key, func() error {
		out, refused = 0, false
		tx, v, rec, err := e.beginClaim(ctx, consumer, key, h, fp, state, "", 0)
		if err != nil {
			return err
		}
		committed := false
		defer func() {
			if !committed {
				tx.Rollback(context.WithoutCancel(ctx))
			}
		}()
		commit := func() error {
			if err := tx.Commit(ctx); err != nil {
				return fmt.Errorf("guard: commit: %w", err)
			}
			committed = true
			return nil
		}
		if !v.Action.Acquires() {
			if v.Action == core.ActMarkUncertain { // the claim turned an expired at-most-once lease uncertain: keep that
				if err := commit(); err != nil {
					return err
				}
			}
			refused = true
			out, err = e.cfg.refuseClaim(ctx, time.Since(begun), consumer, key, v, rec)
			return err
		}
		ok, err := then(tx)
		if err != nil || !ok {
			return err
		}
		if err := commit(); err != nil {
			return err
		}
		out = Applied
		return nil
	})
	return out, refused, err
}

// Claim claims key for an external effect (see the package doc). On success the
// returned Lease's Outcome is Applied (the caller holds the key for the lease
// and must Complete, Fail or Release it) or Duplicate (done before; its stored
// Result is on the lease). A live lease of another owner is *InProgressError;
// the other states give the errors of the error table.
func (e *sqlEngine) Claim(ctx context.Context, consumer, key string, fp []byte) (*Lease, error) {
	if err := e.startClaim(ctx, consumer, key); err != nil {
		return nil, err
	}
	h := KeyHash(key)
	owner := core.NewOwnerToken()
	started := time.Now() // for Event.Claim
	var (
		v   core.Verdict
		rec *Record
	)
	err := e.retry(ctx, consumer, key, func() error {
		tx, cv, crec, err := e.beginClaim(ctx, consumer, key, h[:], fp, StatePending, owner, e.cfg.Lease)
		if err != nil {
			return err
		}
		v, rec = cv, crec
		if v.Action.Acquires() || v.Action == core.ActMarkUncertain {
			err = tx.Commit(ctx)
		} else {
			err = tx.Rollback(ctx)
		}
		if err != nil {
			tx.Rollback(context.WithoutCancel(ctx))
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	return e.leaseFor(ctx, consumer, key, owner, v, rec, started)
}

// leaseFor turns a claim's verdict into Claim's answer.
func (e *sqlEngine) leaseFor(ctx context.Context, consumer, key, owner string, v core.Verdict, rec *Record, started time.Time) (*Lease, error) {
	info := core.LeaseInfo{Consumer: consumer, Key: key, Owner: owner, Duration: e.cfg.Lease, Started: started}
	return claimAnswer(ctx, engineLeases{e}, e.cfg, info, v, rec)
}

// claimAnswer builds the answer of a store's Claim from its verdict: a held
// lease when the verdict acquires the key, a duplicate lease carrying the
// stored result, or the error of the error table.
func claimAnswer(ctx context.Context, b core.LeaseBackend, cfg Config, c core.LeaseInfo, v core.Verdict, rec *Record) (*Lease, error) {
	info := leaseInfo{Consumer: c.Consumer, Key: c.Key, Owner: c.Owner, Duration: c.Duration, Started: c.Started, Config: cfg}
	if v.Action.Acquires() {
		info.Outcome = Applied
		info.Takeover = v.Action == core.ActTakeover
		if info.Takeover {
			info.Config.Observer.Observe(ctx, Event{Decision: DecisionTakeover, Consumer: info.Consumer, Key: info.Key})
		}
		return newLease(b, info), nil
	}
	out, err := info.Config.refuseClaim(ctx, since(info.Started, time.Now()), info.Consumer, info.Key, v, rec)
	if err != nil {
		return nil, err
	}
	info.Outcome, info.Result = out, rec.Result
	return newLease(b, info), nil
}

// Run claims key, runs the external effect apply under the lease, and records
// the outcome (see runLease for the rules). A duplicate returns (Duplicate, nil)
// without calling apply.
func (e *sqlEngine) Run(ctx context.Context, consumer, key string, fp []byte, apply func(ctx context.Context, l *Lease) error) (Outcome, error) {
	l, err := e.Claim(ctx, consumer, key, fp)
	if err != nil {
		return 0, err
	}
	return runLease(ctx, l, apply)
}

// engineLeases is the core.LeaseBackend of an engine's leases.
type engineLeases struct{ e *sqlEngine }

// Settle implements core.LeaseBackend.
func (b engineLeases) Settle(ctx context.Context, l core.LeaseRef, state string, result []byte) error {
	h := KeyHash(l.Key)
	return b.e.fenced(ctx, l, "settle", b.e.q.settle, state, result, us(b.e.cfg.Retention), l.Consumer, h[:], l.Owner)
}

// Release implements core.LeaseBackend.
func (b engineLeases) Release(ctx context.Context, l core.LeaseRef) error {
	h := KeyHash(l.Key)
	return b.e.fenced(ctx, l, "release", b.e.q.release, l.Consumer, h[:], l.Owner)
}

// Extend implements core.LeaseBackend.
func (b engineLeases) Extend(ctx context.Context, l core.LeaseRef, d time.Duration) error {
	h := KeyHash(l.Key)
	return b.e.fenced(ctx, l, "extend", b.e.q.extend, us(d), l.Consumer, h[:], l.Owner)
}

func (e *sqlEngine) fenced(ctx context.Context, l core.LeaseRef, op, query string, args ...any) error {
	var n int64
	err := e.retry(ctx, l.Consumer, l.Key, func() error {
		var err error
		n, err = e.b.Exec(ctx, query, args...)
		return err
	})
	switch {
	case err != nil:
		return fmt.Errorf("guard: %s lease of %s: %w", op, l.Consumer, err)
	case n == 0:
		return errFor(ErrLeaseLost, l.Consumer, "", nil)
	}
	return nil
}

// Inspect returns the record of key, or nil when there is none or it expired.
func (e *sqlEngine) Inspect(ctx context.Context, consumer, key string) (*Record, error) {
	if err := validateClaim(consumer, key); err != nil {
		return nil, err
	}
	h := KeyHash(key)
	r, err := e.read(ctx, e.b, e.q.selectPlain, consumer, h[:])
	if err != nil || r == nil || r.Expired(r.now) {
		return nil, err
	}
	return &r.Record, nil
}

// Resolve marks key done with result, whatever its state: an operator's
// answer to an uncertain or failed key whose effect is known to have happened.
// A lease still held on it can no longer complete (ErrLeaseLost).
func (e *sqlEngine) Resolve(ctx context.Context, consumer, key string, result []byte) error {
	if err := validateClaim(consumer, key); err != nil {
		return err
	}
	if err := validateResult(consumer, result); err != nil {
		return err
	}
	h := KeyHash(key)
	return e.retry(ctx, consumer, key, func() error {
		tx, err := e.b.Begin(ctx)
		if err != nil {
			return fmt.Errorf("guard: begin: %w", err)
		}
		defer tx.Rollback(context.WithoutCancel(ctx))
		if _, _, err := e.claim(ctx, tx, consumer, key, h[:], nil, StateDone, "", 0); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, e.q.resolve, result, us(e.cfg.Retention), consumer, h[:]); err != nil {
			return fmt.Errorf("guard: resolve %s: %w", consumer, err)
		}
		return tx.Commit(ctx)
	})
}

// Forget deletes the record of key, whatever its state: the next delivery
// runs the effect as if the key was never seen.
func (e *sqlEngine) Forget(ctx context.Context, consumer, key string) error {
	if err := validateClaim(consumer, key); err != nil {
		return err
	}
	h := KeyHash(key)
	return e.retry(ctx, consumer, key, func() error {
		_, err := e.b.Exec(ctx, e.q.forget, consumer, h[:])
		return err
	})
}

// Purge deletes expired records in batches of Config.PurgeBatch until none is
// left, never touching a pending record whose lease is live, and returns how
// many it deleted. Expired records already behave as absent; Purge only
// reclaims their space. Run it periodically (a cron job, a ticker).
//
// On a store opened WithDailyPartitions, Purge is MaintainPartitions with
// the store's retention plus PartitionDaysAhead days, and returns its
// estimate of the records dropped.
func (e *sqlEngine) Purge(ctx context.Context) (int64, error) {
	if e.q.dailyPartitions {
		up, err := e.MaintainPartitions(ctx, e.cfg.Retention+PartitionDaysAhead*24*time.Hour)
		if err == nil {
			e.cfg.Observer.Observe(ctx, Event{Decision: DecisionPurged, Count: up.DroppedRows})
		}
		return up.DroppedRows, err
	}
	var total int64
	for {
		var n int64
		err := e.retry(ctx, "", "", func() error {
			var err error
			n, err = e.b.Exec(ctx, e.q.purge, identityHash[:], e.cfg.PurgeBatch)
			return err
		})
		total += n
		if err != nil {
			return total, fmt.Errorf("guard: purge %s: %w", e.cfg.Table, err)
		}
		if n < int64(e.cfg.PurgeBatch) {
			break
		}
	}
	e.cfg.Observer.Observe(ctx, Event{Decision: DecisionPurged, Count: total})
	return total, nil
}

// identityHash is the key hash of the record holding a consumer's key
// identity: that of the empty key, which no claim may use.
var identityHash = KeyHash(IdentityRecordKey)

// startClaim validates a claim and, the first time a consumer claims
// through the engine, checks its key identity (WithKeyIdentity). It runs
// before any transaction begins, on a connection of its own.
func (e *sqlEngine) startClaim(ctx context.Context, consumer, key string) error {
	if err := validateClaim(consumer, key); err != nil {
		return err
	}
	return e.checkConsumer(ctx, consumer)
}

// checkConsumer checks the key identity of consumer (WithKeyIdentity) the
// first time it claims through the engine.
func (e *sqlEngine) checkConsumer(ctx context.Context, consumer string) error {
	id := e.cfg.KeyIdentity
	if id == "" {
		return nil
	}
	return e.ids.Check(ctx, e.cfg.Table, consumer, id, func(ctx context.Context) error {
		return e.retry(ctx, consumer, "", func() error { return e.checkIdentity(ctx, consumer, id) })
	})
}

// checkIdentity reads the identity record of consumer, records id when
// there is none, and compares.
func (e *sqlEngine) checkIdentity(ctx context.Context, consumer, id string) error {
	r, err := e.scan(ctx, e.b, e.q.selectPlain, consumer, identityHash[:])
	if err != nil {
		return err
	}
	if r == nil {
		n, err := e.b.Exec(ctx, e.q.insertIdentity, consumer, identityHash[:], []byte(id))
		switch {
		case err == nil && n == 1:
			return nil // recorded
		case err != nil && !uniqueViolation(err):
			return fmt.Errorf("guard: record the key identity of %s: %w", consumer, err)
		}
		// Another process recorded one first: compare with it.
		if r, err = e.scan(ctx, e.b, e.q.selectPlain, consumer, identityHash[:]); err != nil {
			return err
		}
		if r == nil {
			return errVanished // forgotten in between: try again
		}
	}
	return checkKeyIdentity(consumer, id, r.State, r.Result)
}

// KeyIdentity returns the key identity recorded for consumer (see
// WithKeyIdentity), or "" when none is. A record the stores do not write
// is an error wrapping ErrKeyIdentityChanged.
func (e *sqlEngine) KeyIdentity(ctx context.Context, consumer string) (string, error) {
	if err := validateConsumer(consumer); err != nil {
		return "", err
	}
	r, err := e.scan(ctx, e.b, e.q.selectPlain, consumer, identityHash[:])
	if err != nil || r == nil {
		return "", err
	}
	if r.State != StateDone || len(r.Result) == 0 {
		return string(r.Result), checkKeyIdentity(consumer, "", r.State, r.Result)
	}
	return string(r.Result), nil
}

// ForgetKeyIdentity deletes the key identity recorded for consumer, so that
// the next claim records the identity it is configured with: after a change
// of the keys' meaning that an operator has dealt with (or a corrupt
// record). It also forgets this store's check of the consumer; other
// processes keep theirs until they restart.
func (e *sqlEngine) ForgetKeyIdentity(ctx context.Context, consumer string) error {
	if err := validateConsumer(consumer); err != nil {
		return err
	}
	err := e.retry(ctx, consumer, "", func() error {
		_, err := e.b.Exec(ctx, e.q.forget, consumer, identityHash[:])
		return err
	})
	e.ids.Forget(e.cfg.Table, consumer)
	if err != nil {
		return fmt.Errorf("guard: forget the key identity of %s: %w", consumer, err)
	}
	return nil
}

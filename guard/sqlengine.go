package guard

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/go-sql-driver/mysql"
)

// SQLBackend is the part of a SQL client library the SQL engine needs. The
// guard package implements it for database/sql (NewSQLStore) and
// guard/pgxguard for pgx; applications do not use it.
type SQLBackend interface {
	// Begin starts a transaction: READ COMMITTED on PostgreSQL and MySQL, the
	// connection's default (IMMEDIATE with SQLiteDSN) on SQLite.
	Begin(ctx context.Context) (SQLTx, error)
	SQLExecer
}

// SQLExecer runs statements. QueryRow's Scan returns an error matching
// sql.ErrNoRows when there is no row.
type SQLExecer interface {
	Exec(ctx context.Context, query string, args ...any) (rowsAffected int64, err error)
	QueryRow(ctx context.Context, query string, args ...any) interface{ Scan(dest ...any) error }
}

// SQLTx is a transaction of an SQLBackend.
type SQLTx interface {
	SQLExecer
	Commit(ctx context.Context) error
	Rollback(ctx context.Context) error
}

// SQLEngine is the dedup logic shared by the SQL stores (SQLStore and
// pgxguard.Store): claims, leases, operators and purge, written once over an
// SQLBackend. Its methods are the stores' methods.
type SQLEngine struct {
	b       SQLBackend
	dialect Dialect
	cfg     Config
	q       *queries
	ids     *KeyIdentityCache // shared with the engine's With views
}

// NewSQLEngine returns the engine for b in dialect d.
func NewSQLEngine(b SQLBackend, d Dialect, opts ...Option) (*SQLEngine, error) {
	cfg, err := NewConfig(opts...)
	if err != nil {
		return nil, err
	}
	q, err := newQueries(d, cfg.Table)
	if err != nil {
		return nil, err
	}
	return &SQLEngine{b: b, dialect: d, cfg: cfg, q: q, ids: NewKeyIdentityCache()}, nil
}

// Config returns the store's resolved options.
func (e *SQLEngine) Config() Config { return e.cfg }

// With returns an engine sharing e's database with opts applied on top of e's
// options. Generated handlers use it to layer a consumer's settings (lease,
// delivery, retention) over the store's.
func (e *SQLEngine) With(opts ...Option) (*SQLEngine, error) {
	cfg, err := e.cfg.With(opts...)
	if err != nil {
		return nil, err
	}
	q := e.q
	if cfg.Table != e.cfg.Table {
		if q, err = newQueries(e.dialect, cfg.Table); err != nil {
			return nil, err
		}
	}
	return &SQLEngine{b: e.b, dialect: e.dialect, cfg: cfg, q: q, ids: e.ids}, nil
}

// Dialect returns the store's dialect.
func (e *SQLEngine) Dialect() Dialect { return e.dialect }

// CreateTable creates the dedup table if it does not exist (CreateTableSQL).
// Production schemas should come from idemgen's migrations; this is for tests
// and quick starts.
func (e *SQLEngine) CreateTable(ctx context.Context) error {
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
func (e *SQLEngine) retry(ctx context.Context, consumer, key string, op func() error) error {
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
// lock the existing one and carry out DecideClaim's verdict on it. It returns
// the verdict and the record it was made on.
func (e *SQLEngine) claim(ctx context.Context, tx SQLExecer, consumer, key string, h []byte, fp []byte, state State, owner string, lease time.Duration) (Verdict, *Record, error) {
	kt := keyText(key)
	var fpArg any
	if stored := StoredFingerprint(fp); stored != nil {
		fpArg = stored
	}
	var args []any
	insert := e.q.insertDone
	if state == StatePending {
		insert = e.q.insertPending
		args = []any{consumer, h, kt, string(state), fpArg, owner, us(lease), us(e.cfg.Retention)}
	} else {
		args = []any{consumer, h, kt, string(state), fpArg, owner, us(e.cfg.Retention)}
	}
	n, err := tx.Exec(ctx, insert, args...)
	switch {
	case err == nil && n == 1:
		return Verdict{Action: ActInsert}, nil, nil
	case err == nil && !e.q.insertIsConflictFree:
		return Verdict{}, nil, fmt.Errorf("guard: claim insert affected %d rows", n)
	case err != nil && !(uniqueViolation(err) && !e.q.insertIsConflictFree):
		return Verdict{}, nil, fmt.Errorf("guard: claim %s: %w", consumer, err)
	}
	rec, err := e.read(ctx, tx, e.q.selectLocked, consumer, h)
	if err != nil {
		return Verdict{}, nil, err
	}
	if rec == nil {
		return Verdict{}, nil, errVanished
	}
	rec.Consumer = consumer
	v := DecideClaim(&rec.Record, rec.now, fp, e.cfg.Delivery)
	switch v.Action {
	case ActReclaim:
		reclaim := e.q.reclaimDone
		args := []any{kt, string(state), fpArg, owner, us(e.cfg.Retention), consumer, h}
		if state == StatePending {
			reclaim = e.q.reclaimPending
			args = []any{kt, string(state), fpArg, owner, us(lease), us(e.cfg.Retention), consumer, h}
		}
		_, err = tx.Exec(ctx, reclaim, args...)
	case ActTakeover:
		if state == StatePending {
			_, err = tx.Exec(ctx, e.q.takeover, owner, us(lease), consumer, h)
		} else { // a transactional effect over an abandoned lease: overwrite
			_, err = tx.Exec(ctx, e.q.reclaimDone, kt, string(state), fpArg, owner, us(e.cfg.Retention), consumer, h)
		}
	case ActMarkUncertain:
		_, err = tx.Exec(ctx, e.q.setState, string(StateUncertain), nil, consumer, h)
	}
	if err != nil {
		return Verdict{}, nil, fmt.Errorf("guard: claim %s: %w", consumer, err)
	}
	return v, &rec.Record, nil
}

type readRecord struct {
	Record
	now time.Time
}

func (e *SQLEngine) read(ctx context.Context, x SQLExecer, query, consumer string, h []byte) (*readRecord, error) {
	r, err := e.scan(ctx, x, query, consumer, h)
	if err == nil && r != nil && !r.State.valid() {
		return nil, fmt.Errorf("guard: %s record has unknown state %q", consumer, r.State)
	}
	return r, err
}

// scan reads a record as it is stored, whatever its state.
func (e *SQLEngine) scan(ctx context.Context, x SQLExecer, query, consumer string, h []byte) (*readRecord, error) {
	r, err := scanRow(x.QueryRow(ctx, query, consumer, h))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("guard: read %s record: %w", consumer, err)
	}
	r.Consumer = consumer
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
func (e *SQLEngine) Do(ctx context.Context, consumer, key string, fp []byte, apply func(ctx context.Context, tx SQLTx) error) (Outcome, error) {
	if err := e.startClaim(ctx, consumer, key); err != nil {
		return 0, err
	}
	start := time.Now()
	h := KeyHash(key)
	var (
		rejected        error
		claimed, effect time.Duration // Event.Claim and Event.Effect of the attempt that commits
	)
	out, refused, err := e.transact(ctx, consumer, key, h[:], fp, StateDone, func(tx SQLTx) (bool, error) {
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
func (e *SQLEngine) reject(ctx context.Context, consumer, key string, h, fp []byte, rejected error, start time.Time) (Outcome, error) {
	out, refused, err := e.transact(ctx, consumer, key, h, fp, StateFailed, func(tx SQLTx) (bool, error) {
		if _, err := tx.Exec(ctx, e.q.setState, string(StateFailed), ReasonText(rejected), consumer, h); err != nil {
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
func (e *SQLEngine) transact(ctx context.Context, consumer, key string, h, fp []byte, state State, then func(tx SQLTx) (commit bool, err error)) (out Outcome, refused bool, err error) {
	begun := time.Now() // for Event.Claim of a refusal
	err = e.retry(ctx, consumer, key, func() error {
		out, refused = 0, false
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
		commit := func() error {
			if err := tx.Commit(ctx); err != nil {
				return fmt.Errorf("guard: commit: %w", err)
			}
			committed = true
			return nil
		}
		v, rec, err := e.claim(ctx, tx, consumer, key, h, fp, state, "", 0)
		if err != nil {
			return err
		}
		if !v.Action.Acquires() {
			if v.Action == ActMarkUncertain { // the claim turned an expired at-most-once lease uncertain: keep that
				if err := commit(); err != nil {
					return err
				}
			}
			refused = true
			out, err = e.cfg.RefuseClaim(ctx, time.Since(begun), consumer, key, v, rec)
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
func (e *SQLEngine) Claim(ctx context.Context, consumer, key string, fp []byte) (*Lease, error) {
	if err := e.startClaim(ctx, consumer, key); err != nil {
		return nil, err
	}
	h := KeyHash(key)
	owner := NewOwnerToken()
	started := time.Now() // for Event.Claim
	var (
		v   Verdict
		rec *Record
	)
	err := e.retry(ctx, consumer, key, func() error {
		tx, err := e.b.Begin(ctx)
		if err != nil {
			return fmt.Errorf("guard: begin: %w", err)
		}
		v, rec, err = e.claim(ctx, tx, consumer, key, h[:], fp, StatePending, owner, e.cfg.Lease)
		if err == nil {
			if v.Action.Acquires() || v.Action == ActMarkUncertain {
				err = tx.Commit(ctx)
			} else {
				err = tx.Rollback(ctx)
			}
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
func (e *SQLEngine) leaseFor(ctx context.Context, consumer, key, owner string, v Verdict, rec *Record, started time.Time) (*Lease, error) {
	info := LeaseInfo{Consumer: consumer, Key: key, Owner: owner, Config: e.cfg, Duration: e.cfg.Lease, Started: started}
	return ClaimAnswer(ctx, e, info, v, rec)
}

// ClaimAnswer builds the answer of a store's Claim from its verdict: a held
// lease when the verdict acquires the key, a duplicate lease carrying the
// stored result, or the error of the error table. Stores call it.
func ClaimAnswer(ctx context.Context, b LeaseBackend, info LeaseInfo, v Verdict, rec *Record) (*Lease, error) {
	if v.Action.Acquires() {
		info.Outcome = Applied
		info.Takeover = v.Action == ActTakeover
		if info.Takeover {
			info.Config.Observer.Observe(ctx, Event{Decision: DecisionTakeover, Consumer: info.Consumer, Key: info.Key})
		}
		return NewLease(b, info), nil
	}
	out, err := info.Config.RefuseClaim(ctx, since(info.Started, time.Now()), info.Consumer, info.Key, v, rec)
	if err != nil {
		return nil, err
	}
	info.Outcome, info.Result = out, rec.Result
	return NewLease(b, info), nil
}

// Run claims key, runs the external effect apply under the lease, and records
// the outcome (see RunLease for the rules). A duplicate returns (Duplicate, nil)
// without calling apply.
func (e *SQLEngine) Run(ctx context.Context, consumer, key string, fp []byte, apply func(ctx context.Context, l *Lease) error) (Outcome, error) {
	l, err := e.Claim(ctx, consumer, key, fp)
	if err != nil {
		return 0, err
	}
	return RunLease(ctx, l, apply)
}

// Settle implements LeaseBackend.
func (e *SQLEngine) Settle(ctx context.Context, l *Lease, state State, result []byte) error {
	h := KeyHash(l.key)
	return e.fenced(ctx, l, "settle", e.q.settle, string(state), result, us(e.cfg.Retention), l.consumer, h[:], l.owner)
}

// Release implements LeaseBackend.
func (e *SQLEngine) Release(ctx context.Context, l *Lease) error {
	h := KeyHash(l.key)
	return e.fenced(ctx, l, "release", e.q.release, l.consumer, h[:], l.owner)
}

// Extend implements LeaseBackend.
func (e *SQLEngine) Extend(ctx context.Context, l *Lease, d time.Duration) error {
	h := KeyHash(l.key)
	return e.fenced(ctx, l, "extend", e.q.extend, us(d), l.consumer, h[:], l.owner)
}

func (e *SQLEngine) fenced(ctx context.Context, l *Lease, op, query string, args ...any) error {
	var n int64
	err := e.retry(ctx, l.consumer, l.key, func() error {
		var err error
		n, err = e.b.Exec(ctx, query, args...)
		return err
	})
	switch {
	case err != nil:
		return fmt.Errorf("guard: %s lease of %s: %w", op, l.consumer, err)
	case n == 0:
		return errFor(ErrLeaseLost, l.consumer, "", nil)
	}
	return nil
}

// Inspect returns the record of key, or nil when there is none or it expired.
func (e *SQLEngine) Inspect(ctx context.Context, consumer, key string) (*Record, error) {
	if err := ValidateClaim(consumer, key); err != nil {
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
func (e *SQLEngine) Resolve(ctx context.Context, consumer, key string, result []byte) error {
	if err := ValidateClaim(consumer, key); err != nil {
		return err
	}
	if err := ValidateResult(consumer, result); err != nil {
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
func (e *SQLEngine) Forget(ctx context.Context, consumer, key string) error {
	if err := ValidateClaim(consumer, key); err != nil {
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
func (e *SQLEngine) Purge(ctx context.Context) (int64, error) {
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
func (e *SQLEngine) startClaim(ctx context.Context, consumer, key string) error {
	if err := ValidateClaim(consumer, key); err != nil {
		return err
	}
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
func (e *SQLEngine) checkIdentity(ctx context.Context, consumer, id string) error {
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
	return CheckKeyIdentity(consumer, id, r.State, r.Result)
}

// KeyIdentity returns the key identity recorded for consumer (see
// WithKeyIdentity), or "" when none is. A record the stores do not write
// is an error wrapping ErrKeyIdentityChanged.
func (e *SQLEngine) KeyIdentity(ctx context.Context, consumer string) (string, error) {
	if err := ValidateConsumer(consumer); err != nil {
		return "", err
	}
	r, err := e.scan(ctx, e.b, e.q.selectPlain, consumer, identityHash[:])
	if err != nil || r == nil {
		return "", err
	}
	if r.State != StateDone || len(r.Result) == 0 {
		return string(r.Result), CheckKeyIdentity(consumer, "", r.State, r.Result)
	}
	return string(r.Result), nil
}

// ForgetKeyIdentity deletes the key identity recorded for consumer, so that
// the next claim records the identity it is configured with: after a change
// of the keys' meaning that an operator has dealt with (or a corrupt
// record). It also forgets this store's check of the consumer; other
// processes keep theirs until they restart.
func (e *SQLEngine) ForgetKeyIdentity(ctx context.Context, consumer string) error {
	if err := ValidateConsumer(consumer); err != nil {
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

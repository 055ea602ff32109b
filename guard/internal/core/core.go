// Package core holds the parts of the store-implementer contract that need
// none of package guard's types: the SQL client interfaces the SQL engine
// runs on, a claim's verdict, a lease's backend, the key identity cache,
// owner tokens, and the link through which package guard hands its
// unexported machinery to guard/internal/storekit. Package guard imports it;
// stores use it through storekit.
package core

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"time"
)

// Execer runs statements. QueryRow's Scan returns an error matching
// sql.ErrNoRows when there is no row.
type Execer interface {
	Exec(ctx context.Context, query string, args ...any) (rowsAffected int64, err error)
	QueryRow(ctx context.Context, query string, args ...any) interface{ Scan(dest ...any) error }
	Query(ctx context.Context, query string, args ...any) (Rows, error)
}

// Rows are the rows of Execer.Query.
type Rows interface {
	Next() bool
	Scan(dest ...any) error
	Err() error
	Close() error
}

// Tx is a transaction of a Backend.
type Tx interface {
	Execer
	Commit(ctx context.Context) error
	Rollback(ctx context.Context) error
}

// Backend is the part of a SQL client library the SQL engine needs. Package
// guard implements it for database/sql and guard/pgxguard for pgx.
type Backend interface {
	// Begin starts a transaction: READ COMMITTED on PostgreSQL and MySQL, the
	// connection's default (IMMEDIATE with SQLiteDSN) on SQLite.
	Begin(ctx context.Context) (Tx, error)
	Execer
}

// ExecBeginner is a Backend that can begin a transaction and run its first
// statement in one round trip (pgx's pipelining). The engine uses it for
// the claim of Do and Claim when the backend has it.
type ExecBeginner interface {
	// BeginExec begins a transaction as Begin does and runs query in it,
	// returning the rows it affected. On an error the transaction, if one
	// was begun, is rolled back.
	BeginExec(ctx context.Context, query string, args ...any) (Tx, int64, error)
}

// Action is what a claim does with the record it found, by the state table
// of the guard package doc.
type Action int

// The actions of a claim's verdict.
const (
	ActInsert        Action = iota + 1 // no record: create a fresh one
	ActReclaim                         // the record expired (retention): overwrite it as fresh
	ActTakeover                        // pending with an expired lease, at-least-once: new owner
	ActMarkUncertain                   // pending with an expired lease, at-most-once: → uncertain
	ActDuplicate                       // done, same fingerprint
	ActConflict                        // done or pending, different fingerprint
	ActFailed                          // failed
	ActUncertain                       // uncertain
	ActInProgress                      // pending with a live lease
)

// Acquires reports whether the action gives the caller the key.
func (a Action) Acquires() bool { return a == ActInsert || a == ActReclaim || a == ActTakeover }

// Verdict is the decision of a claim.
type Verdict struct {
	Action     Action
	RetryAfter time.Duration // for ActInProgress
}

// LeaseRef names the record a lease holds: its consumer, encoded key and
// owner token.
type LeaseRef struct {
	Consumer string
	Key      string
	Owner    string
}

// LeaseInfo describes a claim to the answer built from its verdict
// (storekit.ClaimAnswer).
type LeaseInfo struct {
	Consumer string
	Key      string        // the encoded key
	Owner    string        // the claim's fencing token (NewOwnerToken)
	Duration time.Duration // the lease's length
	Started  time.Time     // when the claim began, for Event.Claim; zero: not measured
}

// LeaseBackend carries out the operations of a lease. Every operation is
// fenced by the lease's owner token: when the record is no longer held by
// that owner, it returns an error wrapping guard.ErrLeaseLost.
type LeaseBackend interface {
	// Settle moves the record to state (done, failed or uncertain) with
	// result, resetting its expiry to the retention, if the owner still
	// holds it (pending or uncertain).
	Settle(ctx context.Context, l LeaseRef, state string, result []byte) error
	// Release deletes the record if the owner still holds it.
	Release(ctx context.Context, l LeaseRef) error
	// Extend sets the lease to end d from now, by the store's clock, if the
	// owner still holds it and it is pending.
	Extend(ctx context.Context, l LeaseRef, d time.Duration) error
}

// NewOwnerToken returns a fresh random fencing token.
func NewOwnerToken() string {
	var b [16]byte
	rand.Read(b[:]) // never fails (crypto/rand)
	return hex.EncodeToString(b[:])
}

// Guard is set by package guard, in its init, to the value through which
// guard/internal/storekit reaches guard's unexported machinery (the SQL
// engine, leases, refusals, batches). It is an any because this package
// cannot name guard's types; storekit asserts it to its Kit interface.
var Guard any

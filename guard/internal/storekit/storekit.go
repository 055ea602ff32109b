// Package storekit is the store-implementer contract of package guard: what
// a store built outside guard (guard/pgxguard on pgx, guard/redisguard on
// Redis) needs to decide claims, answer them and run batches exactly as the
// stores inside guard do. Applications never see it: they use the stores,
// their options, outcomes and errors, keys, fingerprints, Lease and
// Observer.
//
// The machinery itself lives unexported in package guard (the SQL engine,
// leases, refusals) and reaches this package through core.Guard, which
// guard sets in its init; this package gives each function its type.
package storekit

import (
	"context"
	"time"

	"github.com/idemkit/idem/guard"
	"github.com/idemkit/idem/guard/internal/core"
)

// The SQL client interfaces, verdicts and lease backends of package core,
// under the names stores use.
type (
	// Backend is what the SQL engine needs of a client library.
	Backend = core.Backend
	// Execer runs statements.
	Execer = core.Execer
	// Tx is a transaction of a Backend.
	Tx = core.Tx
	// Rows are the rows of Execer.Query.
	Rows = core.Rows
	// ExecBeginner is a Backend that begins a transaction with its first
	// statement in one round trip.
	ExecBeginner = core.ExecBeginner
	// Verdict is the decision of a claim.
	Verdict = core.Verdict
	// Action is what a claim does with the record it found.
	Action = core.Action
	// LeaseBackend carries out the operations of a lease.
	LeaseBackend = core.LeaseBackend
	// LeaseRef names the record a lease holds.
	LeaseRef = core.LeaseRef
	// LeaseInfo describes a claim for ClaimAnswer.
	LeaseInfo = core.LeaseInfo
	// KeyIdentityCache keeps the key identities a store has checked.
	KeyIdentityCache = core.KeyIdentityCache
)

// The actions of a verdict.
const (
	ActInsert        = core.ActInsert
	ActReclaim       = core.ActReclaim
	ActTakeover      = core.ActTakeover
	ActMarkUncertain = core.ActMarkUncertain
	ActDuplicate     = core.ActDuplicate
	ActConflict      = core.ActConflict
	ActFailed        = core.ActFailed
	ActUncertain     = core.ActUncertain
	ActInProgress    = core.ActInProgress
)

// kitAPI is the method set of package guard's kit (guard/kit.go).
type kitAPI interface {
	NewSQLEngine(b core.Backend, d guard.Dialect, opts []guard.Option) (any, error)
	EngineWith(e any, opts []guard.Option) (any, error)
	ClaimAnswer(ctx context.Context, b core.LeaseBackend, cfg guard.Config, c core.LeaseInfo, v core.Verdict, rec *guard.Record) (*guard.Lease, error)
	RunLease(ctx context.Context, l *guard.Lease, apply func(context.Context, *guard.Lease) error) (guard.Outcome, error)
	RunLeases(ctx context.Context, cfg guard.Config, msgs []guard.LeaseMessage, claim func(context.Context, []guard.Message) []guard.Claimed) []guard.Result
	Refuse(ctx context.Context, cfg guard.Config, claimed time.Duration, consumer, key string, v core.Verdict, rec *guard.Record) (guard.Outcome, error)
	DecideClaim(rec *guard.Record, now time.Time, fp []byte, d guard.Delivery) core.Verdict
	StateError(sentinel error, consumer, reason string, cause error) error
	ReasonText(err error) []byte
	ValidateClaim(consumer, key string) error
	ValidateConsumer(consumer string) error
	ValidateResult(consumer string, result []byte) error
	CheckKeyIdentity(consumer, configured string, state guard.State, recorded []byte) error
	PlanBatch(n int, msg func(i int) (consumer, key, id string), check func(consumer string) error) (first []int, errs []error, leads []int)
	AcquiredRecord(cfg guard.Config, consumer, key string, fp []byte, now time.Time, pending bool) *guard.Record
	FollowerVerdict(cfg guard.Config, fp []byte, rec *guard.Record, now time.Time, err error) (core.Verdict, *guard.Record, error)
	NewClaimed(l *guard.Lease, err error, rec *guard.Record, now time.Time) guard.Claimed
}

// kit is package guard's machinery; guard, which this package imports, has
// set core.Guard in its init before this variable is initialized.
var kit = core.Guard.(kitAPI)

// SQLEngine is the dedup logic shared by the SQL stores (guard.SQLStore and
// pgxguard.Store): claims, leases, batches, operators and purge, written
// once over a Backend. Its methods are the stores' methods.
type SQLEngine interface {
	Config() guard.Config
	Dialect() guard.Dialect
	CreateTable(ctx context.Context) error
	Do(ctx context.Context, consumer, key string, fp []byte, apply func(ctx context.Context, tx core.Tx) error) (guard.Outcome, error)
	DoBatch(ctx context.Context, msgs []guard.TxMessage[core.Tx]) []guard.Result
	Claim(ctx context.Context, consumer, key string, fp []byte) (*guard.Lease, error)
	Run(ctx context.Context, consumer, key string, fp []byte, apply func(ctx context.Context, l *guard.Lease) error) (guard.Outcome, error)
	ClaimBatch(ctx context.Context, msgs []guard.Message) []guard.Claimed
	RunBatch(ctx context.Context, msgs []guard.LeaseMessage) []guard.Result
	Inspect(ctx context.Context, consumer, key string) (*guard.Record, error)
	Resolve(ctx context.Context, consumer, key string, result []byte) error
	Forget(ctx context.Context, consumer, key string) error
	Purge(ctx context.Context) (int64, error)
	KeyIdentity(ctx context.Context, consumer string) (string, error)
	ForgetKeyIdentity(ctx context.Context, consumer string) error
	guard.Operator
}

// NewSQLEngine returns the SQL engine for b in dialect d, with opts.
func NewSQLEngine(b Backend, d guard.Dialect, opts ...guard.Option) (SQLEngine, error) {
	e, err := kit.NewSQLEngine(b, d, opts)
	if err != nil {
		return nil, err
	}
	return e.(SQLEngine), nil
}

// EngineWith returns an engine sharing e's database with opts applied on
// top of e's options.
func EngineWith(e SQLEngine, opts ...guard.Option) (SQLEngine, error) {
	w, err := kit.EngineWith(e, opts)
	if err != nil {
		return nil, err
	}
	return w.(SQLEngine), nil
}

// ClaimAnswer builds the answer of a store's Claim from its verdict: a held
// lease when the verdict acquires the key, a duplicate lease carrying the
// stored result, or the error of the error table (reported to cfg's
// observer).
func ClaimAnswer(ctx context.Context, b LeaseBackend, cfg guard.Config, c LeaseInfo, v Verdict, rec *guard.Record) (*guard.Lease, error) {
	return kit.ClaimAnswer(ctx, b, cfg, c, v, rec)
}

// RunLease runs apply under the acquired lease l and records its outcome,
// as every store's Run does (see guard.Store.Run).
func RunLease(ctx context.Context, l *guard.Lease, apply func(ctx context.Context, l *guard.Lease) error) (guard.Outcome, error) {
	return kit.RunLease(ctx, l, apply)
}

// RunLeases is a store's RunBatch over its ClaimBatch: it claims the first
// copy of each key, runs the acquired ones under their leases in order, and
// answers the later copies from the first one's outcome.
func RunLeases(ctx context.Context, cfg guard.Config, msgs []guard.LeaseMessage, claimBatch func(context.Context, []guard.Message) []guard.Claimed) []guard.Result {
	return kit.RunLeases(ctx, cfg, msgs, claimBatch)
}

// Refuse turns a verdict that does not acquire the key into the answer of a
// store and reports it to cfg's observer with claimed as Event.Claim:
// (Duplicate, nil) for a duplicate, otherwise the error of the error table.
// rec is the record the verdict was made on.
func Refuse(ctx context.Context, cfg guard.Config, claimed time.Duration, consumer, key string, v Verdict, rec *guard.Record) (guard.Outcome, error) {
	return kit.Refuse(ctx, cfg, claimed, consumer, key, v, rec)
}

// DecideClaim applies the state table to rec, the record found for a key
// (nil if none), at time now by the store's clock, for a claim presenting
// fingerprint fp under delivery d. Every store decides with it.
func DecideClaim(rec *guard.Record, now time.Time, fp []byte, d guard.Delivery) Verdict {
	return kit.DecideClaim(rec, now, fp, d)
}

// StateError returns the error a store answers for a key in (or moving to) a
// final state: it wraps sentinel (guard.ErrFailed, guard.ErrUncertain,
// guard.ErrPartialEffect, …) and, when not nil, cause; reason is a stored
// reason shown when cause is nil.
func StateError(sentinel error, consumer, reason string, cause error) error {
	return kit.StateError(sentinel, consumer, reason, cause)
}

// ReasonText is err's text as a store keeps it as a failure reason: cut to
// guard.MaxReasonLen bytes.
func ReasonText(err error) []byte { return kit.ReasonText(err) }

// ValidateClaim checks the consumer and key every store method receives
// (an empty key, a key longer than guard.MaxKeyLen: guard.ErrInvalidMessage).
func ValidateClaim(consumer, key string) error { return kit.ValidateClaim(consumer, key) }

// ValidateConsumer checks a consumer name.
func ValidateConsumer(consumer string) error { return kit.ValidateConsumer(consumer) }

// ValidateResult checks a result a store is to keep: at most
// guard.MaxResultLen bytes.
func ValidateResult(consumer string, result []byte) error {
	return kit.ValidateResult(consumer, result)
}

// CheckKeyIdentity compares the identity configured for consumer with the
// identity record a store read (its state and result): nil when they agree,
// a *guard.KeyIdentityError otherwise.
func CheckKeyIdentity(consumer, configured string, state guard.State, recorded []byte) error {
	return kit.CheckKeyIdentity(consumer, configured, state, recorded)
}

// NewKeyIdentityCache returns an empty key identity cache.
func NewKeyIdentityCache() *KeyIdentityCache { return core.NewKeyIdentityCache() }

// NewOwnerToken returns a fresh random fencing token.
func NewOwnerToken() string { return core.NewOwnerToken() }

// Plan maps the messages of a batch to their distinct keys (see PlanBatch).
type Plan struct {
	// First[i] is the index of the first message with the key of message i
	// (i itself for a first copy), or -1 when message i was refused before
	// any claim, with Errs[i] saying why.
	First []int
	Errs  []error
	// Leads are the indexes of the first copies, in order.
	Leads []int
}

// PlanBatch validates the n messages of a batch (msg returns the consumer,
// the key and the key's identity in the store of message i) and checks each
// consumer's key identity once with check.
func PlanBatch(n int, msg func(i int) (consumer, key, id string), check func(consumer string) error) Plan {
	first, errs, leads := kit.PlanBatch(n, msg, check)
	return Plan{First: first, Errs: errs, Leads: leads}
}

// Leader is what the later copies of a key in a batch are decided on: the
// record its first copy was decided on (for a first copy that acquired the
// key, AcquiredRecord), the store's clock then, or the first copy's error.
type Leader struct {
	Rec *guard.Record
	Now time.Time
	Err error
}

// AcquiredRecord is the record a first copy that acquired its key with
// fingerprint fp at now stands for: done, or pending under its lease (a
// claim).
func AcquiredRecord(cfg guard.Config, consumer, key string, fp []byte, now time.Time, pending bool) *guard.Record {
	return kit.AcquiredRecord(cfg, consumer, key, fp, now, pending)
}

// FollowerVerdict decides a later copy of a key in a batch, presenting fp,
// on its first copy's Leader. A verdict that would acquire the key is an
// error: only the first copy claims.
func FollowerVerdict(cfg guard.Config, fp []byte, lead Leader) (Verdict, *guard.Record, error) {
	return kit.FollowerVerdict(cfg, fp, lead.Rec, lead.Now, lead.Err)
}

// NewClaimed is a ClaimBatch answer: a lease or an error, with the record a
// refusal was decided on (for RunLeases' later copies).
func NewClaimed(l *guard.Lease, err error, rec *guard.Record, now time.Time) guard.Claimed {
	return kit.NewClaimed(l, err, rec, now)
}

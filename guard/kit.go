package guard

import (
	"context"
	"errors"
	"time"

	"github.com/idemkit/idem/guard/internal/core"
)

// kit hands guard's unexported machinery to the stores built outside the
// package (pgxguard, redisguard), through guard/internal/storekit, which
// asserts it to an interface of these methods and gives each a doc comment
// of its own. Applications see none of it.
type kit struct{}

func init() { core.Guard = kit{} }

func (kit) NewSQLEngine(b core.Backend, d Dialect, opts []Option) (any, error) {
	return newSQLEngine(b, d, opts...)
}

func (kit) EngineWith(e any, opts []Option) (any, error) {
	en, ok := e.(*sqlEngine)
	if !ok {
		return nil, errors.New("guard: EngineWith of a value that is not an engine")
	}
	return en.With(opts...)
}

func (kit) ClaimAnswer(ctx context.Context, b core.LeaseBackend, cfg Config, c core.LeaseInfo, v core.Verdict, rec *Record) (*Lease, error) {
	return claimAnswer(ctx, b, cfg, c, v, rec)
}

func (kit) RunLease(ctx context.Context, l *Lease, apply func(context.Context, *Lease) error) (Outcome, error) {
	return runLease(ctx, l, apply)
}

func (kit) RunLeases(ctx context.Context, cfg Config, msgs []LeaseMessage, claim func(context.Context, []Message) []Claimed) []Result {
	return runLeases(ctx, cfg, msgs, claim)
}

func (kit) Refuse(ctx context.Context, cfg Config, claimed time.Duration, consumer, key string, v core.Verdict, rec *Record) (Outcome, error) {
	return cfg.refuseClaim(ctx, claimed, consumer, key, v, rec)
}

func (kit) DecideClaim(rec *Record, now time.Time, fp []byte, d Delivery) core.Verdict {
	return decideClaim(rec, now, fp, d)
}

func (kit) StateError(sentinel error, consumer, reason string, cause error) error {
	return errFor(sentinel, consumer, reason, cause)
}

func (kit) ReasonText(err error) []byte { return reasonText(err) }

func (kit) ValidateClaim(consumer, key string) error { return validateClaim(consumer, key) }

func (kit) ValidateConsumer(consumer string) error { return validateConsumer(consumer) }

func (kit) ValidateResult(consumer string, result []byte) error {
	return validateResult(consumer, result)
}

func (kit) CheckKeyIdentity(consumer, configured string, state State, recorded []byte) error {
	return checkKeyIdentity(consumer, configured, state, recorded)
}

func (kit) PlanBatch(n int, msg func(i int) (consumer, key, id string), check func(consumer string) error) (first []int, errs []error, leads []int) {
	p := planBatch(n, msg, check)
	return p.first, p.errs, p.leads
}

func (kit) AcquiredRecord(cfg Config, consumer, key string, fp []byte, now time.Time, pending bool) *Record {
	return cfg.acquiredLeader(consumer, key, fp, now, pending).rec
}

func (kit) FollowerVerdict(cfg Config, fp []byte, rec *Record, now time.Time, err error) (core.Verdict, *Record, error) {
	return cfg.followerVerdict(fp, batchLeader{rec: rec, now: now, err: err})
}

func (kit) NewClaimed(l *Lease, err error, rec *Record, now time.Time) Claimed {
	return Claimed{Lease: l, Err: err, rec: rec, now: now}
}

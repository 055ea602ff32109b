package redisguard

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/idemkit/idem/guard"
	"github.com/idemkit/idem/guard/internal/storekit"
)

// Store keeps dedup records in Redis, one hash per consumer and key (see the
// package documentation). It is safe for concurrent use.
type Store struct {
	client redis.UniversalClient
	cfg    guard.Config
	place  placement
	cmds   *commandTable              // shared by the WithHashTag views of a store
	ids    *storekit.KeyIdentityCache // shared by the views of a store

	// tag is the hash tag of a view made by WithHashTag; "" for the store.
	tag    string
	tagErr error
}

var (
	_ guard.Store           = (*Store)(nil)
	_ storekit.LeaseBackend = leases{}
)

// New returns a store over client: a *redis.Client (single server, Sentinel
// failover), a *redis.ClusterClient, or a *redis.Ring. Options are the
// guard options; WithTable sets the key prefix (default "idem_keys"),
// WithRetention the records' TTL. Redis 5 or later is required.
func New(client redis.UniversalClient, opts ...guard.Option) (*Store, error) {
	if client == nil {
		return nil, errors.New("redisguard: New: nil client")
	}
	cfg, err := guard.NewConfig(opts...)
	if err != nil {
		return nil, err
	}
	return &Store{client: client, cfg: cfg, place: placementOf(client), cmds: &commandTable{}, ids: storekit.NewKeyIdentityCache()}, nil
}

// WithHashTag returns a view of the store whose every method — Do, Claim,
// Run, Inspect, Resolve, Forget and the lease operations — addresses the
// records under hash tag tag, as Do(…, HashTag(tag)) writes them. Operators
// use it to inspect or resolve a record written with a hash tag; handlers use
// it to claim external effects next to their tagged keys. The view shares
// the client and configuration of s. An invalid tag (empty, or containing a
// brace) makes every method of the view fail.
func (s *Store) WithHashTag(tag string) *Store {
	v := *s
	v.tag, v.tagErr = tag, validTag(tag)
	return &v
}

// Client returns the store's Redis client.
func (s *Store) Client() redis.UniversalClient { return s.client }

// Config returns the store's resolved options.
func (s *Store) Config() guard.Config { return s.cfg }

// RecordKey returns the Redis key of the dedup record of consumer and key:
// "<prefix>:<consumer>:<hex SHA-256 of key>", prefixed with "{tag}" when
// tag is not empty.
func (s *Store) RecordKey(consumer, key, tag string) string {
	return s.recordKeyOf(consumer, guard.KeyHash(key), tag)
}

// start validates a claim and returns its record key.
func (s *Store) start(consumer, key, tag string) (string, error) {
	if err := storekit.ValidateClaim(consumer, key); err != nil {
		return "", err
	}
	if tag != "" {
		if err := validTag(tag); err != nil {
			return "", err
		}
	}
	if s.tagErr != nil {
		return "", s.tagErr
	}
	return s.RecordKey(consumer, key, tag), nil
}

// ms and us are d in milliseconds (PEXPIRE) and microseconds (the scripts'
// clock), rounded up and at least 1: a duration is never shortened. They
// round with (d-1)/unit+1, which cannot overflow as d+unit-1 does for the
// longest durations (a retention of math.MaxInt64 would become 1 ms).
func ms(d time.Duration) int64 { return roundUp(d, time.Millisecond) }
func us(d time.Duration) int64 { return roundUp(d, time.Microsecond) }

func roundUp(d, unit time.Duration) int64 {
	if d <= 0 {
		return 1
	}
	return int64((d-1)/unit) + 1
}

// backoff sleeps before retry attempt+1, with jitter, unless ctx ends.
func backoff(ctx context.Context, attempt int) error {
	d := time.Duration(1<<min(attempt, 6)) * time.Millisecond
	t := time.NewTimer(d/2 + rand.N(d))
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// parseRecord builds the record of consumer from a script's reply: now (µs
// text), PTTL (ms; -2: no record, -1: no TTL) and HGETALL's flat list.
func parseRecord(consumer string, nowReply, pttlReply, fieldsReply any) (*guard.Record, time.Time, error) {
	nowText, _ := nowReply.(string)
	nowUS, err := strconv.ParseInt(nowText, 10, 64)
	if err != nil {
		return nil, time.Time{}, fmt.Errorf("redisguard: bad server time %v", nowReply)
	}
	now := time.UnixMicro(nowUS)
	pttl, ok := pttlReply.(int64)
	if !ok {
		return nil, now, fmt.Errorf("redisguard: bad PTTL reply %v", pttlReply)
	}
	fields, _ := fieldsReply.([]any)
	if pttl == -2 || len(fields) == 0 {
		return nil, now, nil
	}
	rec := &guard.Record{Consumer: consumer}
	for i := 0; i+1 < len(fields); i += 2 {
		name, _ := fields[i].(string)
		value, _ := fields[i+1].(string)
		switch name {
		case "state":
			rec.State = guard.State(value)
		case "fp":
			if value != "" {
				rec.Fingerprint = []byte(value)
			}
		case "owner":
			rec.Owner = value
		case "lease_until":
			if rec.LeaseUntil, err = micros(value); err != nil {
				return nil, now, err
			}
		case "result":
			rec.Result = []byte(value)
		case "key":
			rec.Key = value
		case "created":
			if rec.CreatedAt, err = micros(value); err != nil {
				return nil, now, err
			}
		}
	}
	switch rec.State {
	case guard.StatePending, guard.StateDone, guard.StateFailed, guard.StateUncertain:
	default:
		return nil, now, fmt.Errorf("redisguard: %s record has unknown state %q", consumer, rec.State)
	}
	if pttl >= 0 {
		// A TTL rounded up from the longest retention is one millisecond
		// longer than a Duration holds: saturate, never wrap into the past.
		ttl := time.Duration(math.MaxInt64)
		if pttl < int64(ttl/time.Millisecond) {
			ttl = time.Duration(pttl) * time.Millisecond
		}
		rec.ExpiresAt = now.Add(ttl)
	}
	return rec, now, nil
}

func micros(text string) (time.Time, error) {
	v, err := strconv.ParseInt(text, 10, 64)
	if err != nil {
		return time.Time{}, fmt.Errorf("redisguard: bad time %q in record", text)
	}
	return time.UnixMicro(v), nil
}

// decide runs storekit.DecideClaim on a record read at now. A record without a
// TTL (never written so by this package) counts as never expiring.
func (s *Store) decide(rec *guard.Record, now time.Time, fp []byte) storekit.Verdict {
	if rec != nil && rec.ExpiresAt.IsZero() {
		r := *rec
		r.ExpiresAt = now.Add(100 * 365 * 24 * time.Hour)
		rec = &r
	}
	return storekit.DecideClaim(rec, now, fp, s.cfg.Delivery)
}

// read reads the record at rkey through conn, with the server's time.
func (s *Store) read(ctx context.Context, conn redis.Scripter, consumer, rkey string) (*guard.Record, time.Time, error) {
	reply, err := readScript.Run(ctx, conn, []string{rkey}).Slice()
	if err != nil {
		return nil, time.Time{}, fmt.Errorf("redisguard: read %s record: %w", consumer, err)
	}
	if len(reply) != 3 {
		return nil, time.Time{}, fmt.Errorf("redisguard: read %s record: unexpected reply %v", consumer, reply)
	}
	return parseRecord(consumer, reply[0], reply[1], reply[2])
}

// cas carries out a claim's verdict (mode takeover, uncertain or reclaim) on
// rec if the record is unchanged; false: it changed, read it again.
func (s *Store) cas(ctx context.Context, conn redis.Scripter, rkey, mode string, rec *guard.Record, owner string, fp []byte, key string) (bool, error) {
	var lease string
	if !rec.LeaseUntil.IsZero() {
		lease = strconv.FormatInt(rec.LeaseUntil.UnixMicro(), 10)
	}
	n, err := casScript.Run(ctx, conn, []string{rkey}, mode, string(rec.State), rec.Owner, lease,
		strconv.FormatInt(rec.CreatedAt.UnixMicro(), 10), owner, us(s.cfg.Lease), ms(s.cfg.Retention), guard.StoredFingerprint(fp), key).Int64()
	if err != nil {
		return false, fmt.Errorf("redisguard: %s %s record: %w", mode, rec.Consumer, err)
	}
	return n == 1, nil
}

// casMode is the casScript mode that carries out verdict v, or "".
func casMode(a storekit.Action) string {
	switch a {
	case storekit.ActTakeover:
		return "takeover"
	case storekit.ActMarkUncertain:
		return "uncertain"
	case storekit.ActReclaim:
		return "reclaim"
	}
	return ""
}

// retried reports a retry to the observer and waits before it; it fails when
// the retries are used up or ctx ended.
func (s *Store) retried(ctx context.Context, consumer, key string, attempt int, cause error) error {
	if attempt > s.cfg.MaxRetries {
		return fmt.Errorf("redisguard: %s: the dedup record kept changing during %d attempts: %w", consumer, attempt, cause)
	}
	s.cfg.Observer.Observe(ctx, guard.Event{Decision: guard.DecisionRetried, Consumer: consumer, Key: key, Attempt: attempt, Err: cause})
	if err := backoff(ctx, attempt); err != nil {
		return fmt.Errorf("redisguard: %s: %w (while retrying after: %w)", consumer, err, cause)
	}
	return nil
}

// errChanged is the cause reported when a compare-and-set found the record
// changed since it was read.
var errChanged = errors.New("redisguard: dedup record changed since it was read")

// Claim claims key for an external effect (see the guard package). On success the
// returned Lease's Outcome is Applied (the caller holds the key for the lease
// and must Complete, Fail or Release it) or Duplicate (done before; its
// stored Result is on the lease). A live lease of another owner is
// *guard.InProgressError; the other states give the errors of the guard
// error table. A fresh key takes one round trip (a script that inserts the
// record if absent); an existing one is decided by storekit.DecideClaim and,
// for a takeover, changed by a compare-and-set script.
func (s *Store) Claim(ctx context.Context, consumer, key string, fp []byte) (*guard.Lease, error) {
	rkey, err := s.start(consumer, key, s.tag)
	if err != nil {
		return nil, err
	}
	if err := s.checkIdentity(ctx, consumer); err != nil {
		return nil, err
	}
	owner := storekit.NewOwnerToken()
	info := storekit.LeaseInfo{Consumer: consumer, Key: key, Owner: owner, Duration: s.cfg.Lease, Started: time.Now()}
	l, _, _, err := s.claimLoop(ctx, info, rkey, fp, nil)
	return l, err
}

// claimArgs are the arguments of claimScript for a claim.
func (s *Store) claimArgs(info storekit.LeaseInfo, fp []byte) []any {
	return []any{guard.StoredFingerprint(fp), info.Owner, us(s.cfg.Lease), ms(s.cfg.Retention), info.Key}
}

// claimLoop claims the record at rkey for the claim info describes until
// the claim is decided, and returns its answer and, for an existing record,
// the record and the server's time it was decided on. first, when not nil,
// is the reply of a first run of claimScript already sent (ClaimBatch's
// pipeline).
func (s *Store) claimLoop(ctx context.Context, info storekit.LeaseInfo, rkey string, fp []byte, first []any) (*guard.Lease, *guard.Record, time.Time, error) {
	consumer, key, owner := info.Consumer, info.Key, info.Owner
	tried := "" // the last compare-and-set mode tried
	for attempt := 1; ; attempt++ {
		reply := first
		first = nil
		if reply == nil {
			var err error
			if reply, err = claimScript.Run(ctx, s.client, []string{rkey}, s.claimArgs(info, fp)...).Slice(); err != nil {
				return nil, nil, time.Time{}, fmt.Errorf("redisguard: claim %s: %w", consumer, err)
			}
		}
		if len(reply) == 2 && reply[0] == int64(1) {
			now, _ := micros(fmt.Sprint(reply[1]))
			l, err := storekit.ClaimAnswer(ctx, leases{s}, s.cfg, info, storekit.Verdict{Action: storekit.ActInsert}, nil)
			return l, nil, now, err
		}
		if len(reply) != 4 {
			return nil, nil, time.Time{}, fmt.Errorf("redisguard: claim %s: unexpected reply %v", consumer, reply)
		}
		rec, now, err := parseRecord(consumer, reply[1], reply[2], reply[3])
		if err != nil {
			return nil, nil, now, err
		}
		if rec == nil { // cannot happen: the script saw the record
			return nil, nil, now, fmt.Errorf("redisguard: claim %s: record vanished inside the claim script", consumer)
		}
		if rec.State == guard.StatePending && rec.Owner == owner {
			// Our own claim: go-redis resent the script (or the
			// compare-and-set) after losing its reply. The owner token is
			// fresh for this call, so no one else holds it.
			v := storekit.Verdict{Action: storekit.ActInsert}
			if tried == "takeover" {
				v.Action = storekit.ActTakeover
			}
			l, err := storekit.ClaimAnswer(ctx, leases{s}, s.cfg, info, v, rec)
			return l, rec, now, err
		}
		v := s.decide(rec, now, fp)
		if mode := casMode(v.Action); mode != "" {
			tried = mode
			ok, err := s.cas(ctx, s.client, rkey, mode, rec, owner, fp, key)
			if err != nil {
				return nil, rec, now, err
			}
			if !ok {
				if err := s.retried(ctx, consumer, key, attempt, errChanged); err != nil {
					return nil, rec, now, err
				}
				continue
			}
		}
		l, err := storekit.ClaimAnswer(ctx, leases{s}, s.cfg, info, v, rec)
		return l, rec, now, err
	}
}

// Run claims key, runs the external effect apply under the lease, and
// records the outcome (see storekit.RunLease for the rules). A duplicate returns
// (Duplicate, nil) without calling apply.
func (s *Store) Run(ctx context.Context, consumer, key string, fp []byte, apply func(ctx context.Context, l *guard.Lease) error) (guard.Outcome, error) {
	l, err := s.Claim(ctx, consumer, key, fp)
	if err != nil {
		return 0, err
	}
	return storekit.RunLease(ctx, l, apply)
}

// leases is the storekit.LeaseBackend of the store's leases.
type leases struct{ s *Store }

// fenced runs a lease script that answers 1 when l's owner still holds the
// record and 0 (→ guard.ErrLeaseLost) when it does not.
func (b leases) fenced(ctx context.Context, l storekit.LeaseRef, op string, script *redis.Script, args ...any) error {
	rkey, err := b.s.start(l.Consumer, l.Key, b.s.tag)
	if err != nil {
		return err
	}
	n, err := script.Run(ctx, b.s.client, []string{rkey}, args...).Int64()
	switch {
	case err != nil:
		return fmt.Errorf("redisguard: %s lease of %s: %w", op, l.Consumer, err)
	case n == 0:
		return storekit.StateError(guard.ErrLeaseLost, l.Consumer, "", nil)
	}
	return nil
}

// hasResult encodes a result for a script: a flag telling nil from empty,
// and the bytes.
func hasResult(result []byte) (string, []byte) {
	if result == nil {
		return "0", nil
	}
	return "1", result
}

// Settle implements storekit.LeaseBackend: it moves the record held by l
// (pending or uncertain) to state with result and resets its TTL to the
// retention.
func (b leases) Settle(ctx context.Context, l storekit.LeaseRef, state string, result []byte) error {
	has, res := hasResult(result)
	return b.fenced(ctx, l, "settle", settleScript, l.Owner, state, has, res, ms(b.s.cfg.Retention))
}

// Release implements storekit.LeaseBackend: it deletes the record held by l.
func (b leases) Release(ctx context.Context, l storekit.LeaseRef) error {
	return b.fenced(ctx, l, "release", releaseScript, l.Owner)
}

// Extend implements storekit.LeaseBackend: the pending lease l ends d from
// now by the server's clock, and the record's TTL covers it.
func (b leases) Extend(ctx context.Context, l storekit.LeaseRef, d time.Duration) error {
	return b.fenced(ctx, l, "extend", extendScript, l.Owner, us(d))
}

// Inspect returns the record of key, or nil when there is none (or its TTL
// ran out). ExpiresAt is the server's time plus the record's TTL.
func (s *Store) Inspect(ctx context.Context, consumer, key string) (*guard.Record, error) {
	rkey, err := s.start(consumer, key, s.tag)
	if err != nil {
		return nil, err
	}
	rec, _, err := s.read(ctx, s.client, consumer, rkey)
	return rec, err
}

// Resolve marks key done with result, whatever its state, and resets its TTL
// to the retention: an operator's answer to an uncertain or failed key whose
// effect is known to have happened. A lease still held on it can no longer
// complete (guard.ErrLeaseLost).
func (s *Store) Resolve(ctx context.Context, consumer, key string, result []byte) error {
	rkey, err := s.start(consumer, key, s.tag)
	if err != nil {
		return err
	}
	if err := storekit.ValidateResult(consumer, result); err != nil {
		return err
	}
	has, res := hasResult(result)
	if err := resolveScript.Run(ctx, s.client, []string{rkey}, key, has, res, ms(s.cfg.Retention)).Err(); err != nil {
		return fmt.Errorf("redisguard: resolve %s: %w", consumer, err)
	}
	return nil
}

// Forget deletes the record of key, whatever its state: the next delivery
// runs the effect as if the key was never seen.
func (s *Store) Forget(ctx context.Context, consumer, key string) error {
	rkey, err := s.start(consumer, key, s.tag)
	if err != nil {
		return err
	}
	if err := s.client.Del(ctx, rkey).Err(); err != nil {
		return fmt.Errorf("redisguard: forget %s: %w", consumer, err)
	}
	return nil
}

// Purge deletes nothing and returns 0: every record carries its retention as
// a Redis TTL, so the server deletes expired records itself (and a lease that
// outgrows the retention raises the TTL to cover it). It only checks that the
// server answers (PING), so that a periodic purge job still reports a server
// it cannot reach, and reports DecisionPurged with Count 0: schedules written
// for the SQL stores work unchanged.
func (s *Store) Purge(ctx context.Context) (int64, error) {
	if err := ctx.Err(); err != nil {
		return 0, fmt.Errorf("redisguard: purge: %w", err)
	}
	if err := s.client.Ping(ctx).Err(); err != nil {
		return 0, fmt.Errorf("redisguard: purge: %w", err)
	}
	s.cfg.Observer.Observe(ctx, guard.Event{Decision: guard.DecisionPurged})
	return 0, nil
}

package redisguard

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/idemkit/idem/guard"
	"github.com/idemkit/idem/guard/internal/storekit"
)

// DoOption changes one call of Store.Do.
type DoOption func(*doOptions)

type doOptions struct {
	tag    string
	tagSet bool
	pin    bool
}

// HashTag makes Do write the dedup record at "{value}<prefix>:<consumer>:<hex>"
// instead of "<prefix>:<consumer>:<hex>", so that it lives in the Redis
// Cluster slot of every key containing "{value}" (see Tagged). Every key the
// effect queues must then hash to that slot; Do checks this before EXEC and
// executes nothing when a key does not. value must not be empty or contain
// a brace. It overrides the tag of a WithHashTag view. Inspect, Resolve,
// Forget and Claim find such records through Store.WithHashTag(value).
func HashTag(value string) DoOption {
	return func(o *doOptions) { o.tag, o.tagSet = value, true }
}

// PinHashTag is for a hash tag that is not part of the business key (the
// tag is the message's user, the key its order): the record lives in the
// tag's slot, so the same key sent with another tag would find no record
// there and apply again. With PinHashTag, Do first records which tag the key
// came with (SET NX, with the retention as its TTL, at an untagged key of
// its own: one more round trip, outside the transaction) and refuses a
// later delivery of the key with another tag with guard.ErrKeyConflict, as
// the other stores refuse a key seen with another fingerprint. idemgen
// adds it when hash_tag is not a key field. Forget leaves the pin: the key
// stays bound to its first tag for the retention.
func PinHashTag() DoOption { return func(o *doOptions) { o.pin = true } }

// Tagged returns key prefixed with the hash tag "{tag}": the way to name the
// keys of an effect run with HashTag(tag), so they share its slot.
func Tagged(tag, key string) string { return "{" + tag + "}" + key }

// Do runs a transactional effect (see the guard package). It WATCHes the dedup record
// and reads it; if the record exists, storekit.DecideClaim answers (Duplicate,
// guard.ErrKeyConflict, guard.ErrFailed, *guard.InProgressError, …) and
// apply is not called. Otherwise apply queues the effect's commands on pipe
// (it must not run them: pipe's Exec and Pipelined fail), and Do sends
// MULTI, those commands and the record (state done, with the retention as
// its TTL), and EXEC:
//
//   - EXEC refused because the record changed meanwhile (a concurrent
//     duplicate): Do starts over, up to Config.MaxRetries times with jitter,
//     reporting guard.DecisionRetried, and normally ends as Duplicate. apply
//     may thus run more than once, but its commands run at most once. When
//     the retries run out, the error wraps redis.TxFailedErr (transient).
//   - EXEC ran: every reply is checked. Redis does not roll a transaction
//     back, so a command that failed (WRONGTYPE, a non-integer INCR, …) left
//     the others applied: Do keeps the key failed with the error as the
//     reason (redeliveries get guard.ErrFailed) and returns an error wrapping
//     guard.ErrPartialEffect. A command whose only error is redis.Nil did
//     not fail.
//   - apply returns an error: nothing is sent and the error is returned;
//     for guard.Reject(err), the key is kept failed with the reason (only if
//     still absent) and the error wraps guard.ErrFailed. A ctx that ended
//     while apply ran also sends nothing (ctx's error is returned).
//   - EXEC was aborted by Redis (a command refused while queued: unknown,
//     wrong arity): nothing was applied; the error names the command.
//
// With HashTag, on a Redis Cluster, or on a redis.Ring, the keys of the
// queued commands (found with COMMAND's key positions, fetched once per
// store) are checked against the record's slot (or shard) before anything is
// sent; a mismatch is an error naming the command and the key. Queued
// MULTI, EXEC, WATCH, SELECT and the like are refused everywhere.
func (s *Store) Do(ctx context.Context, consumer, key string, fp []byte, apply func(ctx context.Context, pipe redis.Pipeliner) error, opts ...DoOption) (guard.Outcome, error) {
	var o doOptions
	for _, opt := range opts {
		if opt != nil {
			opt(&o)
		}
	}
	tag := s.tag
	view := s
	if o.tagSet {
		tag = o.tag
		view = s.WithHashTag(tag)
	}
	rkey, err := view.start(consumer, key, tag)
	if err != nil {
		return 0, err
	}
	if err := s.checkIdentity(ctx, consumer); err != nil {
		return 0, err
	}
	if o.pin && tag != "" {
		if err := s.pinTag(ctx, consumer, key, tag); err != nil {
			return 0, err
		}
	}
	t := &doTx{s: s, consumer: consumer, key: key, rkey: rkey, fp: fp, apply: apply,
		check: newKeyCheck(s.place, tag, rkey), start: time.Now()}
	for attempt := 1; ; attempt++ {
		out, err := t.run(ctx)
		if !errors.Is(err, errRetry) {
			return out, err
		}
		var cause error = redis.TxFailedErr
		if errors.Is(err, errChanged) {
			cause = errChanged
		}
		if err := s.retried(ctx, consumer, key, attempt, cause); err != nil {
			return 0, err
		}
	}
}

// pinTag binds key to the first hash tag it is seen with (PinHashTag).
func (s *Store) pinTag(ctx context.Context, consumer, key, tag string) error {
	pin := s.RecordKey(consumer, key, "") + ":tag"
	// The TTL rounded up to whole milliseconds: go-redis would cut a
	// fraction of one off.
	set, err := s.client.SetNX(ctx, pin, tag, time.Duration(ms(s.cfg.Retention))*time.Millisecond).Result()
	if err != nil {
		return fmt.Errorf("redisguard: pin the hash tag of %s key: %w", consumer, err)
	}
	if set {
		return nil // first seen: pinned to tag
	}
	// A repeat (SET … NX GET would save this round trip, but needs Redis 7).
	old, err := s.client.Get(ctx, pin).Result()
	switch {
	case errors.Is(err, redis.Nil):
		return s.pinTag(ctx, consumer, key, tag) // expired in between: pin again
	case err != nil:
		return fmt.Errorf("redisguard: read the hash tag pin of %s key: %w", consumer, err)
	case old == tag:
		return nil
	}
	err = fmt.Errorf("%w: %s key %q came with hash tag %q before, now %q", guard.ErrKeyConflict, consumer, key, old, tag)
	s.cfg.Observer.Observe(ctx, guard.Event{Decision: guard.DecisionConflict, Consumer: consumer, Key: key, Err: err})
	return err
}

// errRetry: the watched record changed; Do starts over.
var errRetry = errors.New("redisguard: retry")

// doTx is one call of Do.
type doTx struct {
	s             *Store
	consumer, key string
	rkey          string
	fp            []byte
	apply         func(ctx context.Context, pipe redis.Pipeliner) error
	check         *keyCheck
	start         time.Time
	armed         bool // a WATCH sent by the store is active on the connection
}

// run is one attempt: WATCH, read, decide, MULTI … EXEC.
//
// When the server holding the record is known (*redis.Client, a
// ClusterClient's master for the record's slot, a Ring's shard), WATCH is
// sent in one round trip with the read, and the store itself tracks whether
// the watch is armed, releasing it with UNWATCH on every path that does not
// reach EXEC (a refusal, apply's error, a panic), so that no watch is left
// on a pooled connection. Other clients go through their own Watch, one
// round trip more.
func (t *doTx) run(ctx context.Context) (guard.Outcome, error) {
	var (
		out    guard.Outcome
		result error
	)
	node, err := t.s.nodeFor(ctx, t.rkey)
	if err != nil {
		return 0, fmt.Errorf("redisguard: find the node of %s record: %w", t.consumer, err)
	}
	if node != nil {
		err = node.Watch(ctx, func(tx *redis.Tx) error { // no keys: no WATCH yet
			t.armed = false
			defer func() {
				if t.armed {
					tx.Unwatch(context.WithoutCancel(ctx))
				}
			}()
			out, result = t.watched(ctx, tx, true)
			return nil
		})
	} else {
		err = t.s.client.Watch(ctx, func(tx *redis.Tx) error {
			out, result = t.watched(ctx, tx, false)
			return nil
		}, t.rkey)
	}
	if err != nil {
		return 0, fmt.Errorf("redisguard: watch %s record: %w", t.consumer, err)
	}
	return out, result
}

// nodeFor returns the client of the server holding rkey, or nil when the
// client type does not tell.
func (s *Store) nodeFor(ctx context.Context, rkey string) (*redis.Client, error) {
	switch c := s.client.(type) {
	case *redis.Client:
		return c, nil
	case *redis.ClusterClient:
		return c.MasterForKey(ctx, rkey)
	case *redis.Ring:
		return c.GetShardClientForKey(rkey)
	}
	return nil, nil
}

// watchRead WATCHes the record and reads it in one round trip.
func (t *doTx) watchRead(ctx context.Context, tx *redis.Tx) (*guard.Record, time.Time, error) {
	keys := []string{t.rkey}
	watch := redis.NewStatusCmd(ctx, "watch", t.rkey)
	var read *redis.Cmd
	t.armed = true // from here on, UNWATCH unless EXEC runs
	tx.Pipelined(ctx, func(p redis.Pipeliner) error {
		_ = p.Process(ctx, watch)
		read = readScript.EvalSha(ctx, p, keys)
		return nil
	})
	if err := watch.Err(); err != nil {
		return nil, time.Time{}, t.s.redirected(ctx, fmt.Errorf("redisguard: watch %s record: %w", t.consumer, err))
	}
	if redis.HasErrorPrefix(read.Err(), "NOSCRIPT") { // EVAL also caches the script
		read = readScript.Eval(ctx, tx, keys)
	}
	reply, err := read.Slice()
	if err != nil {
		return nil, time.Time{}, t.s.redirected(ctx, fmt.Errorf("redisguard: read %s record: %w", t.consumer, err))
	}
	if len(reply) != 3 {
		return nil, time.Time{}, fmt.Errorf("redisguard: read %s record: unexpected reply %v", t.consumer, reply)
	}
	return parseRecord(t.consumer, reply[0], reply[1], reply[2])
}

// redirected turns a cluster redirection (the record's slot moved) into a
// retry after a reload of the slot map.
func (s *Store) redirected(ctx context.Context, err error) error {
	if !redis.HasErrorPrefix(err, "MOVED") && !redis.HasErrorPrefix(err, "ASK") {
		return err
	}
	if c, ok := s.client.(*redis.ClusterClient); ok {
		c.ReloadState(ctx)
	}
	return fmt.Errorf("%w: %w", errRetry, err)
}

func (t *doTx) watched(ctx context.Context, tx *redis.Tx, watchHere bool) (guard.Outcome, error) {
	s := t.s
	var (
		rec *guard.Record
		now time.Time
		err error
	)
	if watchHere {
		rec, now, err = t.watchRead(ctx, tx)
	} else {
		rec, now, err = s.read(ctx, tx, t.consumer, t.rkey)
	}
	if err != nil {
		return 0, err
	}
	v := s.decide(rec, now, t.fp)
	if v.Action == storekit.ActMarkUncertain {
		ok, err := s.cas(ctx, tx, t.rkey, casMode(v.Action), rec, "", t.fp, t.key)
		if err != nil {
			return 0, err
		}
		if !ok {
			return 0, fmt.Errorf("%w: %w", errRetry, errChanged)
		}
	}
	if !v.Action.Acquires() {
		return storekit.Refuse(ctx, s.cfg, time.Since(t.start), t.consumer, t.key, v, rec)
	}
	created := strconv.FormatInt(now.UnixMicro(), 10)
	var (
		applyErr error
		hset     *redis.IntCmd
	)
	claimed, effectStart := time.Since(t.start), time.Now() // Event.Claim, Event.Effect
	cmds, err := tx.TxPipelined(ctx, func(pipe redis.Pipeliner) error {
		p := &pipeline{Pipeliner: pipe}
		if err := t.apply(ctx, p); err != nil {
			applyErr = err
			return err
		}
		if p.misused != nil {
			applyErr = p.misused
			return p.misused
		}
		if err := ctx.Err(); err != nil {
			// The caller gave up (or crashed) while apply ran: send nothing,
			// as a SQL transaction bound to the context would roll back.
			applyErr = err
			return err
		}
		if err := s.checkQueued(ctx, tx, t.check, pipe.Cmds()); err != nil {
			applyErr = err
			return err
		}
		hset = t.writeRecord(ctx, pipe, rec != nil, guard.StateDone, created, nil)
		return nil
	})
	t.execDone(err, hset)
	switch {
	case applyErr != nil && guard.IsRejected(applyErr):
		return t.reject(ctx, tx, rec != nil, created, applyErr)
	case applyErr != nil:
		return 0, applyErr
	case errors.Is(err, redis.TxFailedErr):
		return 0, errRetry
	case hset == nil || hset.Err() != nil:
		// EXEC did not run (an aborted transaction, a refused MULTI), or we
		// cannot tell (the connection broke): the record and the effect are
		// both applied or both not, and a redelivery will see which.
		if redis.IsExecAbortError(err) {
			return 0, fmt.Errorf("redisguard: %s: transaction aborted, nothing applied: %w", t.consumer, queuedErr(cmds, err))
		}
		return 0, fmt.Errorf("redisguard: %s: exec: %w", t.consumer, err)
	}
	if failed := failedCmds(cmds); failed != nil {
		return 0, t.partial(ctx, tx, created, failed)
	}
	s.cfg.Observer.Observe(ctx, guard.Event{Decision: guard.DecisionApplied, Consumer: t.consumer, Key: t.key, Duration: time.Since(t.start),
		Claim: claimed, Effect: time.Since(effectStart)})
	return guard.Applied, nil
}

// execDone notes that a MULTI … EXEC released the watch: EXEC ran (the
// record's HSET has a reply), was refused for a changed key, or was aborted.
func (t *doTx) execDone(err error, hset *redis.IntCmd) {
	if (hset != nil && hset.Err() == nil) || errors.Is(err, redis.TxFailedErr) || redis.IsExecAbortError(err) {
		t.armed = false
	}
}

// writeRecord queues the record: state with an optional result, the
// fingerprint, the key text, created, and the retention as TTL. An existing
// record (an abandoned lease taken over) is replaced.
func (t *doTx) writeRecord(ctx context.Context, pipe redis.Pipeliner, replace bool, state guard.State, created string, result []byte) *redis.IntCmd {
	if replace {
		pipe.Del(ctx, t.rkey)
	}
	args := []any{"state", string(state), "fp", guard.StoredFingerprint(t.fp), "key", t.key, "created", created}
	if result != nil {
		args = append(args, "result", result)
	}
	hset := pipe.HSet(ctx, t.rkey, args...)
	// PEXPIRE goes as a RawWriteToCmd, whose NoRetry makes go-redis never
	// resend this MULTI … EXEC: EXEC has consumed the WATCH, so a resent
	// transaction (after, say, a NOREPLICAS or LOADING answer to EXEC) would
	// run unguarded and could double the effect.
	_ = pipe.Process(ctx, redis.NewRawWriteToCmd(ctx, io.Discard, "pexpire", t.rkey, ms(t.s.cfg.Retention)))
	return hset
}

// reject keeps the key failed with the rejection as its reason, in a
// transaction of its own under the same WATCH, so only if the record is
// still as read.
func (t *doTx) reject(ctx context.Context, tx *redis.Tx, replace bool, created string, rejection error) (guard.Outcome, error) {
	var hset *redis.IntCmd
	_, err := tx.TxPipelined(ctx, func(pipe redis.Pipeliner) error {
		hset = t.writeRecord(ctx, pipe, replace, guard.StateFailed, created, storekit.ReasonText(rejection))
		return nil
	})
	t.execDone(err, hset)
	switch {
	case errors.Is(err, redis.TxFailedErr):
		return 0, errRetry
	case err != nil:
		return 0, errors.Join(rejection, fmt.Errorf("redisguard: mark %s failed: %w", t.consumer, err))
	}
	ferr := storekit.StateError(guard.ErrFailed, t.consumer, "", rejection)
	t.s.cfg.Observer.Observe(ctx, guard.Event{Decision: guard.DecisionFailed, Consumer: t.consumer, Key: t.key, Err: ferr, Duration: time.Since(t.start)})
	return 0, ferr
}

// partial answers an EXEC in which some commands failed: the key is kept
// failed with the failures as the reason (if the record is still the one
// just written), and the error wraps guard.ErrPartialEffect.
func (t *doTx) partial(ctx context.Context, conn redis.Scripter, created string, failed error) error {
	perr := storekit.StateError(guard.ErrPartialEffect, t.consumer, "", failed)
	if n, err := partialScript.Run(context.WithoutCancel(ctx), conn, []string{t.rkey}, created, storekit.ReasonText(perr)).Int64(); err != nil {
		perr = errors.Join(perr, fmt.Errorf("redisguard: mark %s failed after a partial effect: %w", t.consumer, err))
	} else if n == 0 {
		perr = errors.Join(perr, fmt.Errorf("redisguard: %s record changed before it could be marked failed", t.consumer))
	}
	t.s.cfg.Observer.Observe(ctx, guard.Event{Decision: guard.DecisionPartial, Consumer: t.consumer, Key: t.key, Err: perr, Duration: time.Since(t.start)})
	return perr
}

// failedCmds joins the errors of the commands that failed in an EXEC that
// ran, each named by its command; nil when none failed.
func failedCmds(cmds []redis.Cmder) error {
	var errs []error
	for _, c := range cmds {
		if err := c.Err(); err != nil && !errors.Is(err, redis.Nil) {
			errs = append(errs, fmt.Errorf("%s: %w", cmdText(c), err))
		}
	}
	return errors.Join(errs...)
}

// queuedErr names the command whose queueing made EXEC abort, if known.
func queuedErr(cmds []redis.Cmder, execErr error) error {
	for _, c := range cmds {
		if err := c.Err(); err != nil && !redis.IsExecAbortError(err) {
			return fmt.Errorf("%s: %w (%w)", cmdText(c), err, execErr)
		}
	}
	return execErr
}

// cmdText is a command's name and first key-like argument, for errors.
func cmdText(c redis.Cmder) string {
	args := c.Args()
	if len(args) > 1 {
		if s, err := argString(args[1]); err == nil {
			if len(s) > 64 {
				s = s[:64] + "…"
			}
			return fmt.Sprintf("%s %q", c.Name(), s)
		}
	}
	return c.Name()
}

// checkQueued refuses queued commands that would break the transaction and,
// when needed, keys outside the record's slot (or shard).
func (s *Store) checkQueued(ctx context.Context, conn redis.Cmdable, kc *keyCheck, cmds []redis.Cmder) error {
	for _, c := range cmds {
		if notInTx[c.Name()] {
			return fmt.Errorf("redisguard: apply queued %s, which the store's transaction cannot contain", c.Name())
		}
	}
	if !kc.needed() {
		return nil
	}
	infos, err := s.cmds.get(ctx, conn) // over the transaction's connection: no second one while it is held
	if err != nil {
		return err
	}
	for _, c := range cmds {
		keys, err := keysOf(ctx, conn, infos, c)
		if err != nil {
			return err
		}
		for _, k := range keys {
			if err := kc.check(c, k); err != nil {
				return err
			}
		}
	}
	return nil
}

// pipeline is the redis.Pipeliner given to apply: the transaction's own,
// except that it cannot be executed by apply, which would send the effect
// without its record.
type pipeline struct {
	redis.Pipeliner
	misused error
}

func (p *pipeline) refuse(what string) error {
	err := fmt.Errorf("redisguard: apply called %s on the transaction's pipeline; it must only queue commands, the store runs EXEC", what)
	if p.misused == nil {
		p.misused = err
	}
	return err
}

// Exec fails: the store executes the transaction.
func (p *pipeline) Exec(context.Context) ([]redis.Cmder, error) { return nil, p.refuse("Exec") }

// Pipelined fails: the store executes the transaction.
func (p *pipeline) Pipelined(context.Context, func(redis.Pipeliner) error) ([]redis.Cmder, error) {
	return nil, p.refuse("Pipelined")
}

// TxPipelined fails: the store executes the transaction.
func (p *pipeline) TxPipelined(context.Context, func(redis.Pipeliner) error) ([]redis.Cmder, error) {
	return nil, p.refuse("TxPipelined")
}

// Pipeline returns p itself: commands queued on it join the transaction.
func (p *pipeline) Pipeline() redis.Pipeliner { return p }

// TxPipeline returns p itself: commands queued on it join the transaction.
func (p *pipeline) TxPipeline() redis.Pipeliner { return p }

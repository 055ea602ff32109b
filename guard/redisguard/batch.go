package redisguard

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/idemkit/idem/guard"
	"github.com/idemkit/idem/guard/internal/storekit"
)

// Message is one message of DoBatch: a guard.TxMessage for a Redis
// pipeline, with the hash tag Do takes as an option.
type Message struct {
	Consumer    string
	Key         string
	Fingerprint []byte
	// Apply queues the effect's commands on pipe, as Do's apply does; it
	// must not execute them.
	Apply func(ctx context.Context, pipe redis.Pipeliner) error
	// HashTag, when not empty, places the record as the HashTag option
	// does: the record and every key Apply queues hash to the slot of
	// "{HashTag}". Empty: the tag of a WithHashTag view, or none.
	HashTag string
	// PinHashTag binds the key to the first hash tag it came with, as the
	// PinHashTag option does (one round trip more for this message).
	PinHashTag bool
}

// DoBatch runs the transactional effects of a batch of messages (see the
// guard package doc on batches). The records of the batch are WATCHed and
// read in one round trip; each is decided by guard's state table; the
// effects of the fresh keys are queued, each Apply on a pipeline of its
// own, and sent with their records in one MULTI … EXEC. A watched record
// that changed meanwhile makes EXEC fail, and the batch starts over (the
// changed key is then decided again, normally as a duplicate).
//
// A Redis transaction runs on one node and, in a cluster, in one hash
// slot, so a batch is sent as one MULTI per slot on a *redis.ClusterClient
// (the slots in parallel), per shard on a *redis.Ring, and as one MULTI on
// a single server; messages with hash tags that share a slot share its
// MULTI. Every message is answered alone, in order, as Do would answer it:
// an Apply that fails or is rejected queues nothing, and only its message
// fails (a rejected one is recorded failed in the same MULTI); a command
// that fails after EXEC is ErrPartialEffect for the message that queued it.
func (s *Store) DoBatch(ctx context.Context, msgs []Message) []guard.Result {
	res := make([]guard.Result, len(msgs))
	items := make([]*batchItem, len(msgs))
	startErrs := make([]error, len(msgs))
	p := storekit.PlanBatch(len(msgs), func(i int) (string, string, string) {
		m := msgs[i]
		tag := s.tag
		if m.HashTag != "" {
			tag = m.HashTag
		}
		view := s
		if tag != s.tag {
			view = s.WithHashTag(tag)
		}
		rkey, err := view.start(m.Consumer, m.Key, tag)
		if err != nil {
			startErrs[i] = err
			return m.Consumer, m.Key, "\x00" + strconv.Itoa(i) // no other message shares it
		}
		items[i] = &batchItem{t: &doTx{s: s, consumer: m.Consumer, key: m.Key, rkey: rkey, fp: m.Fingerprint, apply: m.Apply,
			check: newKeyCheck(s.place, tag, rkey), start: time.Now()}, idx: i, tag: tag, pin: m.PinHashTag}
		return m.Consumer, m.Key, rkey
	}, func(consumer string) error { return s.checkIdentity(ctx, consumer) })
	leads := make([]storekit.Leader, len(msgs))
	var todo []*batchItem
	for _, i := range p.Leads {
		it := items[i]
		if startErrs[i] != nil {
			p.First[i], p.Errs[i] = -1, startErrs[i]
			continue
		}
		if it.pin && it.tag != "" {
			if err := s.pinTag(ctx, it.t.consumer, it.t.key, it.tag); err != nil {
				res[i].Err, leads[i] = err, storekit.Leader{Err: err}
				continue
			}
		}
		todo = append(todo, it)
	}
	groups, err := s.groupBatch(ctx, todo)
	if err != nil {
		for _, it := range todo {
			res[it.idx].Err, leads[it.idx] = err, storekit.Leader{Err: err}
		}
		todo = nil
	}
	var wg sync.WaitGroup
	for _, g := range groups {
		wg.Go(func() { s.doGroup(ctx, g, res, leads) })
	}
	wg.Wait()
	for i, f := range p.First {
		switch {
		case f < 0:
			res[i].Err = p.Errs[i]
		case f != i:
			v, rec, err := storekit.FollowerVerdict(s.cfg, msgs[i].Fingerprint, leads[f])
			if err == nil {
				res[i].Outcome, err = storekit.Refuse(ctx, s.cfg, 0, msgs[i].Consumer, msgs[i].Key, v, rec)
			}
			res[i].Err = err
		}
	}
	return res
}

// batchItem is a first copy of a key in DoBatch.
type batchItem struct {
	t   *doTx
	idx int
	tag string
	pin bool

	// set by each attempt
	rec      *guard.Record
	now      time.Time
	v        storekit.Verdict
	created  string
	cmds     []redis.Cmder // the commands its Apply queued
	hset     *redis.IntCmd // its record's write
	rejected error
	err      error // its Apply's error: nothing of it was sent
	claimed  time.Duration
	effect   time.Duration
}

// batchGroup is the items of a batch that share a MULTI, on node.
type batchGroup struct {
	node  *redis.Client // nil: a client whose placement is unknown, one Do per item
	items []*batchItem
}

// groupBatch splits items by the node and slot (cluster) or shard (ring)
// that holds their records.
func (s *Store) groupBatch(ctx context.Context, items []*batchItem) ([]*batchGroup, error) {
	type groupKey struct {
		node *redis.Client
		slot int
	}
	byKey := map[groupKey]*batchGroup{}
	var out []*batchGroup
	for _, it := range items {
		node, err := s.nodeFor(ctx, it.t.rkey)
		if err != nil {
			return nil, fmt.Errorf("redisguard: find the node of %s record: %w", it.t.consumer, err)
		}
		k := groupKey{node: node}
		if s.place == placeCluster {
			k.slot = KeySlot(it.t.rkey)
		}
		g := byKey[k]
		if g == nil || node == nil {
			g = &batchGroup{node: node}
			byKey[k] = g
			out = append(out, g)
		}
		g.items = append(g.items, it)
	}
	return out, nil
}

// doGroup runs the MULTI of one group, starting over while a watched
// record changes, and answers its items.
func (s *Store) doGroup(ctx context.Context, g *batchGroup, res []guard.Result, leads []storekit.Leader) {
	if g.node == nil { // no node to WATCH on: one Do each
		for _, it := range g.items {
			out, err := s.Do(ctx, it.t.consumer, it.t.key, it.t.fp, it.t.apply, HashTag(it.tag))
			res[it.idx] = guard.Result{Outcome: out, Err: err}
			if err == nil {
				leads[it.idx] = storekit.Leader{Rec: storekit.AcquiredRecord(s.cfg, it.t.consumer, it.t.key, it.t.fp, time.Now(), false), Now: time.Now()}
			} else {
				leads[it.idx] = storekit.Leader{Err: err}
			}
		}
		return
	}
	start := time.Now()
	for attempt := 1; ; attempt++ {
		err := s.groupAttempt(ctx, g, start)
		if err == nil {
			break
		}
		if errors.Is(err, errRetry) {
			cause := error(redis.TxFailedErr)
			if errors.Is(err, errChanged) {
				cause = errChanged
			}
			if err = s.retried(ctx, g.items[0].t.consumer, "", attempt, cause); err == nil {
				continue
			}
		}
		for _, it := range g.items {
			res[it.idx].Err, leads[it.idx] = err, storekit.Leader{Err: err}
		}
		return
	}
	for _, it := range g.items {
		t := it.t
		switch {
		case it.err != nil:
			res[it.idx].Err, leads[it.idx] = it.err, storekit.Leader{Err: it.err}
		case !it.v.Action.Acquires():
			res[it.idx].Outcome, res[it.idx].Err = storekit.Refuse(ctx, s.cfg, it.claimed, t.consumer, t.key, it.v, it.rec)
			leads[it.idx] = storekit.Leader{Rec: it.rec, Now: it.now}
		case it.rejected != nil:
			ferr := storekit.StateError(guard.ErrFailed, t.consumer, "", it.rejected)
			s.cfg.Observer.Observe(ctx, guard.Event{Decision: guard.DecisionFailed, Consumer: t.consumer, Key: t.key, Err: ferr, Duration: time.Since(start)})
			res[it.idx].Err = ferr
			leads[it.idx] = storekit.Leader{Rec: &guard.Record{Consumer: t.consumer, Key: t.key, State: guard.StateFailed,
				Result: storekit.ReasonText(it.rejected), ExpiresAt: it.now.Add(s.cfg.Retention)}, Now: it.now}
		default:
			if failed := failedCmds(it.cmds); failed != nil {
				perr := t.partial(ctx, g.node, it.created, failed)
				res[it.idx].Err, leads[it.idx] = perr, storekit.Leader{Err: perr}
				continue
			}
			s.cfg.Observer.Observe(ctx, guard.Event{Decision: guard.DecisionApplied, Consumer: t.consumer, Key: t.key, Duration: time.Since(start),
				Claim: it.claimed, Effect: it.effect})
			res[it.idx].Outcome = guard.Applied
			leads[it.idx] = storekit.Leader{Rec: storekit.AcquiredRecord(s.cfg, t.consumer, t.key, t.fp, it.now, false), Now: it.now}
		}
	}
}

// errSkipExec ends a group's MULTI that has nothing to send.
var errSkipExec = errors.New("redisguard: nothing to execute")

// groupAttempt is one attempt of a group: WATCH and read every record in
// one round trip, decide, queue, MULTI … EXEC. errRetry: a watched record
// changed (or moved), start over.
func (s *Store) groupAttempt(ctx context.Context, g *batchGroup, start time.Time) error {
	var result error
	err := g.node.Watch(ctx, func(tx *redis.Tx) error { // no keys: no WATCH yet
		armed := false
		defer func() {
			if armed {
				tx.Unwatch(context.WithoutCancel(ctx))
			}
		}()
		watchArgs := []any{"watch"}
		for _, it := range g.items {
			watchArgs = append(watchArgs, it.t.rkey)
		}
		watch := redis.NewStatusCmd(ctx, watchArgs...)
		reads := make([]*redis.Cmd, len(g.items))
		armed = true // from here on, UNWATCH unless EXEC runs
		tx.Pipelined(ctx, func(p redis.Pipeliner) error {
			_ = p.Process(ctx, watch)
			for i, it := range g.items {
				reads[i] = readScript.EvalSha(ctx, p, []string{it.t.rkey})
			}
			return nil
		})
		if err := watch.Err(); err != nil {
			result = s.redirected(ctx, fmt.Errorf("redisguard: watch %s records: %w", g.items[0].t.consumer, err))
			return nil
		}
		for i, it := range g.items {
			t := it.t
			it.rec, it.err, it.rejected, it.cmds, it.hset = nil, nil, nil, nil, nil
			read := reads[i]
			if redis.HasErrorPrefix(read.Err(), "NOSCRIPT") { // EVAL also caches the script
				read = readScript.Eval(ctx, tx, []string{t.rkey})
			}
			reply, err := read.Slice()
			if err == nil && len(reply) != 3 {
				err = fmt.Errorf("unexpected reply %v", reply)
			}
			if err != nil {
				result = s.redirected(ctx, fmt.Errorf("redisguard: read %s record: %w", t.consumer, err))
				return nil
			}
			if it.rec, it.now, err = parseRecord(t.consumer, reply[0], reply[1], reply[2]); err != nil {
				result = err
				return nil
			}
			it.v = s.decide(it.rec, it.now, t.fp)
			it.created = strconv.FormatInt(it.now.UnixMicro(), 10)
			it.claimed = time.Since(start)
		}
		sent := false
		var aborted error // the caller's context ended while an apply ran
		cmds, err := tx.TxPipelined(ctx, func(pipe redis.Pipeliner) error {
			for _, it := range g.items {
				t := it.t
				if it.v.Action == storekit.ActMarkUncertain { // the record is as read (WATCH): mark it
					pipe.HSet(ctx, t.rkey, "state", string(guard.StateUncertain))
					pipe.HDel(ctx, t.rkey, "result", "lease_until")
					sent = true
					continue
				}
				if !it.v.Action.Acquires() {
					continue
				}
				effectStart := time.Now()
				col := &pipeline{Pipeliner: tx.Pipeline()}
				applyErr := t.apply(ctx, col)
				it.effect = time.Since(effectStart)
				if applyErr == nil {
					applyErr = col.misused
				}
				if err := ctx.Err(); err != nil {
					aborted = err // send nothing, as a SQL transaction bound to the context would roll back
					return err
				}
				if applyErr == nil {
					applyErr = s.checkQueued(ctx, tx, t.check, col.Cmds())
				}
				switch {
				case applyErr != nil && guard.IsRejected(applyErr):
					it.rejected = applyErr
					it.hset = t.writeRecord(ctx, pipe, it.rec != nil, guard.StateFailed, it.created, storekit.ReasonText(applyErr))
				case applyErr != nil:
					it.err = applyErr
					continue
				default:
					it.cmds = col.Cmds()
					for _, c := range it.cmds {
						_ = pipe.Process(ctx, c)
					}
					it.hset = t.writeRecord(ctx, pipe, it.rec != nil, guard.StateDone, it.created, nil)
				}
				sent = true
			}
			if !sent {
				return errSkipExec
			}
			return nil
		})
		var last *redis.IntCmd // a record's write: it has a reply when EXEC ran
		for _, it := range g.items {
			if it.hset != nil {
				last = it.hset
			}
		}
		switch {
		case aborted != nil:
			result = aborted
		case errors.Is(err, errSkipExec):
		case errors.Is(err, redis.TxFailedErr):
			armed, result = false, errRetry
		case redis.IsExecAbortError(err):
			armed = false
			result = fmt.Errorf("redisguard: %s: transaction aborted, nothing applied: %w", g.items[0].t.consumer, queuedErr(cmds, err))
		case err != nil && (last == nil || last.Err() != nil):
			// EXEC did not run, or we cannot tell (the connection broke):
			// each record and its effect are both applied or both not, and a
			// redelivery will see which.
			result = fmt.Errorf("redisguard: %s: exec: %w", g.items[0].t.consumer, err)
		default:
			armed = false // EXEC ran (a failed command is answered per message)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("redisguard: watch %s records: %w", g.items[0].t.consumer, err)
	}
	return result
}

// ClaimBatch claims the keys of a batch for external effects (see the guard
// package doc on batches): the claim script of every key is sent in one
// pipeline (on a cluster, one per node), and each reply is decided as Claim
// decides it. It returns one guard.Claimed per message, in order.
func (s *Store) ClaimBatch(ctx context.Context, msgs []guard.Message) []guard.Claimed {
	out := make([]guard.Claimed, len(msgs))
	rkeys := make([]string, len(msgs))
	p := storekit.PlanBatch(len(msgs), func(i int) (string, string, string) {
		m := msgs[i]
		rkey, err := s.start(m.Consumer, m.Key, s.tag)
		if err != nil {
			return m.Consumer, m.Key, "\x00" + strconv.Itoa(i)
		}
		rkeys[i] = rkey
		return m.Consumer, m.Key, rkey
	}, func(consumer string) error { return s.checkIdentity(ctx, consumer) })
	var firsts []int
	for _, i := range p.Leads {
		if rkeys[i] == "" {
			_, err := s.start(msgs[i].Consumer, msgs[i].Key, s.tag)
			p.First[i], p.Errs[i] = -1, err
			continue
		}
		firsts = append(firsts, i)
	}
	started := time.Now()
	infos := make([]storekit.LeaseInfo, len(msgs))
	replies := make([]*redis.Cmd, len(msgs))
	if len(firsts) > 0 {
		_, _ = s.client.Pipelined(ctx, func(pipe redis.Pipeliner) error {
			for _, i := range firsts {
				m := msgs[i]
				infos[i] = storekit.LeaseInfo{Consumer: m.Consumer, Key: m.Key, Owner: storekit.NewOwnerToken(), Duration: s.cfg.Lease, Started: started}
				replies[i] = claimScript.EvalSha(ctx, pipe, []string{rkeys[i]}, s.claimArgs(infos[i], m.Fingerprint)...)
			}
			return nil
		})
	}
	leads := make([]storekit.Leader, len(msgs))
	for _, i := range firsts {
		reply, err := replies[i].Slice()
		if err != nil {
			if !redis.HasErrorPrefix(err, "NOSCRIPT") {
				err = fmt.Errorf("redisguard: claim %s: %w", msgs[i].Consumer, err)
				out[i].Err, leads[i] = err, storekit.Leader{Err: err}
				continue
			}
			reply = nil // the script is not cached (yet): claimLoop runs it again, with EVAL
		}
		l, rec, now, err := s.claimLoop(ctx, infos[i], rkeys[i], msgs[i].Fingerprint, reply)
		out[i] = storekit.NewClaimed(l, err, rec, now)
		switch {
		case err == nil && l.Outcome() == guard.Applied:
			leads[i] = storekit.Leader{Rec: storekit.AcquiredRecord(s.cfg, msgs[i].Consumer, msgs[i].Key, msgs[i].Fingerprint, now, true), Now: now}
		case rec != nil:
			leads[i] = storekit.Leader{Rec: rec, Now: now}
		default:
			leads[i] = storekit.Leader{Err: err}
		}
	}
	for i, f := range p.First {
		switch {
		case f < 0:
			out[i].Err = p.Errs[i]
		case f != i:
			v, rec, err := storekit.FollowerVerdict(s.cfg, msgs[i].Fingerprint, leads[f])
			if err == nil {
				info := storekit.LeaseInfo{Consumer: msgs[i].Consumer, Key: msgs[i].Key}
				out[i].Lease, err = storekit.ClaimAnswer(ctx, leases{s}, s.cfg, info, v, rec)
			}
			out[i].Err = err
		}
	}
	return out
}

// RunBatch runs the external effects of a batch of messages: ClaimBatch
// claims every key in one pipeline, then each acquired key's apply runs
// under its lease, one after the other in the order of the batch, and its
// outcome is recorded as Run records it. It returns one guard.Result per
// message, in order; a later copy of a key is answered from the first one's
// outcome (Duplicate after an applied effect).
func (s *Store) RunBatch(ctx context.Context, msgs []guard.LeaseMessage) []guard.Result {
	return storekit.RunLeases(ctx, s.cfg, msgs, s.ClaimBatch)
}

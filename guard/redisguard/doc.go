// Package redisguard is the guard store for Redis (go-redis v9): a single
// server, Sentinel, Redis Cluster, or a redis.Ring, through
// redis.UniversalClient. It decides every claim with storekit.DecideClaim, like
// the SQL stores, so all stores answer alike (see the guard package).
//
//	store, err := redisguard.New(client, guard.WithRetention(72*time.Hour))
//	out, err := store.Do(ctx, "billing", key, fp, func(ctx context.Context, pipe redis.Pipeliner) error {
//		pipe.IncrBy(ctx, "balance:"+user, amount)
//		return nil
//	})
//
// # Records
//
// A dedup record is one Redis hash per consumer and key, at
// "<prefix>:<consumer>:<hex SHA-256 of the encoded key>" (prefix: WithTable,
// default "idem_keys"), with the fields state (pending, done, failed,
// uncertain), fp (fingerprint), owner (fencing token), lease_until, result,
// key (the encoded key, for operators) and created. The retention is the
// hash's TTL (PEXPIRE), so Redis deletes expired records itself: Purge has
// nothing to do and returns 0. A lease's end is a field inside the record,
// not the record's TTL, so an expired lease stays visible — it is taken over
// (at-least-once) or turned uncertain (at-most-once), never silently
// forgotten. A lease that outgrows the retention (Extend, a late takeover)
// raises the TTL to cover it.
//
// # Clock
//
// Every time — created, lease_until, the "now" a claim is decided at — is
// the Redis server's TIME, read inside the scripts (or the read of Do), never
// the application's clock, so skewed application hosts agree. In a cluster
// a record is always handled by the node that owns its slot, with that
// node's clock.
//
// # Transactional effects: WATCH, MULTI, EXEC
//
// Do WATCHes the record and reads it (a script returning the record, its TTL
// and TIME), both in one round trip. A record that exists is decided in Go
// by storekit.DecideClaim and answered (Duplicate, ErrKeyConflict, ErrFailed, …)
// without running apply; the watch is released (UNWATCH). An absent one lets
// apply queue its commands on the transaction's pipeline; Do adds the record
// (HSET state done, PEXPIRE retention) and sends MULTI … EXEC in a second
// round trip. If a concurrent duplicate wrote the record in between, the
// WATCH makes EXEC fail (redis.TxFailedErr); Do starts over, reads the record
// and answers Duplicate. Nothing blocks: concurrent duplicates do not wait on
// each other as they do on SQL row locks; the losers' queued commands are
// simply never executed. The record and the effect are in one EXEC, so a
// crash leaves both or neither.
//
// The decision is made in Go rather than in a Lua script because the effect
// is arbitrary commands queued by apply, which a script cannot take as
// input without giving up go-redis's typed commands; and because one
// decision table (storekit.DecideClaim) then serves every store. apply runs
// while the transaction holds a pooled connection: it should only queue
// commands (reading through the client inside apply takes a second one).
//
// Redis does not roll a transaction back: when EXEC runs, every queued
// command runs, and a command that fails at run time (WRONGTYPE, INCR of a
// non-integer) fails alone while the others stay applied. So Do checks
// every reply after EXEC; any failure is guard.ErrPartialEffect (permanent:
// dead-letter and alert), and the record is turned failed with the failures
// as its reason, so a redelivery is refused (guard.ErrFailed) rather than
// acknowledged as a duplicate or run again. A command refused while queued
// (unknown command, wrong arity) makes Redis discard the whole transaction:
// nothing is applied and Do returns a plain error.
//
// The transaction is never resent by go-redis (its retry of a pipeline would
// resend MULTI … EXEC without the WATCH that EXEC consumed): Do queues one
// command that go-redis does not retry. Network errors around EXEC are
// returned as transient errors; the redelivery finds the record if EXEC ran.
//
// # Hash tags and cluster slots
//
// A MULTI runs on one node, and Redis Cluster requires all its keys to be in
// one hash slot. The record's key hashes to an arbitrary slot, so on a
// cluster Do is used with HashTag(v): the record becomes
// "{v}<prefix>:<consumer>:<hex>", and the effect names its keys with the
// same tag (Tagged(v, "balance:42") = "{v}balance:42"), so that everything
// hashes the tag v. Before EXEC, Do computes the slot (CRC16/XMODEM modulo
// 16384, hash tag rule; see KeySlot) of every key of every queued command —
// key positions come from the server's COMMAND table, fetched once per
// store; EVAL and FCALL keys from their key count; other commands with
// movable keys from COMMAND GETKEYS — and refuses, executing nothing, when
// one differs from the record's, naming the command and the key. The check
// runs whenever a hash tag is given (so a single-server setup already
// catches what would break on a cluster) and always on a cluster or a Ring.
// Operators reach tagged records through Store.WithHashTag(v).
//
// # External effects (leases)
//
// Claim runs one script that inserts a pending record with a fresh owner
// token when none exists (one round trip for a fresh key), or returns the
// record and the server time. storekit.DecideClaim then decides; a takeover
// (at-least-once) or the move to uncertain (at-most-once) is made by a
// compare-and-set script that applies only if the record is still the one
// decided on, else the claim reads again. Complete, Fail, Release and Extend
// are scripts fenced by the owner token: a stale owner gets
// guard.ErrLeaseLost.
//
// Redis 5 or later is required (scripts that write after TIME).
package redisguard

// Package guard is the runtime behind idem's guarded handlers: it makes the
// effect of a message happen once, however often the broker delivers it.
//
// A broker's ack only says the bytes arrived. Producers resend on timeouts,
// consumers crash between the effect and the ack, brokers redeliver after a
// failover; so the same business event reaches a handler two, three, five
// times. guard keeps one dedup record per (consumer, business key) and
// decides, for each delivery, whether the effect runs now (Applied) or ran
// before (Duplicate), or why it must not run (the errors below).
//
// # Stores
//
//	store, err := guard.NewSQLStore(db, guard.Postgres)   // or guard.MySQL, guard.SQLite
//	store, err := pgxguard.New(pool)                     // PostgreSQL through pgx v5
//	store, err := redisguard.New(client)                 // Redis, single node or cluster
//
// All stores share one state table (decideClaim) and satisfy Store. Records
// live in one table (default idem_keys; idemgen writes its migrations, and
// CreateTableSQL holds its DDL) or, on Redis, one hash per key.
//
// # Effects and their guarantees
//
// Transactional effects (effect: sql, effect: redis) share a transaction with
// their dedup record, so the pair commits together or not at all:
//
//	out, err := store.Do(ctx, "deduct_inventory", key, fp,
//		func(ctx context.Context, tx *sql.Tx) error {
//			_, err := tx.ExecContext(ctx, `UPDATE stock SET n = n - $1 WHERE sku = $2`, qty, sku)
//			return err
//		})
//
// The claim insert is the transaction's first statement; a concurrent
// delivery of the same key waits on it and then sees Duplicate. Serialization
// failures and deadlocks retry the whole transaction with jitter, so apply may
// run more than once but commits at most once: it must use only the
// transaction it is given. The result is an exactly-once effect under
// at-least-once delivery — not exactly-once delivery. On Redis the record is
// written in the same MULTI as the effect's commands, under WATCH.
//
// External effects (effect: external: an SMS provider, a payment API) cannot
// share a transaction. They run under a lease:
//
//	out, err := store.Run(ctx, "send_sms", key, fp,
//		func(ctx context.Context, l *guard.Lease) error {
//			return sms.Send(ctx, phone, text, l.Key()) // l.Key(): the provider's idempotency key
//		})
//
// Claim inserts a pending record with a lease (by the database's clock) and a
// fresh owner token; the effect runs outside any transaction; Complete is a
// compare-and-set on the token. A stale owner can never complete or release
// (fencing): it gets ErrLeaseLost. When a lease expires before completion,
// the next claim takes it over with a new token (AtLeastOnce: the effect may
// run twice, so pass Lease.Key to the provider) or turns the key uncertain
// (AtMostOnce: the effect never runs twice; an operator resolves the key).
//
// # The state table
//
//	state \ event      claim                        complete       error (release/keep)   lease expires, then claim
//	absent/expired     → pending (Applied)          –              –                      –
//	pending, live      InProgress                   → done         → absent / failed      –
//	pending, expired   –                            LeaseLost if   –                      at-least-once: new owner;
//	                                                taken                                 at-most-once: → uncertain
//	done               Duplicate (or KeyConflict)   –              –                      –
//	failed             ErrFailed                    –              –                      –
//	uncertain          ErrUncertain                 –              –                      –
//
// A transactional claim writes done directly (its commit is the completion).
// A record past its retention (WithRetention, default 168h) behaves as absent
// even before Purge deletes it; Purge works in bounded batches and never
// touches a live lease.
//
// # Limits
//
// A retention is at least MinRetention (1m) and a lease at least MinLease
// (1s): shorter ones would vanish into a store's clock resolution and switch
// deduplication off, so NewConfig refuses them. Stores keep durations
// rounded up to what they hold (microseconds in SQL, milliseconds for a
// Redis TTL), never down. A lease is held at most Config.LeaseHoldLimit
// after its claim (WithMaxLeaseHold, default DefaultMaxLeaseHold or the
// lease if longer): Lease.Extend past it fails with ErrLeaseHoldExceeded, so
// a stuck handler cannot keep its key from the others for ever, and no
// InProgressError asks to wait longer. Keys are at most MaxKeyLen (1 MiB)
// on every store; a longer one is an ErrInvalidMessage before any claim.
// Fingerprints are stored as 67-byte digests (StoredFingerprint) whatever
// their length; records written by older versions, which kept the caller's
// bytes, compare as they did.
//
// # Batches
//
// DoBatch, ClaimBatch and RunBatch take a whole batch of messages (a
// JetStream fetch, a Kafka poll, an AMQP prefetch window) in one call: one
// claim statement (or one pipelined Redis read) for every key, the effects
// of DoBatch in one transaction committed once. Every message gets its own
// Result, in order, the answer it would have had alone: a key seen twice in
// a batch is claimed once and its later copy is a duplicate; a message whose
// effect fails or is rejected gets its error and does not undo the others
// (on SQL the batch is run again without it, so apply may run more than
// once and commits at most once); a crash before DoBatch's commit leaves
// nothing, after it every message is answered Duplicate on redelivery. A
// BatchHandler (every generated handler) answers a batch of bodies, and the
// broker adapters use it with their WithBatch option. See batch.go for the
// details.
//
// # Errors
//
//	*InProgressError (ErrInProgress)  another worker holds a live lease   nak with RetryAfter
//	ErrKeyConflict     same key, different fingerprint                  dead-letter
//	ErrFailed          failed permanently before (Reject, keep)         dead-letter
//	ErrUncertain       at-most-once effect may or may not have happened dead-letter, alert
//	ErrLeaseLost       our lease was taken over before we completed     log; effect may be doubled
//	ErrPartialEffect   a Redis command failed after EXEC                dead-letter, alert
//	ErrInvalidMessage  undecodable body, missing key field, key too long dead-letter
//	ErrKeyIdentityChanged  the consumer's keys changed meaning          nak, fix the deployment
//	ErrLeaseHoldExceeded   Extend past the maximum hold                 the apply gives up
//	anything else      transient (database down, timeout)               nak, retry
//
// Permanent reports the errors that must not be retried. Reject(err), from an
// apply function, marks a business rejection: the effect is rolled back and
// the key kept failed, so redeliveries neither loop nor succeed later.
// NotPerformed(err), from an external apply, proves the call did not happen
// and allows a release under AtMostOnce.
//
// # Keys and fingerprints
//
// A key is the business key of a message in the v1 encoding (KeyBuilder):
// injective, so two different field tuples never share a record. Records are
// identified by its SHA-256 in a binary column, so no collation folds two
// keys into one. A fingerprint (FingerprintBuilder) summarises the fields that
// must agree between deliveries; a duplicate with a different fingerprint is
// ErrKeyConflict — two different messages share a business key.
//
// # Key identities
//
// WithKeyIdentity (idemgen writes it into generated handlers) names what a
// consumer's keys mean. The first claim of each consumer through a store
// records it in a reserved record of the consumer — the record of the empty
// key, which no claim can use — or checks it against the one recorded:
// another identity is *KeyIdentityError (ErrKeyIdentityChanged, not
// permanent), since every message handled under the old keys would look
// fresh and run its effect again. A positive answer is kept for the life of
// the store, so the check costs one round trip per consumer and process.
// The record never expires and Purge never deletes it; operators read it
// with Store.KeyIdentity and reset it with Store.ForgetKeyIdentity (see
// IdentityRecordKey for where it lives).
//
// Every decision reaches an Observer (WithObserver; NewSlogObserver logs them).
package guard

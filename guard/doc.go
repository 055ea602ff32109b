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
// All stores share one state table (DecideClaim) and satisfy Store. Records
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
// # Errors
//
//	*InProgressError (ErrInProgress)  another worker holds a live lease   nak with RetryAfter
//	ErrKeyConflict     same key, different fingerprint                  dead-letter
//	ErrFailed          failed permanently before (Reject, keep)         dead-letter
//	ErrUncertain       at-most-once effect may or may not have happened dead-letter, alert
//	ErrLeaseLost       our lease was taken over before we completed     log; effect may be doubled
//	ErrPartialEffect   a Redis command failed after EXEC                dead-letter, alert
//	ErrInvalidMessage  undecodable body or missing key field            dead-letter
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
// Every decision reaches an Observer (WithObserver; NewSlogObserver logs them).
package guard

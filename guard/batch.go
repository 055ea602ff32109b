package guard

import (
	"context"
	"errors"
	"time"

	"github.com/idemkit/idem/guard/internal/core"
)

// Batches.
//
// A consumer that reads messages in batches (a JetStream Fetch, a Kafka
// poll, an AMQP prefetch window) hands the whole batch to one call:
//
//	res := store.DoBatch(ctx, []guard.TxMessage[*sql.Tx]{
//		{Consumer: "deduct_inventory", Key: k1, Fingerprint: fp1, Apply: deduct(m1)},
//		{Consumer: "deduct_inventory", Key: k2, Fingerprint: fp2, Apply: deduct(m2)},
//	})
//	for i, r := range res { ack(msgs[i], r.Outcome, r.Err) }
//
// DoBatch claims every key of the batch with one statement (SQL) or one
// pipelined read (Redis), runs the effects of the fresh keys in one
// transaction (one MULTI … EXEC), and commits once: a batch of n costs about
// what one message costs, plus its effects. RunBatch does the same for
// external effects: one claim for the batch, then each effect under its own
// lease. Every message gets its own answer, by the error table, in the
// order of the batch:
//
//   - A key seen twice in one batch is claimed once: the later message is a
//     duplicate of the first (Duplicate when the fingerprints agree,
//     ErrKeyConflict when they differ, and the first one's error when its
//     effect failed).
//   - A message whose Apply fails, or is rejected (Reject), does not undo
//     the others. On SQL the batch's transaction is rolled back and run again
//     without that message (a rejected one is then recorded failed in the
//     same transaction), since a failed statement aborts a PostgreSQL
//     transaction and a savepoint per message would cost every message a
//     round trip; so Apply may run more than once, as under Do's retries, and
//     commits at most once. On Redis the effect is only queued, so a failed
//     Apply just queues nothing.
//   - A batch of more than MaxBatchLen messages is handled as several
//     batches of at most MaxBatchLen, each in its own transaction.
//
// Every limit of a single claim (MaxKeyLen, the consumer name, the key
// identity of WithKeyIdentity) applies to each message; a message that
// breaks one gets its error and the others go on.

// MaxBatchLen is the most messages one transaction of a batch call claims;
// longer batches are split.
const MaxBatchLen = 1000

// Message names one message of a batch claim (Store.ClaimBatch): its
// consumer, its encoded key (KeyBuilder) and its fingerprint.
type Message struct {
	Consumer    string
	Key         string
	Fingerprint []byte
}

// TxMessage is one message of a transactional batch (DoBatch): its consumer,
// encoded key and fingerprint, and the effect to run in the batch's
// transaction. Tx is the store's transaction type: *sql.Tx for SQLStore,
// pgx.Tx for pgxguard, redis.Pipeliner for redisguard. Apply must do all
// its work through the transaction it is given; it may run more than once.
type TxMessage[Tx any] struct {
	Consumer    string
	Key         string
	Fingerprint []byte
	Apply       func(ctx context.Context, tx Tx) error
}

// LeaseMessage is one message of a batch of external effects (RunBatch):
// its consumer, encoded key and fingerprint, and the effect to run under its
// lease (see Run).
type LeaseMessage struct {
	Consumer    string
	Key         string
	Fingerprint []byte
	Apply       func(ctx context.Context, l *Lease) error
}

// Result is the answer for one message of a batch: an Outcome (Applied or
// Duplicate) and a nil Err, or an error of the error table.
type Result struct {
	Outcome Outcome
	Err     error
}

// Claimed is the answer for one message of a ClaimBatch: a Lease, as Claim
// returns it, or an error.
type Claimed struct {
	Lease *Lease
	Err   error

	rec *Record   // the record a refused claim was decided on
	now time.Time // the store's clock then
}

// batchLeader is what the later copies of a key in a batch are decided
// on: the record the first copy was decided on (for a key the first copy
// acquired, the record it wrote: done, or pending under its lease), or,
// when its own effect failed, its error.
type batchLeader struct {
	rec *Record
	now time.Time
	err error
}

// acquiredLeader is the batchLeader of a first copy that acquired its key
// with fingerprint fp at now: its effect committed (done) or, for a claim,
// its lease is held (pending).
func (c Config) acquiredLeader(consumer, key string, fp []byte, now time.Time, pending bool) batchLeader {
	rec := &Record{Consumer: consumer, Key: key, State: StateDone, Fingerprint: StoredFingerprint(fp), ExpiresAt: now.Add(c.Retention)}
	if pending {
		rec.State, rec.LeaseUntil = StatePending, now.Add(c.Lease)
	}
	return batchLeader{rec: rec, now: now}
}

// errBatchRepeat answers a later copy of a key whose first copy in the
// same batch was refused for a fingerprint of its own, where this copy
// would have acquired the key: it is delivered again and claimed then.
var errBatchRepeat = errors.New("guard: the key came twice in one batch, and the first copy was refused for its fingerprint; deliver this copy again")

// followerVerdict decides a later copy of a key in a batch, presenting fp,
// on what happened to the first copy (see batchLeader). A verdict that
// would acquire the key is errBatchRepeat: only the first copy claims.
func (c Config) followerVerdict(fp []byte, lead batchLeader) (core.Verdict, *Record, error) {
	if lead.rec == nil {
		return core.Verdict{}, nil, lead.err
	}
	v := decideClaim(lead.rec, lead.now, fp, c.Delivery)
	if v.Action.Acquires() {
		return core.Verdict{}, nil, errBatchRepeat
	}
	return v, lead.rec, nil
}

// batchPlan maps the messages of a batch to their distinct keys: first[i]
// is the index of the first message with the key of message i (i itself
// for a first copy), or -1 when message i was refused before any claim,
// with errs[i] saying why.
type batchPlan struct {
	first  []int
	errs   []error
	leads  []int // the indexes of the first copies, in order
	leader []batchLeader
}

// planBatch validates the n messages of a batch (msg returns the consumer,
// key and hash key of message i: the key's identity in the store) and
// checks each consumer's key identity once with checkIdentity.
func planBatch[ID comparable](n int, msg func(i int) (consumer, key string, id ID), checkIdentity func(consumer string) error) batchPlan {
	p := batchPlan{first: make([]int, n), errs: make([]error, n), leader: make([]batchLeader, n)}
	checked := map[string]error{}
	seen := map[ID]int{}
	for i := range n {
		p.first[i] = -1
		consumer, key, id := msg(i)
		if err := validateClaim(consumer, key); err != nil {
			p.errs[i] = err
			continue
		}
		err, ok := checked[consumer]
		if !ok {
			err = checkIdentity(consumer)
			checked[consumer] = err
		}
		if err != nil {
			p.errs[i] = err
			continue
		}
		if f, ok := seen[id]; ok {
			p.first[i] = f
			continue
		}
		seen[id] = i
		p.first[i] = i
		p.leads = append(p.leads, i)
	}
	return p
}

package sqlcx // want package:"idemfacts"

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	amqp "github.com/rabbitmq/amqp091-go"
	"github.com/redis/go-redis/v9"
	kafkago "github.com/segmentio/kafka-go"

	"github.com/idemkit/idem/guard"
)

type Event struct {
	ID     string
	UserID int64
	Amount int64
	Phone  string
}

type Worker struct {
	DB    *sql.DB
	Q     *Queries
	SMS   *SMS
	Store *guard.SQLStore
}

// --- sqlc-style dedup method ------------------------------------------------------------

// The record and the effect share the transaction: guarded.
func (w *Worker) dedupInTx(ctx context.Context, d amqp.Delivery) error {
	var e Event
	if err := json.Unmarshal(d.Body, &e); err != nil {
		return d.Reject(false)
	}
	tx, err := w.DB.BeginTx(ctx, nil)
	if err != nil {
		return d.Nack(false, true)
	}
	defer tx.Rollback()
	q := w.Q.WithTx(tx)
	n, err := q.MarkProcessed(ctx, "points", d.MessageId)
	if err != nil {
		return d.Nack(false, true)
	}
	if n == 0 {
		return d.Ack(false)
	}
	if err := q.AddPoints(ctx, int32(e.Amount), e.UserID); err != nil {
		return d.Nack(false, true)
	}
	if err := tx.Commit(); err != nil {
		return d.Nack(false, true)
	}
	return d.Ack(false)
}

// The record commits on its own, then the effect in a transaction.
func (w *Worker) dedupOutsideTx(ctx context.Context, d amqp.Delivery) error {
	var e Event
	_ = json.Unmarshal(d.Body, &e)
	n, err := w.Q.MarkProcessed(ctx, "points", d.MessageId)
	if err != nil || n == 0 {
		return d.Ack(false)
	}
	tx, err := w.DB.BeginTx(ctx, nil)
	if err != nil {
		return d.Nack(false, true)
	}
	defer tx.Rollback()
	if err := w.Q.WithTx(tx).AddPoints(ctx, int32(e.Amount), e.UserID); err != nil { // want `dedup record sqlcx.Queries.MarkProcessed and effect sqlcx.Queries.AddPoints → .* in handler Worker.dedupOutsideTx are in different transactions: .*\(IDEM006\)`
		return d.Nack(false, true)
	}
	if err := tx.Commit(); err != nil {
		return d.Nack(false, true)
	}
	return d.Ack(false)
}

// The rows affected are never looked at.
func (w *Worker) dedupIgnored(ctx context.Context, d amqp.Delivery) error {
	var e Event
	_ = json.Unmarshal(d.Body, &e)
	if _, err := w.Q.MarkProcessed(ctx, "points", d.MessageId); err != nil { // want `result of dedup check sqlcx.Queries.MarkProcessed in handler Worker.dedupIgnored never decides a branch; .*\(IDEM004\)`
		return d.Nack(false, true)
	}
	if err := w.Q.AddPoints(ctx, int32(e.Amount), e.UserID); err != nil { // reported once, as the IDEM004 above
		return d.Nack(false, true)
	}
	return d.Ack(false)
}

// Decoy: a count is no dedup.
func (w *Worker) countIsNoDedup(ctx context.Context, d amqp.Delivery) error {
	var e Event
	_ = json.Unmarshal(d.Body, &e)
	n, err := w.Q.Processed(ctx, "points")
	if err != nil || n == 0 {
		return d.Nack(false, true)
	}
	if err := w.Q.AddPoints(ctx, int32(e.Amount), e.UserID); err != nil { // want `effect sqlcx.Queries.AddPoints → .* in handler Worker.countIsNoDedup is not guarded by a dedup check \(IDEM001\)`
		return d.Nack(false, true)
	}
	return d.Ack(false)
}

// --- an Idempotency-Key sent only when the key is not empty ---------------------------

func (w *Worker) smsNoKey(ctx context.Context, d amqp.Delivery) error {
	var e Event
	_ = json.Unmarshal(d.Body, &e)
	if err := w.SMS.Send(ctx, e.Phone, "shipped"); err != nil { // want `effect sqlcx.SMS.Send → sqlcx.SMS.post → http.Client.Do POST in handler Worker.smsNoKey is not guarded by a dedup check \(IDEM001\)`
		return d.Nack(false, true)
	}
	return d.Ack(false)
}

func (w *Worker) smsKeyed(ctx context.Context, d amqp.Delivery) error {
	var e Event
	_ = json.Unmarshal(d.Body, &e)
	if err := w.SMS.SendWithKey(ctx, e.Phone, "shipped", "ship:"+e.ID); err != nil {
		return d.Nack(false, true)
	}
	return d.Ack(false)
}

func (w *Worker) smsEmptyKey(ctx context.Context, d amqp.Delivery) error {
	var e Event
	_ = json.Unmarshal(d.Body, &e)
	if err := w.SMS.SendWithKey(ctx, e.Phone, "shipped", ""); err != nil { // want `effect sqlcx.SMS.SendWithKey → sqlcx.SMS.post → http.Client.Do POST in handler Worker.smsEmptyKey is not guarded by a dedup check \(IDEM001\)`
		return d.Nack(false, true)
	}
	return d.Ack(false)
}

func (w *Worker) smsLogged(ctx context.Context, d amqp.Delivery) error {
	var e Event
	_ = json.Unmarshal(d.Body, &e)
	if err := w.SMS.SendLogged(ctx, e.Phone, e.ID, false); err != nil { // want `IDEM001`
		return d.Nack(false, true)
	}
	return d.Ack(false)
}

// --- goroutines that run guarded work ----------------------------------------------------

func (w *Worker) apply(e Event) func(context.Context, *sql.Tx) error {
	return func(ctx context.Context, tx *sql.Tx) error {
		return w.Q.WithTx(tx).AddPoints(ctx, int32(e.Amount), e.UserID)
	}
}

// Guarded, but not waited for: the ack can come first and a crash loses it.
func (w *Worker) goGuardedNotWaited(ctx context.Context, msgs <-chan amqp.Delivery) {
	for d := range msgs {
		var e Event
		_ = json.Unmarshal(d.Body, &e)
		go func() { // want `goroutine with effect guard.SQLStore.Do \(guarded\) in handler Worker.goGuardedNotWaited is not waited for before the ack: a crash loses the message \(IDEM002\)`
			_, _ = w.Store.Do(ctx, "points", e.ID, d.Body, w.apply(e))
		}()
		_ = d.Ack(false)
	}
}

// Waited for before the ack: fine.
func (w *Worker) goGuardedWaited(ctx context.Context, msgs <-chan amqp.Delivery) {
	for d := range msgs {
		var e Event
		_ = json.Unmarshal(d.Body, &e)
		var wg sync.WaitGroup
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, _ = w.Store.Do(ctx, "points", e.ID, d.Body, w.apply(e))
		}()
		wg.Wait()
		_ = d.Ack(false)
	}
}

// A goroutine that only logs is no effect.
func (w *Worker) goLogOnly(ctx context.Context, msgs <-chan amqp.Delivery) {
	for d := range msgs {
		go func() { println(d.MessageId) }()
		_, _ = w.Store.Do(ctx, "points", d.MessageId, d.Body, w.apply(Event{}))
		_ = d.Ack(false)
	}
}

// --- check-then-act: the record is the later INSERT, not the lookup ---------------------

// On the pool the effect commits before the record: a crash between them
// runs the effect again.
func lookupThenAct(ctx context.Context, db *sql.DB, d amqp.Delivery) error {
	var one int
	err := db.QueryRowContext(ctx, `SELECT 1 FROM processed_messages WHERE msg_id = $1`, d.MessageId).Scan(&one)
	if err == nil {
		return d.Ack(false)
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return d.Nack(false, true)
	}
	if _, err := db.ExecContext(ctx, `UPDATE users SET points = points + 1 WHERE id = $1`, d.MessageId); err != nil { // want `dedup record sql.DB.ExecContext "INSERT INTO processed_messages .*" \(looked up by sql.DB.QueryRowContext "SELECT 1 FROM processed_messages .*"\) and effect sql.DB.ExecContext "UPDATE users .*" in handler lookupThenAct are in different transactions: a crash between them runs the effect again on redelivery \(IDEM006\)`
		return d.Nack(false, true)
	}
	if _, err := db.ExecContext(ctx, `INSERT INTO processed_messages (msg_id) VALUES ($1)`, d.MessageId); err != nil {
		return d.Nack(false, true)
	}
	return d.Ack(false)
}

// In one transaction: accepted (IDEM005 only with -strict).
func lookupThenActTx(ctx context.Context, db *sql.DB, d amqp.Delivery) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return d.Nack(false, true)
	}
	defer tx.Rollback()
	var one int
	err = tx.QueryRowContext(ctx, `SELECT 1 FROM processed_messages WHERE msg_id = $1`, d.MessageId).Scan(&one)
	if err == nil {
		return d.Ack(false)
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return d.Nack(false, true)
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO processed_messages (msg_id) VALUES ($1)`, d.MessageId); err != nil {
		return d.Nack(false, true)
	}
	if _, err := tx.ExecContext(ctx, `UPDATE users SET points = points + 1 WHERE id = $1`, d.MessageId); err != nil {
		return d.Nack(false, true)
	}
	if err := tx.Commit(); err != nil {
		return d.Nack(false, true)
	}
	return d.Ack(false)
}

// --- worker pools, acks before guarded work, helpers -------------------------------------

// Messages handed to a worker pool and committed at once.
func poolCommitsFirst(ctx context.Context, r *kafkago.Reader, st *guard.SQLStore, w *Worker) error {
	jobs := make(chan kafkago.Message, 8)
	for i := 0; i < 4; i++ {
		go func() {
			for m := range jobs {
				_, _ = st.Do(ctx, "points", string(m.Key), m.Value, w.apply(Event{}))
			}
		}()
	}
	for {
		m, err := r.FetchMessage(ctx)
		if err != nil {
			return err
		}
		jobs <- m // want `message handed over a channel to a goroutine with effect guard.SQLStore.Do \(guarded\) in handler poolCommitsFirst is not waited for before the ack: a crash loses the message \(IDEM002\)`
		if err := r.CommitMessages(ctx, m); err != nil {
			return err
		}
	}
}

// Acked before the guarded work runs.
func ackBeforeGuard(ctx context.Context, cons jetstream.Consumer, st *guard.SQLStore, w *Worker) {
	cons.Consume(func(msg jetstream.Msg) {
		if err := msg.DoubleAck(ctx); err != nil { // want `ack jetstream.Msg.DoubleAck in handler func literal in ackBeforeGuard comes before effect guard.SQLStore.Do \(guarded\): a crash in between loses the message \(IDEM002\)`
			return
		}
		_, _ = st.Do(ctx, "points", string(msg.Data()), msg.Data(), w.apply(Event{}))
	})
}

// SET NX released when the effect fails is a dedup, not a lock; SET NX and
// INCRBY are still two commands (IDEM006).
func setNXReleasedOnFailure(ctx context.Context, rdb *redis.Client, m redis.XMessage) error {
	mark := "granted:" + m.ID
	fresh, err := rdb.SetNX(ctx, mark, 1, time.Hour).Result()
	if err != nil || !fresh {
		return err
	}
	if err := rdb.IncrBy(ctx, "points:"+m.ID, 10).Err(); err != nil { // want `dedup record redis.Client.SetNX and effect redis.Client.IncrBy in handler setNXReleasedOnFailure are in different transactions.*\(IDEM006\)`
		rdb.Del(ctx, mark)
		return err
	}
	return rdb.XAck(ctx, "orders", "g", m.ID).Err()
}

// A key minted per delivery, through a helper.
func setNXRandomKey(ctx context.Context, rdb *redis.Client, m redis.XMessage) error {
	ok, err := rdb.SetNX(ctx, "req:"+NewRequestID(), 1, time.Hour).Result()
	if err != nil || !ok {
		return err
	}
	return rdb.IncrBy(ctx, "points:"+m.ID, 10).Err() // want `effect redis.Client.IncrBy in handler setNXRandomKey is not guarded by a dedup check: the check redis.Client.SetNX guards nothing, its key is built from rand.Read, which differs on every delivery \(IDEM001\)`
}

// A dedup helper that returns SET NX's answer guards the send.
func firstSeenGuards(ctx context.Context, rdb *redis.Client, sms *SMS, m redis.XMessage) error {
	fresh, err := FirstSeen(ctx, rdb, m.ID)
	if err != nil || !fresh {
		return err
	}
	return sms.Send(ctx, "+1", "hi")
}

// Idempotency-Key: from the message (fine), minted per attempt (not a key).
func pushKeys(ctx context.Context, hc *http.Client, m redis.XMessage) error {
	if err := Push(ctx, hc, "push:"+m.ID, "a"); err != nil {
		return err
	}
	return Push(ctx, hc, strconv.FormatInt(time.Now().UnixNano(), 10), "b") // want `effect sqlcx.Push → http.Client.Do POST in handler pushKeys is not guarded by a dedup check \(IDEM001\)`
}

package sqlcx

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"os"
	"time"

	"github.com/IBM/sarama"
	"github.com/nats-io/nats.go/jetstream"
	amqp "github.com/rabbitmq/amqp091-go"
	"github.com/redis/go-redis/v9"

	"github.com/idemkit/idem/guard"
)

// What the second held-out set found, as cases.

func parse(b []byte) (Event, error) {
	var e Event
	if err := json.Unmarshal(b, &e); err != nil {
		return e, err
	}
	if e.ID == "" {
		return e, errors.New("no id")
	}
	return e, nil
}

// Marking a message that a helper of this package cannot parse drops a
// poison message: no IDEM003.
type Skipper struct{ Q *Queries }

func (h *Skipper) Setup(sarama.ConsumerGroupSession) error   { return nil }
func (h *Skipper) Cleanup(sarama.ConsumerGroupSession) error { return nil }

func (h *Skipper) ConsumeClaim(sess sarama.ConsumerGroupSession, claim sarama.ConsumerGroupClaim) error {
	for msg := range claim.Messages() {
		e, err := parse(msg.Value)
		if err != nil {
			sess.MarkMessage(msg, "")
			continue
		}
		n, err := h.Q.MarkProcessed(sess.Context(), "points", e.ID)
		if err != nil {
			return err
		}
		if n > 0 {
			if err := h.Q.AddPoints(sess.Context(), int32(e.Amount), e.UserID); err != nil {
				return err
			}
		}
		sess.MarkMessage(msg, "")
	}
	return nil
}

// A retry loop that breaks on success and tests the error again after the
// loop acks only on success: no IDEM003 (the effect is unguarded: IDEM001).
func (w *Worker) retryThenAck(ctx context.Context, d amqp.Delivery) {
	var err error
	for attempt := 0; attempt < 3; attempt++ {
		_, err = w.DB.ExecContext(ctx, `UPDATE stock SET qty = qty - 1 WHERE sku = $1`, d.MessageId) // want `IDEM001`
		if err == nil {
			break
		}
		time.Sleep(time.Millisecond)
	}
	if err != nil {
		_ = d.Nack(false, true)
		return
	}
	_ = d.Ack(false)
}

// A deferred ack around a guarded Do whose error is returned: IDEM003.
func (w *Worker) deferAckGuarded(ctx context.Context, d amqp.Delivery) error {
	defer d.Ack(false) // want `deferred ack amqp091.Delivery.Ack in handler Worker.deferAckGuarded also runs when handling fails: the error is swallowed and the message lost \(IDEM003\)`
	_, err := w.Store.Do(ctx, "points", d.MessageId, d.Body, w.apply(Event{}))
	return err
}

// An auto-ack queue loses a message whose guarded effect had not run yet.
func (w *Worker) autoAckGuarded(ctx context.Context, ch *amqp.Channel) error {
	msgs, err := ch.Consume("q", "", true, false, false, false, nil) // want `auto-ack consumer amqp091.Channel.Consume \(autoAck true\) acks each message before handler Worker.autoAckGuarded performs guard.SQLStore.Do \(guarded\): a crash loses the message \(IDEM007\)`
	if err != nil {
		return err
	}
	for d := range msgs {
		if _, err := w.Store.Do(ctx, "points", d.MessageId, d.Body, w.apply(Event{})); err != nil {
			log.Print(err)
		}
	}
	return nil
}

// An outbox row keyed by the event with ON CONFLICT DO NOTHING is an
// idempotent write, not a check to decide on: no IDEM004.
func relayOutbox(ctx context.Context, db *sql.DB, d amqp.Delivery) error {
	if _, err := db.ExecContext(ctx, `INSERT INTO outbox (event_id, payload) VALUES ($1, $2) ON CONFLICT DO NOTHING`, d.MessageId, d.Body); err != nil {
		return d.Nack(false, true)
	}
	return d.Ack(false)
}

// Keys new on every delivery: the worker's name with the clock, and the
// JetStream consumer sequence.
func (w *Worker) clockKey(ctx context.Context, msg jetstream.Msg) {
	host, _ := os.Hostname()
	key := fmt.Sprintf("%s-%d", host, time.Now().UnixNano())
	if err := w.SMS.SendWithKey(ctx, "+1", "coupon", key); err != nil { // want `effect sqlcx.SMS.SendWithKey → sqlcx.SMS.post → http.Client.Do POST in handler Worker.clockKey is not guarded by a dedup check \(IDEM001\)`
		_ = msg.Nak()
		return
	}
	_ = msg.Ack()
}

func (w *Worker) consumerSeqKey(ctx context.Context, rdb *redis.Client, msg jetstream.Msg) {
	meta, err := msg.Metadata()
	if err != nil {
		_ = msg.Term()
		return
	}
	ok, err := rdb.SetNX(ctx, fmt.Sprintf("seen:%d", meta.Sequence.Consumer), 1, time.Hour).Result()
	if err != nil || !ok {
		_ = msg.Ack()
		return
	}
	_ = w.SMS.Send(ctx, "+1", "reminder") // want `effect sqlcx.SMS.Send → .* in handler Worker.consumerSeqKey is not guarded by a dedup check: the check redis.Client.SetNX guards nothing, its key is built from jetstream.SequencePair.Consumer, which differs on every delivery \(IDEM001\)`
	_ = msg.Ack()                         // want `also runs when .* fails: its error is discarded and the message lost \(IDEM003\)`
}

// The stream sequence is the message's own: a dedup key.
func (w *Worker) streamSeqKey(ctx context.Context, rdb *redis.Client, msg jetstream.Msg) {
	meta, err := msg.Metadata()
	if err != nil {
		_ = msg.Term()
		return
	}
	ok, err := rdb.SetNX(ctx, fmt.Sprintf("seen:%d", meta.Sequence.Stream), 1, time.Hour).Result()
	if err != nil || !ok {
		_ = msg.Ack()
		return
	}
	_ = w.SMS.Send(ctx, "+1", "reminder")
	_ = msg.Ack() // want `also runs when .* fails: its error is discarded and the message lost \(IDEM003\)`
}

var _ = guard.Applied

func flatten(res []redis.XStream) []redis.XMessage {
	var out []redis.XMessage
	for _, s := range res {
		out = append(out, s.Messages...)
	}
	return out
}

// The whole batch acked before it is handled.
func (w *Worker) batchAckFirst(ctx context.Context, rdb *redis.Client) error {
	for {
		res, err := rdb.XReadGroup(ctx, &redis.XReadGroupArgs{Group: "g", Consumer: "c", Streams: []string{"s", ">"}, Count: 10}).Result()
		if err != nil {
			return err
		}
		msgs := flatten(res)
		ids := make([]string, 0, len(msgs))
		for _, m := range msgs {
			ids = append(ids, m.ID)
		}
		if err := rdb.XAck(ctx, "s", "g", ids...).Err(); err != nil { // want `ack redis.Client.XAck in handler Worker.batchAckFirst comes before effect guard.SQLStore.Do \(guarded\): a crash in between loses the message \(IDEM002\)`
			return err
		}
		for _, m := range msgs {
			if _, err := w.Store.Do(ctx, "points", m.ID, nil, w.apply(Event{})); err != nil {
				log.Print(err)
			}
		}
	}
}

// The whole batch acked after it is handled: fine.
func (w *Worker) batchAckLast(ctx context.Context, rdb *redis.Client) error {
	for {
		res, err := rdb.XReadGroup(ctx, &redis.XReadGroupArgs{Group: "g", Consumer: "c", Streams: []string{"s", ">"}, Count: 10}).Result()
		if err != nil {
			return err
		}
		msgs := flatten(res)
		ids := make([]string, 0, len(msgs))
		for _, m := range msgs {
			if _, err := w.Store.Do(ctx, "points", m.ID, nil, w.apply(Event{})); err != nil {
				return err
			}
			ids = append(ids, m.ID)
		}
		if err := rdb.XAck(ctx, "s", "g", ids...).Err(); err != nil {
			return err
		}
	}
}

// WATCH the marker, EXISTS it, and queue the marker with the effect in one
// MULTI: the lookup and the record are atomic, a dedup written by hand.
func watched(ctx context.Context, rdb *redis.Client, m redis.XMessage) error {
	marker := "done:" + m.ID
	err := rdb.Watch(ctx, func(tx *redis.Tx) error {
		n, err := tx.Exists(ctx, marker).Result()
		if err != nil || n > 0 {
			return err
		}
		_, err = tx.TxPipelined(ctx, func(pipe redis.Pipeliner) error {
			pipe.Set(ctx, marker, 1, time.Hour)
			pipe.HIncrBy(ctx, "stats", "orders", 1)
			return nil
		})
		return err
	}, marker)
	if err != nil {
		return err
	}
	return rdb.XAck(ctx, "s", "g", m.ID).Err()
}

// The same without the marker: nothing records the key.
func watchedNoMarker(ctx context.Context, rdb *redis.Client, m redis.XMessage) error {
	marker := "done:" + m.ID
	err := rdb.Watch(ctx, func(tx *redis.Tx) error { // want `effect func literal → func literal → redis.Pipeliner.HIncrBy in handler watchedNoMarker is not guarded by a dedup check`
		n, err := tx.Exists(ctx, marker).Result()
		if err != nil || n > 0 {
			return err
		}
		_, err = tx.TxPipelined(ctx, func(pipe redis.Pipeliner) error {
			pipe.HIncrBy(ctx, "stats", "orders", 1)
			return nil
		})
		return err
	}, marker)
	if err != nil {
		return err
	}
	return rdb.XAck(ctx, "s", "g", m.ID).Err()
}

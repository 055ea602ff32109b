// Package js: JetStream handlers (jetstream package and legacy nats.go),
// guarded with the idem guard stores and generated handlers.
package js

import (
	"context"
	"database/sql"
	"errors"
	"log"
	"net/http"
	"strings"
	"time"

	"github.com/idemkit/idem/guard"
	"github.com/idemkit/idem/guard/redisguard"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/redis/go-redis/v9"

	"orders"
	"shop"
)

// --- naive ----------------------------------------------------------------------

func naiveDeduct(db *sql.DB) jetstream.MessageHandler {
	return func(msg jetstream.Msg) {
		o, err := shop.Decode(msg.Data())
		if err != nil {
			msg.Term()
			return
		}
		if _, err := db.Exec(`UPDATE stock SET qty = qty - $1 WHERE sku = $2`, o.Qty, o.SKU); err != nil { // want `effect sql.DB.Exec "UPDATE stock .*" in handler func literal in naiveDeduct is not guarded`
			msg.Nak()
			return
		}
		msg.Ack()
	}
}

func naivePoints(rdb *redis.Client) jetstream.MessageHandler {
	return func(msg jetstream.Msg) {
		o, _ := shop.Decode(msg.Data())
		if err := rdb.IncrBy(context.Background(), "points:"+o.User, int64(o.Qty)).Err(); err != nil { // want `effect redis.Client.IncrBy in handler func literal in naivePoints`
			msg.Nak()
			return
		}
		msg.Ack()
	}
}

func naiveSMS(msg jetstream.Msg) {
	o, _ := shop.Decode(msg.Data())
	if err := shop.SMS.Send(context.Background(), o.Phone, "shipped"); err != nil { // want `effect smsdk.Client.Send → http.Client.Do POST in handler naiveSMS`
		msg.Nak()
		return
	}
	msg.Ack()
}

func naiveStats(rdb *redis.Client, msg jetstream.Msg) error {
	o, _ := shop.Decode(msg.Data())
	pipe := rdb.TxPipeline()
	pipe.HIncrBy(context.Background(), "stats:"+o.Day, "orders", 1)         // want `IDEM001`
	pipe.HIncrBy(context.Background(), "stats:"+o.Day, "gmv", int64(o.GMV)) // want `IDEM001`
	if _, err := pipe.Exec(context.Background()); err != nil {
		return err
	}
	return msg.Ack()
}

// --- correct with the guard stores ---------------------------------------------------

func deduct(store *guard.SQLStore) jetstream.MessageHandler {
	return func(msg jetstream.Msg) {
		o, err := shop.Decode(msg.Data())
		if err != nil {
			msg.Term()
			return
		}
		_, err = store.Do(context.Background(), "deduct_inventory", o.ID+"/"+o.SKU, nil, func(ctx context.Context, tx *sql.Tx) error {
			_, err := tx.ExecContext(ctx, `UPDATE stock SET qty = qty - $1 WHERE sku = $2`, o.Qty, o.SKU)
			return err
		})
		if err != nil {
			if guard.Permanent(err) {
				msg.Term()
				return
			}
			msg.Nak()
			return
		}
		msg.Ack()
	}
}

func points(store *redisguard.Store, msg jetstream.Msg) error {
	o, err := shop.Decode(msg.Data())
	if err != nil {
		return msg.Term()
	}
	_, err = store.Do(context.Background(), "add_points", o.ID, nil, func(ctx context.Context, pipe redis.Pipeliner) error {
		pipe.IncrBy(ctx, "points:"+o.User, int64(o.Qty))
		return nil
	})
	if err != nil {
		return msg.Nak()
	}
	return msg.Ack()
}

func sms(store guard.Store, msg jetstream.Msg) error {
	o, err := shop.Decode(msg.Data())
	if err != nil {
		return msg.Term()
	}
	_, err = store.Run(context.Background(), "send_sms", o.ID, nil, func(ctx context.Context, l *guard.Lease) error {
		req, err := http.NewRequestWithContext(ctx, "POST", "https://sms.example", strings.NewReader(o.Phone))
		if err != nil {
			return err
		}
		req.Header.Set("Idempotency-Key", l.Key())
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return err
		}
		return resp.Body.Close()
	})
	if err != nil {
		return msg.Nak()
	}
	return msg.Ack()
}

func stats(store *guard.SQLStore, db *sql.DB, msg jetstream.Msg) error {
	ctx := context.Background()
	o, err := shop.Decode(msg.Data())
	if err != nil {
		return msg.Term()
	}
	lease, err := store.Claim(ctx, "update_stats", o.ID+"/"+o.Day, nil)
	if err != nil {
		return msg.Nak()
	}
	if lease.Outcome() == guard.Duplicate {
		return msg.Ack()
	}
	if err := shop.BumpStats(ctx, db, o.Day, o.GMV); err != nil {
		lease.Release(ctx)
		return msg.Nak()
	}
	if err := lease.Complete(ctx, nil); err != nil {
		return msg.Nak()
	}
	return msg.Ack()
}

// A generated handler: Handle claims, applies and records.
func generated(h *orders.DeductInventoryHandler) jetstream.MessageHandler {
	return func(msg jetstream.Msg) {
		out, err := h.Handle(context.Background(), msg.Data())
		switch {
		case err == nil:
			log.Print(out)
			msg.Ack()
		case guard.Permanent(err):
			msg.Term()
		default:
			var ip *guard.InProgressError
			if errors.As(err, &ip) {
				msg.NakWithDelay(ip.RetryAfter)
				return
			}
			msg.Nak()
		}
	}
}

// --- mistakes with the guard ------------------------------------------------------------

// The apply function writes through db, not the transaction it is given.
func wrongTx(store *guard.SQLStore, db *sql.DB, msg jetstream.Msg) error {
	o, _ := shop.Decode(msg.Data())
	_, err := store.Do(context.Background(), "add_points", o.ID, nil, func(ctx context.Context, tx *sql.Tx) error {
		_, err := db.ExecContext(ctx, `UPDATE users SET points = points + $1 WHERE id = $2`, o.Qty, o.User) // want `effect sql.DB.ExecContext .* in the apply function of guard.SQLStore.Do does not use its transaction.*\(IDEM006\)`
		return err
	})
	if err != nil {
		return msg.Nak()
	}
	return msg.Ack()
}

// The key is new on every delivery.
func freshKey(store *guard.SQLStore, msg jetstream.Msg) error {
	key := time.Now().Format(time.RFC3339Nano)
	_, err := store.Do(context.Background(), "add_points", key, nil, func(ctx context.Context, tx *sql.Tx) error { // want `effect func literal → sql.Tx.ExecContext .* is not guarded by a dedup check: the check guard.SQLStore.Do guards nothing, its key is built from time.Now`
		_, err := tx.ExecContext(ctx, `UPDATE users SET points = points + 1 WHERE id = $1`, string(msg.Data()))
		return err
	})
	if err != nil {
		return msg.Nak()
	}
	return msg.Ack()
}

// The lease outcome is never looked at.
func claimIgnored(store *guard.SQLStore, db *sql.DB, msg jetstream.Msg) error {
	ctx := context.Background()
	o, _ := shop.Decode(msg.Data())
	lease, err := store.Claim(ctx, "update_stats", o.ID, nil) // want `result of dedup check guard.SQLStore.Claim in handler claimIgnored never decides a branch; shop.BumpStats → .* runs for duplicates too \(IDEM004\)`
	if err != nil {
		return msg.Nak()
	}
	shop.BumpStats(ctx, db, o.Day, o.GMV)
	lease.Complete(ctx, nil)
	return msg.Ack() // want `also runs when .* fails: its error is discarded and the message lost \(IDEM003\)`
}

// --- loops ---------------------------------------------------------------------------

func fetchLoop(ctx context.Context, cons jetstream.Consumer, db *sql.DB) error {
	shop.AddPoints(ctx, db, "setup", 0) // not a message's effect: before the first fetch
	for {
		batch, err := cons.Fetch(10)
		if err != nil {
			return err
		}
		for msg := range batch.Messages() {
			o, _ := shop.Decode(msg.Data())
			shop.AddPoints(ctx, db, o.User, o.Qty) // want `IDEM001`
			msg.Ack()                              // want `also runs when .* fails: its error is discarded and the message lost \(IDEM003\)`
		}
	}
}

func nextLoop(ctx context.Context, cons jetstream.Consumer, db *sql.DB) error {
	for {
		msg, err := cons.Next()
		if err != nil {
			return err
		}
		msg.DoubleAck(ctx) // want `IDEM002`
		o, _ := shop.Decode(msg.Data())
		shop.AddPoints(ctx, db, o.User, o.Qty) // want `IDEM001`
	}
}

// --- legacy nats.go JetStream: Subscribe acks when the callback returns --------------

func legacyAutoAck(js nats.JetStreamContext, db *sql.DB) error {
	_, err := js.Subscribe("orders", func(m *nats.Msg) { // want `auto-ack consumer nats.JetStreamContext.Subscribe \(no ManualAck\) acks each message before handler func literal in legacyAutoAck performs .*\(IDEM007\)`
		o, _ := shop.Decode(m.Data)
		shop.AddPoints(context.Background(), db, o.User, o.Qty) // want `IDEM001`
	})
	return err
}

func legacyManual(js nats.JetStreamContext, db *sql.DB) error {
	_, err := js.Subscribe("orders", func(m *nats.Msg) {
		ctx := context.Background()
		o, _ := shop.Decode(m.Data)
		tx, _ := db.BeginTx(ctx, nil)
		fresh, err := shop.Claim(ctx, tx, "points", o.ID)
		if err != nil {
			m.Nak()
			return
		}
		if fresh {
			if err := shop.AddPoints(ctx, tx, o.User, o.Qty); err != nil {
				m.Nak()
				return
			}
			tx.Commit()
		}
		m.Ack()
	}, nats.ManualAck())
	return err
}

// Core NATS has no acks; a handler that only logs.
func coreLog(nc *nats.Conn) {
	nc.Subscribe("events", func(m *nats.Msg) {
		log.Printf("%s", m.Data)
	})
}

// ackedBatch acks each message of a pulled batch before it decodes and
// applies it: a crash, or a failure, after the ack loses the message.
func ackedBatch(ctx context.Context, db *sql.DB, sub *nats.Subscription) {
	for {
		msgs, err := sub.Fetch(10)
		if err != nil {
			continue
		}
		for i := range msgs {
			if err := msgs[i].Ack(); err != nil { // want `ack nats.Msg.Ack in handler ackedBatch comes before effect` `IDEM003`
				continue
			}
			o, err := shop.Decode(msgs[i].Data)
			if err != nil {
				continue
			}
			if _, err := db.Exec(`UPDATE stock SET qty = qty - $1 WHERE sku = $2`, o.Qty, o.SKU); err != nil { // want `IDEM001`
				log.Print(err)
			}
		}
	}
}

// batchSkipped leaves a failed message of a pulled batch unacked and goes
// on to the next: JetStream redelivers it after its ack wait, so acking
// the next one loses nothing.
func batchSkipped(ctx context.Context, db *sql.DB, sub *nats.Subscription) {
	for {
		msgs, err := sub.Fetch(10)
		if err != nil {
			continue
		}
		for i := range msgs {
			o, err := shop.Decode(msgs[i].Data)
			if err != nil {
				msgs[i].Term()
				continue
			}
			if _, err := db.Exec(`UPDATE stock SET qty = $1 WHERE sku = $2`, o.Qty, o.SKU); err != nil {
				log.Print(err)
				continue
			}
			msgs[i].Ack()
		}
	}
}

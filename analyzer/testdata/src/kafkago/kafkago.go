package kafkago // want package:"idemfacts"

// segmentio/kafka-go readers.

import (
	"context"
	"database/sql"
	"log"

	"github.com/segmentio/kafka-go"

	"shop"
)

// FetchMessage + CommitMessages after the effect: the at-least-once loop.
func naive(ctx context.Context, r *kafka.Reader, db *sql.DB) error {
	for {
		m, err := r.FetchMessage(ctx)
		if err != nil {
			return err
		}
		o, err := shop.Decode(m.Value)
		if err != nil {
			r.CommitMessages(ctx, m)
			continue
		}
		if err := shop.DeductStock(ctx, db, o.SKU, o.Qty); err != nil { // want `IDEM001`
			return err
		}
		if err := shop.AddPoints(ctx, db, o.User, o.Qty); err != nil { // want `IDEM001`
			return err
		}
		if err := shop.SendSMS(ctx, o.Phone, "hi"); err != nil { // want `IDEM001`
			return err
		}
		if err := shop.BumpStats(ctx, db, o.Day, o.GMV); err != nil { // want `IDEM001`
			return err
		}
		if err := r.CommitMessages(ctx, m); err != nil {
			return err
		}
	}
}

func correct(ctx context.Context, r *kafka.Reader, db *sql.DB) error {
	for {
		m, err := r.FetchMessage(ctx)
		if err != nil {
			return err
		}
		o, err := shop.Decode(m.Value)
		if err != nil {
			r.CommitMessages(ctx, m)
			continue
		}
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		fresh, err := shop.Claim(ctx, tx, "orders", string(m.Key))
		if err != nil {
			tx.Rollback()
			return err
		}
		if fresh {
			if err := shop.DeductStock(ctx, tx, o.SKU, o.Qty); err != nil {
				tx.Rollback()
				return err
			}
			if err := shop.AddPoints(ctx, tx, o.User, o.Qty); err != nil {
				tx.Rollback()
				return err
			}
			if err := shop.BumpStats(ctx, tx, o.Day, o.GMV); err != nil {
				tx.Rollback()
				return err
			}
			if err := tx.Commit(); err != nil {
				return err
			}
		} else {
			tx.Rollback()
		}
		if err := r.CommitMessages(ctx, m); err != nil {
			return err
		}
	}
}

// ReadMessage on a reader with a GroupID commits as it reads.
func autoCommit(ctx context.Context, db *sql.DB) error {
	r := kafka.NewReader(kafka.ReaderConfig{Brokers: []string{"localhost:9092"}, GroupID: "points", Topic: "orders"})
	for {
		m, err := r.ReadMessage(ctx) // want `auto-ack consumer kafka.Reader.ReadMessage \(commits by itself\) acks each message before handler autoCommit performs .*\(IDEM007\)`
		if err != nil {
			return err
		}
		o, _ := shop.Decode(m.Value)
		shop.AddPoints(ctx, db, o.User, o.Qty) // want `IDEM001`
	}
}

// Without a GroupID nothing is committed: no auto-ack.
func noGroup(ctx context.Context, db *sql.DB) error {
	r := kafka.NewReader(kafka.ReaderConfig{Brokers: []string{"localhost:9092"}, Topic: "orders", Partition: 0})
	for {
		m, err := r.ReadMessage(ctx)
		if err != nil {
			return err
		}
		o, _ := shop.Decode(m.Value)
		shop.SetPhone(ctx, db, o.User, o.Phone)
	}
}

func commitFirst(ctx context.Context, r *kafka.Reader, db *sql.DB) error {
	for {
		m, err := r.FetchMessage(ctx)
		if err != nil {
			return err
		}
		r.CommitMessages(ctx, m) // want `IDEM002`
		o, _ := shop.Decode(m.Value)
		shop.AddPoints(ctx, db, o.User, o.Qty) // want `IDEM001`
	}
}

// The commit of one message does not precede the next message's effect.
func commitAfterPure(ctx context.Context, r *kafka.Reader) error {
	for {
		m, err := r.FetchMessage(ctx)
		if err != nil {
			return err
		}
		println(string(m.Value))
		r.CommitMessages(ctx, m)
	}
}

// A producer building kafka.Message values is no handler.
func produce(ctx context.Context, w *kafka.Writer, db *sql.DB, o shop.Order) error {
	return w.WriteMessages(ctx, kafka.Message{Key: []byte(o.ID)})
}

// A broker type reads through its reader field; each message is handled in
// a goroutine of its own: the read has committed it before the effect.
type broker struct {
	reader *kafka.Reader
}

func newBroker() *broker {
	return &broker{reader: kafka.NewReader(kafka.ReaderConfig{Brokers: []string{"localhost:9092"}, GroupID: "points", Topic: "orders"})}
}

func (b *broker) read(ctx context.Context) (kafka.Message, error) { return b.reader.ReadMessage(ctx) }

func (b *broker) run(ctx context.Context, db *sql.DB) {
	for ctx.Err() == nil {
		m, err := b.read(ctx) // want `auto-ack consumer kafkago.broker.read \(commits by itself\) acks each message before handler broker.run performs func literal → shop.AddPoints .*\(IDEM007\)`
		if err != nil {
			continue
		}
		go func(m kafka.Message) {
			o, _ := shop.Decode(m.Value)
			shop.AddPoints(ctx, db, o.User, o.Qty) // want `effect shop.AddPoints .* in handler func literal in broker.run is not guarded by a dedup check \(IDEM001\)`
		}(m)
	}
}

// A loop over messages from a source idemlint does not know (a func value
// here, an instrumentation wrapper's reader in real code) calls a handler
// of one message: no handler above it reports its effect, so it does.
func pump(ctx context.Context, db *sql.DB, next func(context.Context) (kafka.Message, error)) { // want pump:`effects\(kafkago.handleOne → shop.AddPoints .*\)`
	for ctx.Err() == nil {
		m, err := next(ctx)
		if err != nil {
			continue
		}
		handleOne(ctx, db, &m)
	}
}

func handleOne(ctx context.Context, db *sql.DB, m *kafka.Message) { // want handleOne:`effects\(shop.AddPoints .*\)`
	o, _ := shop.Decode(m.Value)
	shop.AddPoints(ctx, db, o.User, o.Qty) // want `IDEM001`
}

// A fetch loop hands each message to a helper without results that logs a
// failed step and returns, then commits: the helper reports success, and
// the loop commits past the failure.
func fetchAndHandle(ctx context.Context, r *kafka.Reader, db *sql.DB) {
	for ctx.Err() == nil {
		m, err := r.FetchMessage(ctx)
		if err != nil {
			continue
		}
		handleLogged(ctx, db, m)
		r.CommitMessages(ctx, m) // want `ack kafka.Reader.CommitMessages in handler fetchAndHandle also runs when shop.AddPoints \(inside kafkago.handleLogged, which reports success\) fails: its error is discarded and the message lost \(IDEM003\)`
	}
}

func handleLogged(ctx context.Context, db *sql.DB, m kafka.Message) { // want handleLogged:`effects\(shop.AddPoints .*\)`
	o, err := shop.Decode(m.Value)
	if err != nil {
		return
	}
	if err := shop.AddPoints(ctx, db, o.User, o.Qty); err != nil { // want `effect shop.AddPoints .* in handler handleLogged is not guarded`
		log.Printf("points: %v", err)
	}
}

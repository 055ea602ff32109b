// Package natsc holds NATS consumers: core, legacy JetStream and the jetstream package.
package natsc

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"log"

	"github.com/idemkit/idem/guard"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/redis/go-redis/v9"

	"example.com/realmod/db"
	"example.com/realmod/repo"
)

type Points struct {
	UserID int64  `json:"user_id"`
	N      int64  `json:"n"`
	ID     string `json:"id"`
}

// truth: bug IDEM007 IDEM001
func SubscribePointsLegacy(js nats.JetStreamContext, rdb *redis.Client) (*nats.Subscription, error) {
	return js.Subscribe("points.>", func(m *nats.Msg) {
		var p Points
		if err := json.Unmarshal(m.Data, &p); err != nil {
			return
		}
		rdb.IncrBy(context.Background(), "points:"+m.Subject, p.N)
	}, nats.Durable("points"))
}

// truth: ok
func ConsumeDeduct(ctx context.Context, cons jetstream.Consumer, st *guard.SQLStore, q *db.Queries) (jetstream.ConsumeContext, error) {
	return cons.Consume(func(msg jetstream.Msg) {
		var e struct {
			OrderID string
			SKU     string
			Qty     int32
		}
		if err := json.Unmarshal(msg.Data(), &e); err != nil {
			_ = msg.Term()
			return
		}
		if _, err := st.Do(ctx, "deduct_inventory", e.OrderID, msg.Data(), func(ctx context.Context, tx *sql.Tx) error {
			return q.WithTx(tx).DeductStock(ctx, e.Qty, e.SKU)
		}); err != nil {
			_ = msg.Nak()
			return
		}
		_ = msg.Ack()
	})
}

// truth: bug IDEM003
func ConsumeDeferAck(ctx context.Context, cons jetstream.Consumer, st *guard.SQLStore, q *db.Queries) (jetstream.ConsumeContext, error) {
	return cons.Consume(func(msg jetstream.Msg) {
		defer msg.Ack()
		var e struct {
			OrderID string
			SKU     string
			Qty     int32
		}
		if err := json.Unmarshal(msg.Data(), &e); err != nil {
			return
		}
		if _, err := st.Do(ctx, "deduct_inventory", e.OrderID, msg.Data(), func(ctx context.Context, tx *sql.Tx) error {
			return q.WithTx(tx).DeductStock(ctx, e.Qty, e.SKU)
		}); err != nil {
			log.Printf("deduct: %v", err)
			return
		}
	})
}

// truth: ok
func SubscribeProfile(nc *nats.Conn, profiles repo.ProfileRepo) (*nats.Subscription, error) {
	return nc.Subscribe("profile.updated", func(m *nats.Msg) {
		var p struct{ ID, Name string }
		if err := json.Unmarshal(m.Data, &p); err != nil {
			return
		}
		if err := profiles.SaveProfile(context.Background(), p.ID, p.Name); err != nil {
			log.Printf("save profile: %v", err)
		}
	})
}

// truth: bug IDEM005
func ConsumeCheckThenAct(ctx context.Context, cons jetstream.Consumer, sqldb *sql.DB) (jetstream.ConsumeContext, error) {
	return cons.Consume(func(msg jetstream.Msg) {
		var p Points
		if err := json.Unmarshal(msg.Data(), &p); err != nil {
			_ = msg.Term()
			return
		}
		var one int
		err := sqldb.QueryRowContext(ctx, `SELECT 1 FROM processed_messages WHERE msg_id = $1`, p.ID).Scan(&one)
		if err == nil {
			_ = msg.Ack() // already done
			return
		}
		if !errors.Is(err, sql.ErrNoRows) {
			_ = msg.Nak()
			return
		}
		if _, err := sqldb.ExecContext(ctx, `UPDATE users SET points = points + $1 WHERE id = $2`, p.N, p.UserID); err != nil {
			_ = msg.Nak()
			return
		}
		if _, err := sqldb.ExecContext(ctx, `INSERT INTO processed_messages (msg_id) VALUES ($1)`, p.ID); err != nil {
			_ = msg.Nak()
			return
		}
		_ = msg.Ack()
	})
}

// truth: bug IDEM001
func ConsumeWelcome(ctx context.Context, cons jetstream.Consumer, n repo.Notifier) (jetstream.ConsumeContext, error) {
	return cons.Consume(func(msg jetstream.Msg) {
		var p Points
		if err := json.Unmarshal(msg.Data(), &p); err != nil {
			_ = msg.Term()
			return
		}
		if err := n.SendWelcomeEmail(ctx, p.UserID); err != nil {
			_ = msg.Nak()
			return
		}
		_ = msg.Ack()
	})
}

// truth: ok
func ConsumeIndex(ctx context.Context, cons jetstream.Consumer, idx repo.Indexer) (jetstream.ConsumeContext, error) {
	return cons.Consume(func(msg jetstream.Msg) {
		var doc struct{ ID string }
		if err := json.Unmarshal(msg.Data(), &doc); err != nil {
			_ = msg.Term()
			return
		}
		if err := idx.AddDocument(ctx, doc.ID, msg.Data()); err != nil {
			_ = msg.Nak()
			return
		}
		_ = msg.Ack()
	})
}

// truth: ok
func ConsumeShipped(ctx context.Context, cons jetstream.Consumer, orders repo.OrderRepo) (jetstream.ConsumeContext, error) {
	return cons.Consume(func(msg jetstream.Msg) {
		if err := orders.MarkShipped(ctx, string(msg.Data())); err != nil {
			_ = msg.Nak()
			return
		}
		_ = msg.Ack()
	})
}

// truth: bug IDEM001
func ConsumeShipment(ctx context.Context, cons jetstream.Consumer, orders repo.OrderRepo) (jetstream.ConsumeContext, error) {
	return cons.Consume(func(msg jetstream.Msg) {
		if err := orders.CreateShipment(ctx, string(msg.Data()), "dhl"); err != nil {
			_ = msg.Nak()
			return
		}
		_ = msg.Ack()
	})
}

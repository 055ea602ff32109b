package idem003

import (
	"context"
	"database/sql"
	"encoding/json"
	"log"
	"net/http"

	"github.com/hibiken/asynq"
	amqp "github.com/rabbitmq/amqp091-go"
)

// points is a repository: AddPoints writes.
type points struct{ db *sql.DB }

func (p *points) AddPoints(ctx context.Context, user string, n int) error {
	_, err := p.db.ExecContext(ctx, `INSERT INTO points_ledger (msg_id, user_id, n) VALUES ($1, $2, $3) ON CONFLICT (msg_id) DO NOTHING`, user, user, n)
	return err
}

type award struct {
	User string `json:"user"`
	N    int    `json:"n"`
}

// discardedAck drops AddPoints' error and acks: a failed write is never
// done again.
func discardedAck(ctx context.Context, p *points, d amqp.Delivery) {
	var a award
	if err := json.Unmarshal(d.Body, &a); err != nil {
		d.Nack(false, false)
		return
	}
	_ = p.AddPoints(ctx, a.User, a.N)
	d.Ack(false) // want `ack amqp091.Delivery.Ack in handler discardedAck also runs when .*points.AddPoints fails: its error is discarded and the message lost \(IDEM003\)`
}

// discardedReturn is acked by its return: nil after a discarded failure
// acks a message whose write failed.
func discardedReturn(ctx context.Context, p *points, t *asynq.Task) error {
	var a award
	if err := json.Unmarshal(t.Payload(), &a); err != nil {
		return err
	}
	p.AddPoints(ctx, a.User, a.N)
	return nil // want `handler discardedReturn returns success when .*points.AddPoints fails: its error is discarded and the message acked and lost \(IDEM003\)`
}

// discardedHarmless drops only errors whose failure loses nothing: a
// decode it does not need, a read, a body's Close.
func discardedHarmless(ctx context.Context, p *points, c *http.Client, d amqp.Delivery) {
	var extra map[string]any
	_ = json.Unmarshal(d.Body, &extra)
	var total int
	_ = p.db.QueryRowContext(ctx, `SELECT n FROM points WHERE user_id = $1`, string(d.Body)).Scan(&total)
	if resp, err := c.Get("http://stats.internal/ping"); err == nil {
		_ = resp.Body.Close()
	}
	log.Print(total)
	d.Ack(false)
}

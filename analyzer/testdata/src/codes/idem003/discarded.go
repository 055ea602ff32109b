package idem003

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
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

// credit logs a failed write and returns: its callers cannot tell.
func (p *points) credit(ctx context.Context, user string, n int) {
	if err := p.AddPoints(ctx, user, n); err != nil {
		log.Print(err)
	}
}

// creditErr hands the failure on.
func (p *points) creditErr(ctx context.Context, user string, n int) error {
	if err := p.AddPoints(ctx, user, n); err != nil {
		return fmt.Errorf("credit %s: %w", user, err)
	}
	return nil
}

// swallowedInside acks after a callee swallowed the write's failure.
func swallowedInside(ctx context.Context, p *points, d amqp.Delivery) {
	p.credit(ctx, d.UserId, 1)
	d.Ack(false) // want `ack amqp091.Delivery.Ack in handler swallowedInside also runs when .*points.AddPoints \(inside .*points.credit, which reports success\) fails: its error is discarded and the message lost \(IDEM003\)`
}

// handedOnInside naks when the callee reports the failure.
func handedOnInside(ctx context.Context, p *points, d amqp.Delivery) {
	if err := p.creditErr(ctx, d.UserId, 1); err != nil {
		d.Nack(false, true)
		return
	}
	d.Ack(false)
}

// award looks the user up and goes on without one: a read that fails is
// a degraded award, not a lost one.
func (p *points) award(ctx context.Context, user string, n int) error {
	name, err := p.userName(ctx, user)
	if err != nil {
		log.Print(err)
		name = "unknown"
	}
	return p.AddPoints(ctx, name, n)
}

func (p *points) userName(ctx context.Context, user string) (string, error) {
	var name string
	err := p.db.QueryRowContext(ctx, `SELECT name FROM users WHERE id = $1`, user).Scan(&name)
	return name, err
}

// degradedInside acks after award, which fails only when its write does.
func degradedInside(ctx context.Context, p *points, d amqp.Delivery) {
	if err := p.award(ctx, d.UserId, 1); err != nil {
		d.Nack(false, true)
		return
	}
	d.Ack(false)
}

// tolerated acks after a callee that goes on without the row it failed to
// read.
func tolerated(ctx context.Context, p *points, d amqp.Delivery) {
	p.greet(ctx, d.UserId)
	d.Ack(false)
}

func (p *points) greet(ctx context.Context, user string) {
	name, err := p.userName(ctx, user)
	if err != nil {
		log.Print(err)
		return
	}
	log.Print("hello ", name)
}

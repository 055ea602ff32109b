package idem003

import (
	"context"
	"database/sql"
	"encoding/json"
	"log"

	"github.com/hibiken/asynq"
)

// Lost publishes: a step that enqueues the next task or sends an event is
// work a lost message loses too. A helper that logs a failed enqueue and
// returns nothing (or nil) swallows it.

type receipt struct {
	Order string `json:"order"`
}

// enqueueReceipt enqueues the receipt mail of an order.
func enqueueReceipt(client *asynq.Client, r receipt) error {
	data, err := json.Marshal(r)
	if err != nil {
		return err
	}
	_, err = client.Enqueue(asynq.NewTask("mail:receipt", data))
	return err
}

// enqueueFollowing enqueues the next steps, logging a failed one.
func enqueueFollowing(client *asynq.Client, steps []string) {
	for _, s := range steps {
		if _, err := client.Enqueue(asynq.NewTask("step", []byte(s))); err != nil {
			log.Printf("enqueue %s: %v", s, err)
		}
	}
}

type payments struct {
	db     *sql.DB
	client *asynq.Client
}

// captured records the payment, then enqueues the receipt and only logs
// a failure.
func (p *payments) captured(ctx context.Context, order string) error {
	if _, err := p.db.ExecContext(ctx, `UPDATE orders SET status = 'paid' WHERE id = $1 AND status <> 'paid'`, order); err != nil {
		return err
	}
	if err := enqueueReceipt(p.client, receipt{Order: order}); err != nil {
		log.Printf("receipt for %s: %v", order, err)
	}
	return nil
}

// capturedTask loses the receipt when its enqueue fails.
func (p *payments) capturedTask(ctx context.Context, t *asynq.Task) error {
	if err := p.captured(ctx, string(t.Payload())); err != nil {
		return err
	}
	return nil // want `handler payments.capturedTask returns success when .*enqueueReceipt \(inside idem003.payments.captured, which reports success\) fails`
}

// delayTask loses the following steps when an enqueue fails.
func (p *payments) delayTask(ctx context.Context, t *asynq.Task) error {
	var steps []string
	if err := json.Unmarshal(t.Payload(), &steps); err != nil {
		return err
	}
	enqueueFollowing(p.client, steps)
	return nil // want `handler payments.delayTask returns success when asynq.Client.Enqueue \(inside idem003.enqueueFollowing, which reports success\) fails`
}

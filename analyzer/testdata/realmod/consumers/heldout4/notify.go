package heldout4

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/smtp"
	"text/template"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"
	"github.com/redis/go-redis/v9"

	"example.com/realmod/db"
	"example.com/realmod/sms"
	"github.com/idemkit/idem/guard"
)

type notification struct {
	ID       string   `json:"id"`
	UserID   int64    `json:"user_id"`
	Email    string   `json:"email"`
	Phone    string   `json:"phone"`
	Name     string   `json:"name"`
	Devices  []string `json:"devices"`
	Body     string   `json:"body"`
	Endpoint string   `json:"endpoint"`
	SKU      string   `json:"sku"`
	Qty      int32    `json:"qty"`
}

var receiptTmpl = template.Must(template.New("receipt").Parse(
	"Subject: Your receipt\r\n\r\nHi {{.Name}}, thanks for your order {{.ID}}.\r\n"))

// ReceiptMailer renders templated receipts.
type ReceiptMailer struct {
	Ch       *amqp.Channel
	SMTPAddr string
}

// Run consumes with autoAck=true: the broker forgets the message as soon as it
// is delivered, so a crash before SendMail loses the receipt, and nothing
// stops a republished order from being mailed twice.
//
// truth: bug IDEM007 IDEM001
func (r *ReceiptMailer) Run(ctx context.Context) error {
	msgs, err := r.Ch.Consume("receipts", "receipt-mailer", true, false, false, false, nil)
	if err != nil {
		return err
	}
	for d := range msgs {
		var n notification
		if err := json.Unmarshal(d.Body, &n); err != nil {
			continue
		}
		var buf bytes.Buffer
		if err := receiptTmpl.Execute(&buf, n); err != nil {
			continue
		}
		if err := smtp.SendMail(r.SMTPAddr, nil, "shop@example.com", []string{n.Email}, buf.Bytes()); err != nil {
			slog.Error("receipt", "err", err)
		}
	}
	return nil
}

// WelcomeTexter sends welcome texts under a guard lease.
type WelcomeTexter struct {
	Ch    *amqp.Channel
	Store guard.Store
	SMS   *sms.Client
}

// Run claims the user's welcome under a lease, sends with the lease's provider
// key (covering a takeover after a crash), acks only after the outcome is
// recorded, and naks with requeue when another worker holds the lease.
//
// truth: ok
func (w *WelcomeTexter) Run(ctx context.Context) error {
	msgs, err := w.Ch.Consume("welcome", "welcome-texter", false, false, false, false, nil)
	if err != nil {
		return err
	}
	for d := range msgs {
		var n notification
		if err := json.Unmarshal(d.Body, &n); err != nil {
			_ = d.Reject(false)
			continue
		}
		_, err := w.Store.Run(ctx, "welcome_sms", fmt.Sprint(n.UserID), nil, func(ctx context.Context, l *guard.Lease) error {
			return w.SMS.SendWithKey(ctx, n.Phone, "Welcome, "+n.Name+"!", l.Key())
		})
		switch {
		case err == nil:
			_ = d.Ack(false)
		case errors.Is(err, guard.ErrInProgress):
			time.Sleep(time.Second)
			_ = d.Nack(false, true)
		case guard.Permanent(err):
			_ = d.Reject(false)
		default:
			_ = d.Nack(false, true)
		}
	}
	return nil
}

// PushFanout sends a push notification to each of a user's devices.
type PushFanout struct {
	Ch    *amqp.Channel
	Redis *redis.Client
	HTTP  *http.Client
	URL   string
}

// Run writes a "seen" marker with SETNX but never looks at its result, then
// POSTs to every device without an idempotency key: a redelivery pushes every
// device again.
//
// truth: bug IDEM004 IDEM001
func (p *PushFanout) Run(ctx context.Context) error {
	msgs, err := p.Ch.Consume("push", "push-fanout", false, false, false, false, nil)
	if err != nil {
		return err
	}
	for d := range msgs {
		var n notification
		if err := json.Unmarshal(d.Body, &n); err != nil {
			_ = d.Reject(false)
			continue
		}
		if err := p.Redis.SetNX(ctx, "push:seen:"+n.ID, 1, 24*time.Hour).Err(); err != nil {
			_ = d.Nack(false, true)
			continue
		}
		failed := false
		for _, dev := range n.Devices {
			body, _ := json.Marshal(map[string]string{"device": dev, "body": n.Body})
			resp, err := p.HTTP.Post(p.URL, "application/json", bytes.NewReader(body))
			if err != nil {
				failed = true
				continue
			}
			resp.Body.Close()
		}
		if failed {
			_ = d.Nack(false, true)
			continue
		}
		_ = d.Ack(false)
	}
	return nil
}

// WebhookRelay forwards events to customer endpoints.
type WebhookRelay struct {
	Ch   *amqp.Channel
	HTTP *http.Client
}

// Run POSTs each event with an Idempotency-Key derived from the event id (the
// receivers de-duplicate on it), acks after a 2xx and naks otherwise.
//
// truth: ok
func (w *WebhookRelay) Run(ctx context.Context) error {
	msgs, err := w.Ch.Consume("webhooks", "webhook-relay", false, false, false, false, nil)
	if err != nil {
		return err
	}
	for d := range msgs {
		var n notification
		if err := json.Unmarshal(d.Body, &n); err != nil || n.ID == "" {
			_ = d.Reject(false)
			continue
		}
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, n.Endpoint, bytes.NewReader(d.Body))
		if err != nil {
			_ = d.Reject(false)
			continue
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Idempotency-Key", "evt_"+n.ID)
		resp, err := w.HTTP.Do(req)
		if err != nil {
			_ = d.Nack(false, true)
			continue
		}
		resp.Body.Close()
		if resp.StatusCode >= 300 {
			_ = d.Nack(false, true)
			continue
		}
		_ = d.Ack(false)
	}
	return nil
}

// ShippingTexter texts the shipping notice once per order.
type ShippingTexter struct {
	Ch    *amqp.Channel
	Redis *redis.Client
	SMS   *sms.Client
}

// Run marks the order with SET NX and then sends the text as a separate
// command, deleting the mark only when the send fails. A crash after the SET
// and before the send leaves the mark behind: the redelivery is dropped as a
// duplicate and the customer never gets the text. Record and effect are not
// atomic.
//
// truth: bug IDEM006
func (s *ShippingTexter) Run(ctx context.Context) error {
	msgs, err := s.Ch.Consume("shipping-sms", "shipping-texter", false, false, false, false, nil)
	if err != nil {
		return err
	}
	for d := range msgs {
		var n notification
		if err := json.Unmarshal(d.Body, &n); err != nil {
			_ = d.Reject(false)
			continue
		}
		key := "sms:shipped:" + n.ID
		fresh, err := s.Redis.SetNX(ctx, key, 1, 7*24*time.Hour).Result()
		if err != nil {
			_ = d.Nack(false, true)
			continue
		}
		if !fresh {
			_ = d.Ack(false)
			continue
		}
		if err := s.SMS.Send(ctx, n.Phone, "Your order "+n.ID+" has shipped"); err != nil {
			s.Redis.Del(ctx, key)
			_ = d.Nack(false, true)
			continue
		}
		_ = d.Ack(false)
	}
	return nil
}

// OTPSender sends one-time codes.
type OTPSender struct {
	Ch    *amqp.Channel
	Redis *redis.Client
	SMS   *sms.Client
}

// Run takes a per-phone lock with SET NX and deletes it when done: that only
// serialises concurrent sends; a redelivery after the lock is gone sends the
// code again. A lock, not a dedup.
//
// truth: bug IDEM001
func (o *OTPSender) Run(ctx context.Context) error {
	msgs, err := o.Ch.Consume("otp", "otp-sender", false, false, false, false, nil)
	if err != nil {
		return err
	}
	for d := range msgs {
		var n notification
		if err := json.Unmarshal(d.Body, &n); err != nil {
			_ = d.Reject(false)
			continue
		}
		lock := "lock:otp:" + n.Phone
		ok, err := o.Redis.SetNX(ctx, lock, n.ID, 30*time.Second).Result()
		if err != nil || !ok {
			_ = d.Nack(false, true)
			continue
		}
		err = o.SMS.Send(ctx, n.Phone, "Your code: "+n.Body)
		o.Redis.Del(ctx, lock)
		if err != nil {
			_ = d.Nack(false, true)
			continue
		}
		_ = d.Ack(false)
	}
	return nil
}

// InventoryWorker deducts stock for paid orders.
type InventoryWorker struct {
	Ch    *amqp.Channel
	Store *guard.SQLStore
}

// Run acks undecodable bodies as poison, runs the sqlc deduction inside the
// guard's transaction keyed by the order id, and maps the guard's answers to
// ack / requeue / dead-letter.
//
// truth: ok
func (w *InventoryWorker) Run(ctx context.Context) error {
	msgs, err := w.Ch.Consume("inventory", "inventory-worker", false, false, false, false, nil)
	if err != nil {
		return err
	}
	for d := range msgs {
		var n notification
		if err := json.Unmarshal(d.Body, &n); err != nil {
			_ = d.Ack(false) // poison: nothing to redo
			continue
		}
		out, err := w.Store.Do(ctx, "deduct_inventory", n.ID, nil, func(ctx context.Context, tx *sql.Tx) error {
			return db.New(tx).DeductStock(ctx, n.Qty, n.SKU)
		})
		var busy *guard.InProgressError
		switch {
		case errors.As(err, &busy):
			time.Sleep(busy.RetryAfter)
			_ = d.Nack(false, true)
		case err != nil && guard.Permanent(err):
			_ = d.Reject(false)
		case err != nil:
			_ = d.Nack(false, true)
		default:
			slog.Debug("inventory", "order", n.ID, "outcome", out)
			_ = d.Ack(false)
		}
	}
	return nil
}

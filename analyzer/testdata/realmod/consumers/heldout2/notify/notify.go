// Package notify holds the notification service's consumers (send_sms and
// friends): NATS JetStream consumers, a legacy nats.go subscription, e-mail
// via net/smtp and webhook forwarding from Kafka.
package notify

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/smtp"
	"time"

	"github.com/idemkit/idem/guard"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/redis/go-redis/v9"
	"github.com/segmentio/kafka-go"

	"example.com/realmod/db"
	"example.com/realmod/sms"
)

// OrderEvent is what the order service publishes on orders.*.
type OrderEvent struct {
	EventID string `json:"event_id"`
	OrderID string `json:"order_id"`
	Phone   string `json:"phone"`
	Email   string `json:"email"`
	Name    string `json:"name"`
	UserID  string `json:"user_id"`
}

func decode(data []byte) (OrderEvent, error) {
	var ev OrderEvent
	err := json.Unmarshal(data, &ev)
	return ev, err
}

// Notifier has everything the consumers need injected.
type Notifier struct {
	SMS      *sms.Client
	Store    *guard.SQLStore
	Redis    *redis.Client
	JS       jetstream.JetStream
	Q        *db.Queries
	Node     string
	SMTPAddr string
	Log      *slog.Logger
}

// StartOrderPaid registers a JetStream Consume callback that texts the
// customer and acks. A crash after the provider accepted the text and
// before the ack (or an AckWait expiry on a slow provider) sends it again.
//
// truth: bug IDEM001
func (n *Notifier) StartOrderPaid(ctx context.Context, cons jetstream.Consumer) (jetstream.ConsumeContext, error) {
	return cons.Consume(func(msg jetstream.Msg) {
		ev, err := decode(msg.Data())
		if err != nil {
			_ = msg.Term()
			return
		}
		if err := n.SMS.Send(ctx, ev.Phone, "Payment received for order "+ev.OrderID); err != nil {
			_ = msg.NakWithDelay(5 * time.Second)
			return
		}
		_ = msg.Ack()
	})
}

// StartOrderPaidGuarded runs the text under a guard lease and hands the
// provider the stable ProviderKey, acking only on success or duplicate.
//
// truth: ok
func (n *Notifier) StartOrderPaidGuarded(ctx context.Context, cons jetstream.Consumer) (jetstream.ConsumeContext, error) {
	return cons.Consume(func(msg jetstream.Msg) {
		ev, err := decode(msg.Data())
		if err != nil {
			_ = msg.Term()
			return
		}
		_, err = n.Store.Run(ctx, "send_sms", ev.EventID, nil, func(ctx context.Context, l *guard.Lease) error {
			return n.SMS.SendWithKey(ctx, ev.Phone, "Payment received for order "+ev.OrderID,
				guard.ProviderKey(l.Consumer(), l.Key()))
		})
		var busy *guard.InProgressError
		switch {
		case err == nil:
			_ = msg.Ack()
		case errors.As(err, &busy):
			_ = msg.NakWithDelay(busy.RetryAfter)
		case guard.Permanent(err):
			_ = msg.Term()
		default:
			_ = msg.Nak()
		}
	})
}

// SubscribeLegacy uses the old nats.go JetStream API without nats.ManualAck,
// so the library acks each message when the callback returns, whatever
// happened in it: a crash mid-send loses the mail, and the welcome mail
// itself has no dedup.
//
// truth: bug IDEM001 IDEM007
func (n *Notifier) SubscribeLegacy(js nats.JetStreamContext) (*nats.Subscription, error) {
	return js.Subscribe("users.registered", func(m *nats.Msg) {
		ev, err := decode(m.Data)
		if err != nil {
			n.Log.Error("bad welcome event", "err", err)
			return
		}
		body := []byte("Subject: Welcome\r\n\r\nHello " + ev.Name + "\r\n")
		if err := smtp.SendMail(n.SMTPAddr, nil, "noreply@shop.example", []string{ev.Email}, body); err != nil {
			n.Log.Error("welcome mail", "err", err)
		}
	}, nats.Durable("welcome-mailer"))
}

// HandleShipped acks the JetStream message immediately and texts from a
// goroutine it does not wait for: a crash loses the text, and the text
// itself is unguarded.
//
// truth: bug IDEM001 IDEM002
func (n *Notifier) HandleShipped(ctx context.Context, msg jetstream.Msg) {
	ev, err := decode(msg.Data())
	if err != nil {
		_ = msg.Term()
		return
	}
	go func() {
		if err := n.SMS.Send(context.WithoutCancel(ctx), ev.Phone, "Your order "+ev.OrderID+" is on its way"); err != nil {
			n.Log.Error("shipped sms", "err", err)
		}
	}()
	_ = msg.Ack()
}

// HandleCoupon passes an Idempotency-Key to the provider, but the key is
// minted per attempt from the node name and the clock, so every redelivery
// carries a new key and the provider sends the text again.
//
// truth: bug IDEM001
func (n *Notifier) HandleCoupon(ctx context.Context, msg jetstream.Msg) {
	ev, err := decode(msg.Data())
	if err != nil {
		_ = msg.Term()
		return
	}
	key := fmt.Sprintf("%s-%d", n.Node, time.Now().UnixNano())
	if err := n.SMS.SendWithKey(ctx, ev.Phone, "Here is your coupon", key); err != nil {
		_ = msg.Nak()
		return
	}
	_ = msg.Ack()
}

// HandleReminder dedups with SET NX on the JetStream *consumer* sequence.
// That number is assigned per delivery, so a redelivery gets a new one and
// passes the check: the check depends on the delivery, not on the event.
// A careful reviewer treats this as no dedup at all.
//
// truth: bug IDEM001
func (n *Notifier) HandleReminder(ctx context.Context, msg jetstream.Msg) {
	meta, err := msg.Metadata()
	if err != nil {
		_ = msg.Term()
		return
	}
	ev, err := decode(msg.Data())
	if err != nil {
		_ = msg.Term()
		return
	}
	key := fmt.Sprintf("sms:reminder:%d", meta.Sequence.Consumer)
	ok, err := n.Redis.SetNX(ctx, key, 1, 24*time.Hour).Result()
	if err != nil {
		_ = msg.Nak()
		return
	}
	if !ok {
		_ = msg.Ack()
		return
	}
	if err := n.SMS.Send(ctx, ev.Phone, "Your cart is waiting"); err != nil {
		_ = n.Redis.Del(ctx, key).Err()
		_ = msg.Nak()
		return
	}
	_ = msg.Ack()
}

// HandleReceiptEmail claims a guard lease keyed by the event id before the
// SMTP send, completes it afterwards, and acks a duplicate without mailing.
// net/smtp cannot take an idempotency key, so the at-least-once lease is the
// best available guard (the send_sms consumer of the project's examples).
//
// truth: ok
func (n *Notifier) HandleReceiptEmail(ctx context.Context, msg jetstream.Msg) {
	ev, err := decode(msg.Data())
	if err != nil {
		_ = msg.Term()
		return
	}
	lease, err := n.Store.Claim(ctx, "receipt_email", ev.EventID, nil)
	if err != nil {
		_ = msg.Nak()
		return
	}
	if lease.Outcome() == guard.Duplicate {
		_ = msg.Ack()
		return
	}
	body := []byte("Subject: Your receipt\r\n\r\nOrder " + ev.OrderID + "\r\n")
	if err := smtp.SendMail(n.SMTPAddr, nil, "billing@shop.example", []string{ev.Email}, body); err != nil {
		_ = lease.Release(ctx)
		_ = msg.Nak()
		return
	}
	if err := lease.Complete(ctx, nil); err != nil {
		n.Log.Error("complete receipt lease", "err", err)
	}
	_ = msg.Ack()
}

// HandleAudit only logs the event; nothing to duplicate.
//
// truth: ok
func (n *Notifier) HandleAudit(msg jetstream.Msg) {
	ev, err := decode(msg.Data())
	if err != nil {
		n.Log.Warn("audit: undecodable", "subject", msg.Subject(), "err", err)
		_ = msg.Term()
		return
	}
	n.Log.Info("order event", "subject", msg.Subject(), "order", ev.OrderID, "event", ev.EventID)
	_ = msg.Ack()
}

// HandleProfileChanged overwrites the profile (upsert that replaces, not
// accumulates) and republishes a follow-up event with Nats-Msg-Id set to the
// source event id, so JetStream's duplicate window drops a republish.
//
// truth: ok
func (n *Notifier) HandleProfileChanged(ctx context.Context, msg jetstream.Msg) {
	ev, err := decode(msg.Data())
	if err != nil {
		_ = msg.Term()
		return
	}
	if err := n.Q.UpsertProfile(ctx, ev.UserID, ev.Name, ev.Email); err != nil {
		_ = msg.Nak()
		return
	}
	if _, err := n.JS.Publish(ctx, "profiles.synced", msg.Data(), jetstream.WithMsgID("synced-"+ev.EventID)); err != nil {
		_ = msg.Nak()
		return
	}
	_ = msg.Ack()
}

// Forwarder relays Kafka events to a partner's webhook.
type Forwarder struct {
	Reader *kafka.Reader
	HTTP   *http.Client
	URL    string
}

// Run POSTs each event to the partner without an Idempotency-Key: a timeout
// after the partner processed it, or a crash before the commit, posts it
// again and the partner creates a second shipment.
//
// truth: bug IDEM001
func (f *Forwarder) Run(ctx context.Context) error {
	for {
		m, err := f.Reader.FetchMessage(ctx)
		if err != nil {
			return err
		}
		resp, err := f.HTTP.Post(f.URL, "application/json", bytes.NewReader(m.Value))
		if err != nil {
			return err
		}
		resp.Body.Close()
		if resp.StatusCode >= 500 {
			return fmt.Errorf("partner: %s", resp.Status)
		}
		if err := f.Reader.CommitMessages(ctx, m); err != nil {
			return err
		}
	}
}

// RunKeyed sends the producer's event id (a Kafka header) as the
// Idempotency-Key, so the partner drops repeats of the same event.
//
// truth: ok
func (f *Forwarder) RunKeyed(ctx context.Context) error {
	for {
		m, err := f.Reader.FetchMessage(ctx)
		if err != nil {
			return err
		}
		var eventID string
		for _, h := range m.Headers {
			if h.Key == "event-id" {
				eventID = string(h.Value)
			}
		}
		if eventID == "" {
			eventID = fmt.Sprintf("%s/%d/%d", m.Topic, m.Partition, m.Offset)
		}
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, f.URL, bytes.NewReader(m.Value))
		if err != nil {
			return err
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Idempotency-Key", eventID)
		resp, err := f.HTTP.Do(req)
		if err != nil {
			return err
		}
		resp.Body.Close()
		if resp.StatusCode >= 500 {
			return fmt.Errorf("partner: %s", resp.Status)
		}
		if err := f.Reader.CommitMessages(ctx, m); err != nil {
			return err
		}
	}
}

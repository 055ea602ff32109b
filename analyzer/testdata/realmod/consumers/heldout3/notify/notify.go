// Package notify holds send_sms consumers on NATS JetStream.
package notify

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/redis/go-redis/v9"

	"example.com/realmod/sms"
	"github.com/idemkit/idem/guard"
)

// OrderShipped is the body of orders.shipped.
type OrderShipped struct {
	OrderID  string `json:"order_id"`
	Phone    string `json:"phone"`
	Email    string `json:"email"`
	Template string `json:"template"`
}

func decode(msg jetstream.Msg) (OrderShipped, error) {
	var ev OrderShipped
	if err := json.Unmarshal(msg.Data(), &ev); err != nil {
		return ev, fmt.Errorf("%w: %v", guard.ErrInvalidMessage, err)
	}
	if ev.OrderID == "" || ev.Phone == "" {
		return ev, fmt.Errorf("%w: order_id and phone are required", guard.ErrInvalidMessage)
	}
	return ev, nil
}

func smsKey(ev OrderShipped) string {
	var b guard.KeyBuilder
	b.String(ev.OrderID)
	b.String(ev.Template)
	return b.Key()
}

func text(ev OrderShipped) string { return "Your order " + ev.OrderID + " has shipped" }

// Notifier sends shipping texts.
type Notifier struct {
	Store guard.Store
	SMS   *sms.Client
	Mail  Mailer
	RDB   *redis.Client
	Log   *slog.Logger
}

// Mailer sends e-mails with a caller-chosen idempotency key.
type Mailer interface {
	SendWithKey(ctx context.Context, to, subject, key string) error
}

// settle maps a handling error onto the JetStream actions.
func settle(msg jetstream.Msg, err error) {
	var inProgress *guard.InProgressError
	switch {
	case err == nil:
		_ = msg.Ack()
	case errors.As(err, &inProgress):
		_ = msg.NakWithDelay(inProgress.RetryAfter)
	case guard.Permanent(err):
		_ = msg.TermWithReason(err.Error())
	default:
		_ = msg.NakWithDelay(2 * time.Second)
	}
}

// PullLoop fetches batches and sends each text under a lease (store.Run),
// with the lease's provider key as the Idempotency-Key; every message is
// acked only after Run returned nil, naked otherwise; a poison body is
// terminated.
//
// truth: ok
func (n *Notifier) PullLoop(ctx context.Context, cons jetstream.Consumer) error {
	for ctx.Err() == nil {
		batch, err := cons.Fetch(32, jetstream.FetchMaxWait(5*time.Second))
		if err != nil {
			return err
		}
		for msg := range batch.Messages() {
			ev, err := decode(msg)
			if err != nil {
				_ = msg.Term()
				continue
			}
			_, err = n.Store.Run(ctx, "send_sms", smsKey(ev), nil, func(ctx context.Context, l *guard.Lease) error {
				return n.SMS.SendWithKey(ctx, ev.Phone, text(ev), l.Key())
			})
			if err != nil {
				n.Log.Warn("send sms", "order", ev.OrderID, "err", err)
				_ = msg.Nak()
				continue
			}
			_ = msg.Ack()
		}
		if err := batch.Error(); err != nil && !errors.Is(err, jetstream.ErrNoMessages) {
			n.Log.Warn("fetch", "err", err)
		}
	}
	return nil
}

// Subscribe sends the text straight from the Consume callback, with no
// claim and no idempotency key: a redelivery after AckWait (slow provider)
// texts the customer again.
//
// truth: bug IDEM001
func (n *Notifier) Subscribe(cons jetstream.Consumer) (jetstream.ConsumeContext, error) {
	return cons.Consume(func(msg jetstream.Msg) {
		ev, err := decode(msg)
		if err != nil {
			_ = msg.Term()
			return
		}
		if err := n.SMS.Send(context.Background(), ev.Phone, text(ev)); err != nil {
			_ = msg.Nak()
			return
		}
		_ = msg.Ack()
	})
}

// HandleFreshKey sends with an Idempotency-Key, but a random one made on
// every delivery, so the provider never sees a repeat: each redelivery is a
// new text. No other dedup.
//
// truth: bug IDEM001
func (n *Notifier) HandleFreshKey(msg jetstream.Msg) {
	ev, err := decode(msg)
	if err != nil {
		_ = msg.Term()
		return
	}
	key := rand.Text()
	if err := n.SMS.SendWithKey(context.Background(), ev.Phone, text(ev), key); err != nil {
		_ = msg.Nak()
		return
	}
	_ = msg.Ack()
}

// HandleProviderKey relies on the provider's dedup: the Idempotency-Key is
// derived from the order and template only, so every redelivery carries the
// same key and the provider drops repeats (the project's rule: provider idempotency
// key). Ack after the call, Nak on failure.
//
// truth: ok
func (n *Notifier) HandleProviderKey(msg jetstream.Msg) {
	ev, err := decode(msg)
	if err != nil {
		_ = msg.Term()
		return
	}
	key := guard.ProviderKey("send_sms", smsKey(ev))
	if err := n.SMS.SendWithKey(context.Background(), ev.Phone, text(ev), key); err != nil {
		_ = msg.Nak()
		return
	}
	_ = msg.Ack()
}

// HandleIgnoredNX writes a SET NX marker but never looks at its answer (only
// at the error), then sends without a key: a duplicate sends again.
//
// truth: bug IDEM004 IDEM001
func (n *Notifier) HandleIgnoredNX(msg jetstream.Msg) {
	ev, err := decode(msg)
	if err != nil {
		_ = msg.Term()
		return
	}
	ctx := context.Background()
	if err := n.RDB.SetNX(ctx, "sms:sent:"+ev.OrderID, 1, 24*time.Hour).Err(); err != nil {
		_ = msg.Nak()
		return
	}
	if err := n.SMS.Send(ctx, ev.Phone, text(ev)); err != nil {
		_ = msg.Nak()
		return
	}
	_ = msg.Ack()
}

// HandleClaim uses an explicit lease: InProgress naks with the remaining
// lease, a Duplicate is acked without sending, a fresh lease sends with the
// lease key, then Complete (or Release on error) and the ack. Permanent
// errors are terminated — dead-lettered by design, not swallowed.
//
// truth: ok
func (n *Notifier) HandleClaim(msg jetstream.Msg) {
	ctx := context.Background()
	ev, err := decode(msg)
	if err != nil {
		settle(msg, err)
		return
	}
	lease, err := n.Store.Claim(ctx, "send_sms", smsKey(ev), nil)
	if err != nil {
		settle(msg, err)
		return
	}
	if lease.Outcome() == guard.Duplicate {
		_ = msg.Ack()
		return
	}
	if err := n.SMS.SendWithKey(ctx, ev.Phone, text(ev), lease.Key()); err != nil {
		_ = lease.Release(ctx)
		settle(msg, err)
		return
	}
	if err := lease.Complete(ctx, nil); err != nil {
		settle(msg, err)
		return
	}
	_ = msg.Ack()
}

// HandleAsync acks right after starting a goroutine that runs the guarded
// send: if the process dies, or the send fails, the message is already acked
// and the text is never sent.
//
// truth: bug IDEM002
func (n *Notifier) HandleAsync(msg jetstream.Msg) {
	ev, err := decode(msg)
	if err != nil {
		_ = msg.Term()
		return
	}
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		_, err := n.Store.Run(ctx, "send_sms", smsKey(ev), nil, func(ctx context.Context, l *guard.Lease) error {
			return n.SMS.SendWithKey(ctx, ev.Phone, text(ev), l.Key())
		})
		if err != nil {
			n.Log.Error("async sms", "err", err)
		}
	}()
	_ = msg.Ack()
}

// HandleFanOut sends the text and the e-mail in parallel, each under its own
// lease, waits for both (an errgroup-style group: first error wins) and only
// then settles the message; a redelivery after one of them failed finds the
// other Duplicate.
//
// truth: ok
func (n *Notifier) HandleFanOut(msg jetstream.Msg) {
	ev, err := decode(msg)
	if err != nil {
		settle(msg, err)
		return
	}
	g, ctx := withContext(context.Background())
	g.Go(func() error {
		_, err := n.Store.Run(ctx, "send_sms", smsKey(ev), nil, func(ctx context.Context, l *guard.Lease) error {
			return n.SMS.SendWithKey(ctx, ev.Phone, text(ev), l.Key())
		})
		return err
	})
	g.Go(func() error {
		_, err := n.Store.Run(ctx, "send_ship_mail", smsKey(ev), nil, func(ctx context.Context, l *guard.Lease) error {
			return n.Mail.SendWithKey(ctx, ev.Email, "Shipped: "+ev.OrderID, l.Key())
		})
		return err
	})
	settle(msg, g.Wait())
}

// group is a small errgroup: Go runs f, Wait waits for all and returns the
// first error. (golang.org/x/sync is not a direct requirement of this module.)
type group struct {
	wg     sync.WaitGroup
	once   sync.Once
	err    error
	cancel context.CancelFunc
}

func withContext(ctx context.Context) (*group, context.Context) {
	ctx, cancel := context.WithCancel(ctx)
	return &group{cancel: cancel}, ctx
}

func (g *group) Go(f func() error) {
	g.wg.Add(1)
	go func() {
		defer g.wg.Done()
		if err := f(); err != nil {
			g.once.Do(func() { g.err = err; g.cancel() })
		}
	}()
}

func (g *group) Wait() error {
	g.wg.Wait()
	g.cancel()
	return g.err
}

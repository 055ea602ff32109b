// Package consumer holds the handlers: registered through the service's
// own helpers (package bus), effects behind interfaces wired in main.
package consumer

import (
	"context"
	"errors"

	"github.com/nats-io/nats.go"
	"go.uber.org/zap"

	"wholeprog/bus"
	"wholeprog/obs"
	"wholeprog/store"
)

// Service is the consumers and their dependencies.
type Service struct {
	points  store.Points
	seen    store.Seen
	billing *Billing
	log     *zap.Logger
	// Metrics is set by main.
	Metrics obs.Metrics
	// Keys and Outbox are set by main.
	Keys   store.Keys
	Outbox store.Outbox
}

// New returns the service.
func New(p store.Points, seen store.Seen, l store.Ledger, log *zap.Logger) *Service {
	return &Service{points: p, seen: seen, billing: &Billing{ledger: l}, log: log}
}

// Start registers the handlers.
func (s *Service) Start(ctx context.Context, js nats.JetStreamContext, r *bus.Router) error {
	if err := bus.Consume(ctx, js, "award", s.onAward); err != nil {
		return err
	}
	if err := bus.Consume(ctx, js, "reset", s.onReset); err != nil {
		return err
	}
	if err := bus.Consume(ctx, js, "notify", s.onNotify); err != nil {
		return err
	}
	if err := bus.Consume(ctx, js, "keys", s.onKeys); err != nil {
		return err
	}
	if err := bus.Consume(ctx, js, "relay", s.onRelay); err != nil {
		return err
	}
	r.Register("bonus", s.onBonus)
	r.Register("charge", s.onCharge)
	r.Register("ping", s.onPing)
	return nil
}

// onAward adds points for every message: no dedup check, and a failure is
// acked (it returns true) after being logged.
func (s *Service) onAward(ctx context.Context, msgs []*nats.Msg) bool {
	for _, m := range msgs {
		if err := s.points.Add(ctx, string(m.Data), 10); err != nil { // want `effect store.Points.Add \(implemented by pg.Store.Add\) → sql.DB.ExecContext "UPDATE points SET n = n \+ \$1.*" in handler Service.onAward is not guarded by a dedup check \(IDEM001\)`
			s.log.Error("award", zap.Error(err))
			return true // want `handler Service.onAward returns true when store.Points.Add .*fails, and its dispatcher acks on that: the message is lost \(IDEM003\)`
		}
	}
	return true
}

// onReset sets an absolute value: idempotent; a failure naks. The metrics
// between the effect and the ack change nothing, whatever their names.
func (s *Service) onReset(ctx context.Context, msgs []*nats.Msg) bool {
	for _, m := range msgs {
		if err := s.points.Set(ctx, string(m.Data), 0); err != nil {
			s.log.Error("reset", zap.Error(err))
			s.Metrics.IncrFailures(m.Subject)
			return false
		}
		s.Metrics.AddProcessed(m.Subject, 1)
	}
	return true
}

// onNotify charges in a goroutine nobody waits for: the dispatcher acks
// when it returns true, before the charge is made.
func (s *Service) onNotify(ctx context.Context, msgs []*nats.Msg) bool {
	for _, m := range msgs {
		go s.billing.Charge(context.Background(), string(m.Data)) // want `effect consumer.Billing.Charge .* in handler Service.onNotify is not guarded` `goroutine with effect .*Billing.Charge.* in handler Service.onNotify is not waited for before the ack: a crash loses the message \(IDEM002\)`
	}
	return true
}

// onKeys calls an API that reports a failure in its response, and acks
// the message anyway.
func (s *Service) onKeys(ctx context.Context, msgs []*nats.Msg) bool {
	res := &store.UploadResponse{}
	s.Keys.Upload(ctx, string(msgs[0].Data), res)
	if res.Error != nil {
		s.log.Error("upload", zap.Error(res.Error))
		return true // want `handler Service.onKeys returns true when store.Keys.Upload fails, and its dispatcher acks on that: the message is lost \(IDEM003\)`
	}
	return true
}

// onRelay puts the message in an outbox: publishing, not an effect (unless
// -publish).
func (s *Service) onRelay(ctx context.Context, msgs []*nats.Msg) bool {
	return s.Outbox.Enqueue(ctx, msgs[0].Data) == nil
}

// onBonus is dispatched through the router's map: its body is the key, and
// the check through the Seen interface guards nothing it needs to (the
// effect is another transaction: IDEM006).
func (s *Service) onBonus(ctx context.Context, body []byte) error {
	fresh, err := s.seen.MarkSeen(ctx, string(body))
	if err != nil {
		return err
	}
	if !fresh {
		return nil
	}
	return s.points.Add(ctx, string(body), 5) // want `dedup record store.Seen.MarkSeen .* and effect store.Points.Add .* in handler Service.onBonus are in different transactions`
}

// onCharge reaches its effect three calls deep, through a service struct.
func (s *Service) onCharge(ctx context.Context, body []byte) error {
	s.log.Info("charge", zap.String("body", string(body)))
	if err := s.billing.Charge(ctx, string(body)); err != nil { // want `effect consumer.Billing.Charge → .* → store.Ledger.Append \(implemented by pg.Store.Append\) → sql.DB.ExecContext "INSERT INTO ledger.*" in handler Service.onCharge is not guarded by a dedup check`
		return errors.Join(errors.New("charge"), err)
	}
	return nil
}

// onPing only logs: nothing to guard.
func (s *Service) onPing(ctx context.Context, body []byte) error {
	s.log.Info("ping", zap.String("body", string(body)))
	return nil
}

// Billing charges users.
type Billing struct{ ledger store.Ledger }

// Charge records a charge.
func (b *Billing) Charge(ctx context.Context, user string) error {
	return b.record(ctx, user, "charge")
}

func (b *Billing) record(ctx context.Context, user, what string) error {
	return b.ledger.Append(ctx, user, what)
}

// Package bus is a service's own consumer helpers, the way real services
// wrap their broker: handlers are registered through them, and the helper
// acks by the handler's answer. Only the whole-program mode follows the
// message through them.
package bus

import (
	"context"

	"github.com/nats-io/nats.go"
)

// Consume pulls batches from subj and hands each batch to f: it acks the
// batch when f returns true and naks it otherwise.
func Consume(ctx context.Context, js nats.JetStreamContext, subj string, f func(ctx context.Context, msgs []*nats.Msg) bool) error {
	sub, err := js.PullSubscribe(subj, "durable")
	if err != nil {
		return err
	}
	go func() {
		for {
			msgs, err := sub.Fetch(1)
			if err != nil {
				continue
			}
			if f(ctx, msgs) {
				for _, m := range msgs {
					m.AckSync()
				}
			} else {
				for _, m := range msgs {
					m.Nak()
				}
			}
		}
	}()
	return nil
}

// Handler handles the body of one message.
type Handler func(ctx context.Context, body []byte) error

// Router dispatches messages to handlers by subject, through a map.
type Router struct{ routes map[string]Handler }

// NewRouter returns an empty router.
func NewRouter() *Router { return &Router{routes: map[string]Handler{}} }

// Register routes subject's messages to h.
func (r *Router) Register(subject string, h Handler) { r.routes[subject] = h }

// Run handles the messages of msgs until ctx ends: an ack when the handler
// returns nil, a nak otherwise.
func (r *Router) Run(ctx context.Context, msgs <-chan *nats.Msg) {
	for {
		select {
		case m := <-msgs:
			h, ok := r.routes[m.Subject]
			if !ok {
				m.Term()
				continue
			}
			if err := h(ctx, m.Data); err != nil {
				m.Nak()
				continue
			}
			m.Ack()
		case <-ctx.Done():
			return
		}
	}
}

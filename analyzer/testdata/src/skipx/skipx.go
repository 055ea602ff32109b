// Package skipx: a service's shared kafka-go loop that commits a message when
// its handler returns nil and fetches the next one on an error: the commit
// of a later offset commits the failed one too. Each handler handed to it
// is reported where its failure is lost; the loop itself is not, since
// every function it calls there is told (a handler that never fails, like
// audit, is not implicated by a report on the shared loop).
package skipx

import (
	"context"
	"errors"
	"fmt"
	"log"

	"github.com/segmentio/kafka-go"
)

// taskHandler handles one fetched message; nil commits it.
type taskHandler func(ctx context.Context, m kafka.Message) error

// taskConsumer is a service's shared loop: it commits a message when its
// handler returns nil, and on an error logs it and fetches the next one.
type taskConsumer struct{ r *kafka.Reader }

func (c *taskConsumer) Subscribe(ctx context.Context, h taskHandler) error {
	for {
		m, err := c.r.FetchMessage(ctx)
		if err != nil {
			return err
		}
		if err := h(ctx, m); err != nil {
			log.Printf("offset %d: %v", m.Offset, err)
			continue
		}
		if err := c.r.CommitMessages(ctx, m); err != nil {
			log.Print(err)
		}
	}
}

type router struct {
	out *kafka.Writer
}

// route hands the message on; its failure is returned to a loop that
// commits past it.
func (x *router) route(ctx context.Context, m kafka.Message) error {
	if len(m.Value) == 0 {
		return nil
	}
	if err := x.out.WriteMessages(ctx, kafka.Message{Value: m.Value}); err != nil {
		return fmt.Errorf("route: %w", err) // want `handler router.route returns an error when kafka.Writer.WriteMessages fails, and taskConsumer.Subscribe, which it is handed to, goes on to the next message without committing this one: committing a later offset commits it too, and the message is lost \(IDEM003\)`
	}
	return nil
}

// audit returns no error: there is nothing the loop could skip.
func (x *router) audit(ctx context.Context, m kafka.Message) error {
	log.Printf("audit %d", m.Offset)
	return nil
}

func runRouter(ctx context.Context, c *taskConsumer, x *router) error {
	return errors.Join(c.Subscribe(ctx, x.route), c.Subscribe(ctx, x.audit))
}

// Package orphanx (whole-program mode): implementations of a handler
// interface whose values are made where the analysis cannot see (a DI
// container, wire's generated code left out of the build). The consumer
// loop calls its handler through the interface; the program hands it only
// the example handler, but the store handler, which nothing calls, may be
// behind that call too.
package orphanx

import (
	"context"
	"database/sql"

	amqp "github.com/rabbitmq/amqp091-go"
)

// MessageHandler handles a message's body.
type MessageHandler interface {
	HandleMessage(ctx context.Context, body []byte) error
}

// Consume runs handler over the queue's deliveries.
func Consume(ctx context.Context, ch *amqp.Channel, handler MessageHandler) error {
	deliveries, err := ch.Consume("results", "", false, false, false, false, nil)
	if err != nil {
		return err
	}
	for d := range deliveries {
		if err := handler.HandleMessage(ctx, d.Body); err != nil {
			d.Nack(false, true)
			continue
		}
		d.Ack(false)
	}
	return nil
}

// printHandler is the example handler the program wires.
type printHandler struct{}

func (printHandler) HandleMessage(ctx context.Context, body []byte) error { return nil }

// RunExample wires the example handler.
func RunExample(ctx context.Context, ch *amqp.Channel) error {
	return Consume(ctx, ch, printHandler{})
}

// StoreHandler stores each result: made by generated wiring the build
// leaves out.
type StoreHandler struct{ DB *sql.DB }

// HandleMessage inserts the result.
func (h *StoreHandler) HandleMessage(ctx context.Context, body []byte) error {
	_, err := h.DB.ExecContext(ctx, "INSERT INTO results (body) VALUES ($1)", body) // want `IDEM001`
	return err
}

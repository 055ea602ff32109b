package statex

// A state check over a list of rows: the events of an order are read,
// a loop sets a flag when one of them says the work is done, and the
// handler skips when the flag is set; the effect is recorded as a new
// event row.

import (
	"context"

	amqp "github.com/rabbitmq/amqp091-go"
)

type Event struct {
	ID    string
	Order string
	Kind  string
}

func (p *Store) events(ctx context.Context, order string) ([]*Event, error) {
	rows, err := p.DB.QueryContext(ctx, "SELECT id, order_id, kind FROM order_events WHERE order_id = $1", order)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []*Event
	for rows.Next() {
		var e Event
		if err := rows.Scan(&e.ID, &e.Order, &e.Kind); err != nil {
			return nil, err
		}
		out = append(out, &e)
	}
	return out, rows.Err()
}

// confirmed skips an order one of whose events is a confirmation; the
// confirmation event is inserted with the effect.
func (h *H) confirmed(ctx context.Context, d amqp.Delivery) {
	order := string(d.Body)
	evs, err := h.store.events(ctx, order)
	if err != nil {
		d.Nack(false, true)
		return
	}
	var done bool
	for _, e := range evs {
		switch e.Kind {
		case "created":
		case "confirmed":
			done = true
		}
	}
	if done {
		d.Ack(false)
		return
	}
	if err := h.store.addPoints(ctx, order, 1); err != nil {
		d.Nack(false, true)
		return
	}
	if _, err := h.store.DB.ExecContext(ctx, "INSERT INTO order_events (order_id, kind) VALUES ($1, 'confirmed')", order); err != nil {
		d.Nack(false, true)
		return
	}
	d.Ack(false)
}

// anyLarge sets its flag from a loop over the events, but nothing writes
// the events' table: validation, not a dedup.
func (h *H) anyLarge(ctx context.Context, d amqp.Delivery) {
	order := string(d.Body)
	evs, err := h.store.events(ctx, order)
	if err != nil {
		d.Nack(false, true)
		return
	}
	var cancelled bool
	for _, e := range evs {
		if e.Kind == "cancelled" {
			cancelled = true
		}
	}
	if cancelled {
		d.Ack(false)
		return
	}
	if err := h.store.addPoints(ctx, order, 1); err != nil { // want `IDEM001`
		d.Nack(false, true)
		return
	}
	d.Ack(false)
}

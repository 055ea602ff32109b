package statex

// statex: handlers that read the entity a message is about and skip
// when its state says the work is done (a lookup, then a write of that
// state: accepted as check-then-act), and handlers whose reads are not
// dedup checks.

import (
	"context"
	"database/sql"
	"log"

	amqp "github.com/rabbitmq/amqp091-go"
)

type Order struct {
	ID     string
	Status string
	User   string
	Points int
	Paid   bool
}

type Store struct{ DB *sql.DB }

func (p *Store) get(ctx context.Context, id string) (*Order, error) {
	var o Order
	err := p.DB.QueryRowContext(ctx, "SELECT id, status, user_id, points, paid FROM orders WHERE id = $1", id).Scan(&o.ID, &o.Status, &o.User, &o.Points, &o.Paid)
	return &o, err
}

func (p *Store) find(ctx context.Context, id string) (*Order, error) {
	return p.get(ctx, id) // a row through one more call
}

func (p *Store) markPaid(ctx context.Context, id string) error {
	_, err := p.DB.ExecContext(ctx, "UPDATE orders SET status = 'paid', paid = TRUE WHERE id = $1", id)
	return err
}

func (p *Store) touch(ctx context.Context, id string) error {
	_, err := p.DB.ExecContext(ctx, "UPDATE orders SET updated_at = NOW() WHERE id = $1", id)
	return err
}

func (p *Store) addPoints(ctx context.Context, user string, n int) error { // want addPoints:`effects\(sql.DB.ExecContext "UPDATE users SET points = points \+ \$1 WHERE id = \$2"\)`
	_, err := p.DB.ExecContext(ctx, "UPDATE users SET points = points + $1 WHERE id = $2", n, user)
	return err
}

type H struct {
	store *Store
}

// paid skips an order already paid; the status is written with the effect.
func (h *H) paid(ctx context.Context, d amqp.Delivery) {
	o, err := h.store.get(ctx, string(d.Body))
	if err != nil {
		d.Nack(false, true)
		return
	}
	if o.Status == "paid" {
		d.Ack(false)
		return
	}
	if err := h.store.addPoints(ctx, o.User, o.Points); err != nil {
		d.Nack(false, true)
		return
	}
	if err := h.store.markPaid(ctx, o.ID); err != nil {
		d.Nack(false, true)
		return
	}
	d.Ack(false)
}

// pending goes on only for a pending order, read through two calls; a
// boolean field written by the same update.
func (h *H) pending(ctx context.Context, d amqp.Delivery) {
	o, err := h.store.find(ctx, string(d.Body))
	if err != nil || o.Status != "pending" || o.Paid {
		d.Nack(false, true)
		return
	}
	if err := h.store.addPoints(ctx, o.User, o.Points); err != nil {
		d.Nack(false, true)
		return
	}
	if err := h.store.markPaid(ctx, o.ID); err != nil {
		d.Nack(false, true)
		return
	}
	d.Ack(false)
}

// validated compares a state nothing writes (the owner): validation, not a
// dedup.
func (h *H) validated(ctx context.Context, d amqp.Delivery) {
	o, err := h.store.get(ctx, string(d.Body))
	if err != nil || o.User == "" {
		d.Nack(false, true)
		return
	}
	if err := h.store.addPoints(ctx, o.User, o.Points); err != nil { // want `IDEM001`
		d.Nack(false, true)
		return
	}
	d.Ack(false)
}

// otherColumn checks the status but writes another column of the table.
func (h *H) otherColumn(ctx context.Context, d amqp.Delivery) {
	o, err := h.store.get(ctx, string(d.Body))
	if err != nil || o.Status == "paid" {
		d.Nack(false, true)
		return
	}
	if err := h.store.addPoints(ctx, o.User, o.Points); err != nil { // want `IDEM001`
		d.Nack(false, true)
		return
	}
	h.store.touch(ctx, o.ID)
	d.Ack(false) // want `also runs when .* fails: its error is discarded and the message lost \(IDEM003\)`
}

// swallowed: the state check guards the effect, but a failure of the
// effect is acked.
func (h *H) swallowed(ctx context.Context, d amqp.Delivery) {
	o, err := h.store.get(ctx, string(d.Body))
	if err != nil {
		d.Nack(false, true)
		return
	}
	if o.Status == "paid" {
		d.Ack(false)
		return
	}
	if err := h.store.addPoints(ctx, o.User, o.Points); err != nil {
		log.Print(err)
		d.Ack(false) // want `IDEM003`
		return
	}
	h.store.markPaid(ctx, o.ID)
	d.Ack(false) // want `also runs when .* fails: its error is discarded and the message lost \(IDEM003\)`
}

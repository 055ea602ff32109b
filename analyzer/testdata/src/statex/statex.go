package statex

// statex: handlers that read the entity a message is about and skip
// when its state says the work is done (a lookup, then a write of that
// state: accepted as check-then-act), and handlers whose reads are not
// dedup checks.

import (
	"context"
	"database/sql"
	"log"
	"time"

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
	_, err := p.DB.ExecContext(ctx, "UPDATE orders SET reviewed_at = NOW() WHERE id = $1", id)
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

// Sub is a subscription row: the status last sent, joined with the
// status the alert has now.
type Sub struct {
	ID         string
	User       string
	LastStatus string
	Status     string
}

func (p *Store) sub(ctx context.Context, id string) (Sub, error) {
	var s Sub
	err := p.DB.QueryRowContext(ctx, "SELECT sub.id, sub.user_id, sub.last_status, a.status FROM subscriptions sub JOIN alerts a ON a.id = sub.alert_id WHERE sub.id = $1 FOR UPDATE SKIP LOCKED", id).Scan(&s.ID, &s.User, &s.LastStatus, &s.Status)
	return s, err
}

func (p *Store) setLastStatus(ctx context.Context, id, status string) error {
	_, err := p.DB.ExecContext(ctx, "UPDATE subscriptions SET last_status = $2 WHERE id = $1", id, status)
	return err
}

// caughtUp reads a row returned by value (sqlc's :one) and compares two
// fields of it, the status recorded against
// the status to reach, and writes the recorded one with the effect: a
// state check.
func (h *H) caughtUp(ctx context.Context, d amqp.Delivery) {
	s, err := h.store.sub(ctx, string(d.Body))
	if err != nil {
		d.Nack(false, true)
		return
	}
	if s.LastStatus == s.Status {
		d.Ack(false)
		return
	}
	if err := h.store.addPoints(ctx, s.User, 1); err != nil {
		d.Nack(false, true)
		return
	}
	if err := h.store.setLastStatus(ctx, s.ID, s.Status); err != nil {
		d.Nack(false, true)
		return
	}
	d.Ack(false)
}

// sameUser compares two fields of one row, neither of which it writes:
// validation, not a dedup.
func (h *H) sameUser(ctx context.Context, d amqp.Delivery) {
	s, err := h.store.sub(ctx, string(d.Body))
	if err != nil {
		d.Nack(false, true)
		return
	}
	if s.User == s.ID {
		d.Ack(false)
		return
	}
	if err := h.store.addPoints(ctx, s.User, 1); err != nil { // want `IDEM001`
		d.Nack(false, true)
		return
	}
	d.Ack(false)
}

// Job is a row of a job table.
type Job struct {
	ID   string
	User string
}

func (p *Store) pendingJobs(ctx context.Context) ([]Job, error) {
	rows, err := p.DB.QueryContext(ctx, "SELECT id, user_id FROM point_jobs WHERE done_at IS NULL ORDER BY id FOR UPDATE SKIP LOCKED LIMIT 100")
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Job
	for rows.Next() {
		var j Job
		if err := rows.Scan(&j.ID, &j.User); err != nil {
			return nil, err
		}
		out = append(out, j)
	}
	return out, rows.Err()
}

func (p *Store) finishJob(ctx context.Context, id string) error {
	_, err := p.DB.ExecContext(ctx, "UPDATE point_jobs SET done_at = NOW() WHERE id = $1", id)
	return err
}

func (p *Store) touchJob(ctx context.Context, id string) error {
	_, err := p.DB.ExecContext(ctx, "UPDATE point_jobs SET tries = 3 WHERE id = $1", id)
	return err
}

// jobs takes the jobs not done yet and marks each done with its effect:
// the WHERE done_at IS NULL is the dedup.
func (h *H) jobs(ctx context.Context, d amqp.Delivery) {
	jobs, err := h.store.pendingJobs(ctx)
	if err != nil {
		d.Nack(false, true)
		return
	}
	for _, j := range jobs {
		if err := h.store.addPoints(ctx, j.User, 1); err != nil {
			d.Nack(false, true)
			return
		}
		if err := h.store.finishJob(ctx, j.ID); err != nil {
			d.Nack(false, true)
			return
		}
	}
	d.Ack(false)
}

// jobsUnmarked takes the same jobs but writes another column: every
// redelivery handles them again.
func (h *H) jobsUnmarked(ctx context.Context, d amqp.Delivery) {
	jobs, err := h.store.pendingJobs(ctx)
	if err != nil {
		d.Nack(false, true)
		return
	}
	for _, j := range jobs {
		if err := h.store.addPoints(ctx, j.User, 1); err != nil { // want `IDEM001`
			d.Nack(false, true)
			return
		}
		if err := h.store.touchJob(ctx, j.ID); err != nil {
			d.Nack(false, true)
			return
		}
	}
	d.Ack(false)
}

func (p *Store) dueJobs(ctx context.Context, now time.Time) ([]Job, error) {
	rows, err := p.DB.QueryContext(ctx, "SELECT id, user_id FROM point_jobs WHERE next_run_at <= $1 ORDER BY id FOR UPDATE SKIP LOCKED", now)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Job
	for rows.Next() {
		var j Job
		if err := rows.Scan(&j.ID, &j.User); err != nil {
			return nil, err
		}
		out = append(out, j)
	}
	return out, rows.Err()
}

func (p *Store) rescheduleJob(ctx context.Context, id string, next time.Time) error {
	_, err := p.DB.ExecContext(ctx, "UPDATE point_jobs SET next_run_at = $2 WHERE id = $1", id, next)
	return err
}

// dueJobs takes the jobs whose time has come and moves each one's time on
// with its effect: the WHERE next_run_at <= $1 is the dedup.
func (h *H) dueJobs(ctx context.Context, d amqp.Delivery) {
	now := time.Now()
	jobs, err := h.store.dueJobs(ctx, now)
	if err != nil {
		d.Nack(false, true)
		return
	}
	for _, j := range jobs {
		if err := h.store.addPoints(ctx, j.User, 1); err != nil {
			d.Nack(false, true)
			return
		}
		if err := h.store.rescheduleJob(ctx, j.ID, now.Add(time.Hour)); err != nil {
			d.Nack(false, true)
			return
		}
	}
	d.Ack(false)
}

// dueJobsKept takes the same jobs but leaves their time: every redelivery
// handles them again.
func (h *H) dueJobsKept(ctx context.Context, d amqp.Delivery) {
	jobs, err := h.store.dueJobs(ctx, time.Now())
	if err != nil {
		d.Nack(false, true)
		return
	}
	for _, j := range jobs {
		if err := h.store.addPoints(ctx, j.User, 1); err != nil { // want `IDEM001`
			d.Nack(false, true)
			return
		}
		if err := h.store.touchJob(ctx, j.ID); err != nil {
			d.Nack(false, true)
			return
		}
	}
	d.Ack(false)
}

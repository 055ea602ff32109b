package statex

// Sweeps: a handler that takes the rows still in a state (pending jobs,
// payments not expired yet) and moves each out of it. A row whose step
// fails before its state is written stays in that state, and the next
// sweep takes it again: acking the message after logging that failure
// loses nothing. A row whose state was written before the failing step is
// out of the sweep's reach: that failure is lost.

import (
	"context"
	"log"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"
	"gorm.io/gorm"
)

// Payment is a payment row.
type Payment struct {
	ID     string
	User   string
	Status string
}

type Payments struct{ db *gorm.DB }

func (p *Payments) expired() ([]*Payment, error) {
	var ps []*Payment
	if err := p.db.Where("status IN ?", []string{"created", "pending"}).Where("expires_at < ?", time.Now()).Find(&ps).Error; err != nil {
		return nil, err
	}
	return ps, nil
}

func (p *Payments) all() ([]*Payment, error) {
	var ps []*Payment
	if err := p.db.Where("expires_at < ?", time.Now()).Find(&ps).Error; err != nil {
		return nil, err
	}
	return ps, nil
}

func (p *Payments) setStatus(id, status string) error {
	return p.db.Model(&Payment{}).Where("id = ?", id).Updates(map[string]interface{}{"status": status, "updated_at": time.Now()}).Error
}

// sweepExpired expires the payments still created or pending: one whose
// update fails stays pending for the next sweep.
func (p *Payments) sweepExpired(ctx context.Context, m amqp.Delivery) {
	ps, err := p.expired()
	if err != nil {
		m.Nack(false, true)
		return
	}
	for _, x := range ps {
		if err := p.setStatus(x.ID, "expired"); err != nil {
			log.Print(err)
			continue
		}
	}
	m.Ack(false)
}

// sweepAll updates rows taken in no state: a failed one is not taken again.
func (p *Payments) sweepAll(ctx context.Context, m amqp.Delivery) {
	ps, err := p.all()
	if err != nil {
		m.Nack(false, true)
		return
	}
	for _, x := range ps {
		if err := p.setStatus(x.ID, "expired"); err != nil {
			log.Print(err)
			continue
		}
	}
	m.Ack(false) // want `IDEM003`
}

// sweepJobs adds each pending job's points, then marks it done: a job
// whose points fail is still pending, and the next sweep adds them; but one
// whose marking fails after its points were added is still pending too,
// and the next sweep adds them again.
func (h *H) sweepJobs(ctx context.Context, d amqp.Delivery) {
	jobs, err := h.store.pendingJobs(ctx)
	if err != nil {
		d.Nack(false, true)
		return
	}
	for _, j := range jobs {
		if err := h.store.addPoints(ctx, j.User, 1); err != nil {
			log.Print(err)
			continue
		}
		if err := h.store.finishJob(ctx, j.ID); err != nil {
			log.Print(err)
			continue
		}
	}
	d.Ack(false) // want `also runs when statex.Store.finishJob fails`
}

// sweepMarkedFirst marks each job done before its points: when adding
// them fails the job is no longer pending, and the points are lost.
func (h *H) sweepMarkedFirst(ctx context.Context, d amqp.Delivery) {
	jobs, err := h.store.pendingJobs(ctx)
	if err != nil {
		d.Nack(false, true)
		return
	}
	for _, j := range jobs {
		if err := h.store.finishJob(ctx, j.ID); err != nil {
			log.Print(err)
			continue
		}
		if err := h.store.addPoints(ctx, j.User, 1); err != nil {
			log.Print(err)
			continue
		}
	}
	d.Ack(false) // want `IDEM003`
}

// sweepPoints only adds each pending job's points and marks it done in the
// same call: a failure leaves the job pending, with nothing done.
func (h *H) sweepPoints(ctx context.Context, d amqp.Delivery) {
	jobs, err := h.store.pendingJobs(ctx)
	if err != nil {
		d.Nack(false, true)
		return
	}
	for _, j := range jobs {
		if err := h.store.finishJob(ctx, j.ID); err != nil {
			log.Print(err)
			continue
		}
	}
	d.Ack(false)
}

package statex

// State checks on xorm rows: Get(&bean), a branch on a field, an Update of
// the same bean type that writes it.

import (
	"context"

	amqp "github.com/rabbitmq/amqp091-go"
	"xorm.io/xorm"
)

type Mirror struct {
	ID     int64
	Status int
	Synced int
}

type Task struct {
	ID       int64
	MirrorID int64
}

type Mirrors struct{ x *xorm.Engine }

func (m *Mirrors) byID(id int64) (*Mirror, error) {
	mr := &Mirror{}
	_, err := m.x.ID(id).Get(mr)
	return mr, err
}

// synced skips a mirror whose status says it was synced; the status is
// written back with the task it inserts.
func (m *Mirrors) synced(ctx context.Context, d amqp.Delivery, id int64) {
	mr, err := m.byID(id)
	if err != nil {
		d.Nack(false, true)
		return
	}
	if mr.Status == 2 {
		d.Ack(false)
		return
	}
	if _, err := m.x.Insert(&Task{MirrorID: mr.ID}); err != nil {
		d.Nack(false, true)
		return
	}
	mr.Status = 2
	if _, err := m.x.ID(mr.ID).Cols("status").Update(mr); err != nil {
		d.Nack(false, true)
		return
	}
	d.Ack(false)
}

// counted compares Synced but the update writes only the status.
func (m *Mirrors) counted(ctx context.Context, d amqp.Delivery, id int64) {
	mr, err := m.byID(id)
	if err != nil || mr.Synced > 0 {
		d.Nack(false, true)
		return
	}
	if _, err := m.x.Insert(&Task{MirrorID: mr.ID}); err != nil { // want `IDEM001`
		d.Nack(false, true)
		return
	}
	if _, err := m.x.ID(mr.ID).Cols("status").Update(mr); err != nil {
		d.Nack(false, true)
		return
	}
	d.Ack(false)
}

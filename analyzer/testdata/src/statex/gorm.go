package statex // want package:"idemfacts"

// State checks on gorm rows: First(&o), a branch on a field, an update of
// the same model that sets it. Where an update's Error goes unread and the
// handler acks, a failed update is lost (IDEM003).

import (
	"context"

	amqp "github.com/rabbitmq/amqp091-go"
	"gorm.io/gorm"
)

type Invoice struct {
	ID     string
	Status string
	Amount int
}

type Ledger struct {
	ID      string
	Balance int
}

type Books struct{ db *gorm.DB }

func (b *Books) invoice(id string) (*Invoice, error) {
	var inv Invoice
	err := b.db.First(&inv, "id = ?", id).Error
	return &inv, err
}

// settled skips a settled invoice; the status is set with the effect.
func (b *Books) settled(ctx context.Context, m amqp.Delivery) {
	inv, err := b.invoice(string(m.Body))
	if err != nil {
		m.Nack(false, true)
		return
	}
	if inv.Status == "settled" {
		m.Ack(false)
		return
	}
	if err := b.db.Create(&Ledger{ID: inv.ID, Balance: inv.Amount}).Error; err != nil {
		m.Nack(false, true)
		return
	}
	b.db.Model(&Invoice{}).Where("id = ?", inv.ID).Update("status", "settled")
	m.Ack(false) // want `IDEM003`
}

// amounted compares the amount, which nothing updates.
func (b *Books) amounted(ctx context.Context, m amqp.Delivery) {
	inv, err := b.invoice(string(m.Body))
	if err != nil || inv.Amount == 0 {
		m.Nack(false, true)
		return
	}
	if err := b.db.Create(&Ledger{ID: inv.ID, Balance: inv.Amount}).Error; err != nil { // want `IDEM001`
		m.Nack(false, true)
		return
	}
	b.db.Model(&Invoice{}).Where("id = ?", inv.ID).Updates(&Invoice{Status: "booked"})
	m.Ack(false) // want `IDEM003`
}

type Subscription struct {
	ID   int64
	Name string
}

// subscribe creates the subscription only when the lookup by name found
// none: a zero ID after Take is "not found".
func (b *Books) subscribe(ctx context.Context, m amqp.Delivery) {
	var find Subscription
	err := b.db.WithContext(ctx).Where("name = ?", string(m.Body)).Take(&find).Error
	if err != nil && err != gorm.ErrRecordNotFound {
		m.Nack(false, true)
		return
	}
	if find.ID <= 0 {
		if err := b.db.WithContext(ctx).Create(&Subscription{Name: string(m.Body)}).Error; err != nil {
			m.Nack(false, true)
			return
		}
	}
	m.Ack(false)
}

// credit looks up the subscription, but credits a ledger, which the
// lookup does not guard: a zero-ID test of another table is validation.
func (b *Books) credit(ctx context.Context, m amqp.Delivery) {
	var find Subscription
	if err := b.db.WithContext(ctx).Where("name = ?", string(m.Body)).Take(&find).Error; err != nil && err != gorm.ErrRecordNotFound {
		m.Nack(false, true)
		return
	}
	if find.ID == 0 {
		m.Nack(false, false)
		return
	}
	if err := b.db.Create(&Ledger{ID: find.Name, Balance: 1}).Error; err != nil { // want `IDEM001`
		m.Nack(false, true)
		return
	}
	m.Ack(false)
}

type Refund struct {
	ID       string
	Item     string
	Amount   int
	Refunded bool
}

// refunded reads the refund's rows with Find and skips them when the first
// is marked; the mark is set with the effect.
func (b *Books) refunded(ctx context.Context, m amqp.Delivery) {
	var rows []Refund
	if err := b.db.Model(&Refund{}).Where("id = ?", string(m.Body)).Find(&rows).Error; err != nil {
		m.Nack(false, true)
		return
	}
	if len(rows) == 0 || rows[0].Refunded {
		m.Ack(false)
		return
	}
	tx := b.db.Begin()
	for _, r := range rows {
		if err := tx.Model(&Ledger{}).Where("id = ?", r.Item).Update("balance", gorm.Expr("balance + ?", r.Amount)).Error; err != nil {
			tx.Rollback()
			m.Nack(false, true)
			return
		}
	}
	tx.Model(&Refund{}).Where("id = ?", string(m.Body)).Update("refunded", true)
	tx.Commit()
	m.Ack(false) // want `IDEM003`
}

// refundedUnmarked reads the rows the same way, but nothing sets the flag.
func (b *Books) refundedUnmarked(ctx context.Context, m amqp.Delivery) {
	var rows []Refund
	if err := b.db.Model(&Refund{}).Where("id = ?", string(m.Body)).Find(&rows).Error; err != nil {
		m.Nack(false, true)
		return
	}
	if len(rows) == 0 || rows[0].Refunded {
		m.Ack(false)
		return
	}
	for _, r := range rows {
		b.db.Model(&Ledger{}).Where("id = ?", r.Item).Update("balance", gorm.Expr("balance + ?", r.Amount)) // want `IDEM001`
	}
	m.Ack(false) // want `IDEM003`
}

// recount tests the chain's Error, logs a failure and acks: the recount
// it failed is lost. Its twin naks.
func (b *Books) recount(ctx context.Context, m amqp.Delivery) {
	if err := b.db.WithContext(ctx).Exec(`UPDATE invoices SET amount = (SELECT sum(amount) FROM lines WHERE invoice_id = ?) WHERE id = ?`, string(m.Body), string(m.Body)).Error; err != nil {
		println(err.Error())
	}
	m.Ack(false) // want `IDEM003`
}

func (b *Books) recountNak(ctx context.Context, m amqp.Delivery) {
	if err := b.db.WithContext(ctx).Exec(`UPDATE invoices SET amount = (SELECT sum(amount) FROM lines WHERE invoice_id = ?) WHERE id = ?`, string(m.Body), string(m.Body)).Error; err != nil {
		m.Nack(false, true)
		return
	}
	m.Ack(false)
}

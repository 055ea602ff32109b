// Package rmwx (whole-program mode): read-modify-write in the program. A
// handler reads a row, changes a field by arithmetic on its read value and
// writes the column back as a value: SQL sees an overwrite, but a
// redelivery adds again.
package rmwx

import (
	"context"
	"database/sql"

	amqp "github.com/rabbitmq/amqp091-go"
	"gorm.io/gorm"
)

// Wallet is a wallet row.
type Wallet struct {
	ID      string
	UserID  string
	Balance int
}

// AddBalance adds v to the balance.
func (w *Wallet) AddBalance(v int) { w.Balance += v }

// Repo reads and writes wallets.
type Repo interface {
	FindByUser(ctx context.Context, user string) (Wallet, error)
	Update(ctx context.Context, w *Wallet) error
}

type gormRepo struct{ db *gorm.DB }

// NewRepo returns the gorm repository.
func NewRepo(db *gorm.DB) Repo { return &gormRepo{db} }

func (r *gormRepo) FindByUser(ctx context.Context, user string) (Wallet, error) {
	var w Wallet
	err := r.db.WithContext(ctx).Where("user_id = ?", user).FirstOrInit(&w).Error
	return w, err
}

func (r *gormRepo) Update(ctx context.Context, w *Wallet) error {
	return r.db.WithContext(ctx).Model(&Wallet{}).Where("user_id = ?", w.UserID).Update("balance", w.Balance).Error
}

type H struct {
	repo Repo
	db   *sql.DB
}

// credit adds the message's amount in the program and writes the sum back.
func (h *H) credit(ctx context.Context, d amqp.Delivery) {
	w, err := h.repo.FindByUser(ctx, string(d.Body))
	if err != nil {
		d.Nack(false, true)
		return
	}
	w.AddBalance(10)
	if err := h.repo.Update(ctx, &w); err != nil { // want `IDEM001`
		d.Nack(false, true)
		return
	}
	d.Ack(false)
}

// creditInline is the same with the sum written inline.
func (h *H) creditInline(ctx context.Context, d amqp.Delivery) {
	w, err := h.repo.FindByUser(ctx, string(d.Body))
	if err != nil {
		d.Nack(false, true)
		return
	}
	w.Balance -= 5
	if err := h.repo.Update(ctx, &w); err != nil { // want `sets Balance, changed by the program from its read value`
		d.Nack(false, true)
		return
	}
	d.Ack(false)
}

// setBalance writes the balance the message carries: an overwrite.
func (h *H) setBalance(ctx context.Context, d amqp.Delivery) {
	w, err := h.repo.FindByUser(ctx, string(d.Body))
	if err != nil {
		d.Nack(false, true)
		return
	}
	w.Balance = len(d.Body)
	if err := h.repo.Update(ctx, &w); err != nil {
		d.Nack(false, true)
		return
	}
	d.Ack(false)
}

// Totals is a recount, not a read row.
type Totals struct {
	UserID  string
	Balance int
}

// recount sums the user's entries from zero and writes the total.
func (h *H) recount(ctx context.Context, d amqp.Delivery) {
	rows, err := h.db.QueryContext(ctx, "SELECT amount FROM entries WHERE user_id = $1", string(d.Body))
	if err != nil {
		d.Nack(false, true)
		return
	}
	defer rows.Close()
	t := &Totals{UserID: string(d.Body)}
	for rows.Next() {
		var n int
		if err := rows.Scan(&n); err != nil {
			d.Nack(false, true)
			return
		}
		t.Balance += n
	}
	if _, err := h.db.ExecContext(ctx, "UPDATE wallets SET balance = $1 WHERE user_id = $2", t.Balance, t.UserID); err != nil {
		d.Nack(false, true)
		return
	}
	d.Ack(false)
}

// restock reads a stock count into a variable, adds the message's quantity
// (capped) and writes the sum back: a redelivery adds it again.
func (h *H) restock(ctx context.Context, d amqp.Delivery) {
	var q int
	if err := h.db.QueryRowContext(ctx, "SELECT quantity FROM stock WHERE id = $1", string(d.Body)).Scan(&q); err != nil {
		d.Nack(false, true)
		return
	}
	n := q + len(d.Body)
	if n > 100 {
		n = 100
	}
	if _, err := h.db.ExecContext(ctx, "UPDATE stock SET quantity = $1 WHERE id = $2", n, string(d.Body)); err != nil { // want `writes a value computed by the program from the one read at line`
		d.Nack(false, true)
		return
	}
	d.Ack(false)
}

// restockTo reads the count only to log it and writes the quantity the
// message carries: an overwrite.
func (h *H) restockTo(ctx context.Context, d amqp.Delivery) {
	var q int
	if err := h.db.QueryRowContext(ctx, "SELECT quantity FROM stock WHERE id = $1", string(d.Body)).Scan(&q); err != nil {
		d.Nack(false, true)
		return
	}
	if q == len(d.Body) {
		d.Ack(false)
		return
	}
	if _, err := h.db.ExecContext(ctx, "UPDATE stock SET quantity = $1 WHERE id = $2", len(d.Body), string(d.Body)); err != nil {
		d.Nack(false, true)
		return
	}
	d.Ack(false)
}

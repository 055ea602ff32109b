package statex

// A state read the way layered services read it: the repository scans the
// row inside a method of a row struct given the query's row, converts the
// row to a domain value, and the handler reads the state through a getter.

import (
	"context"
	"database/sql"
	"errors"

	amqp "github.com/rabbitmq/amqp091-go"
)

type rowScanner interface {
	Scan(dest ...any) error
}

type transferRow struct {
	ID     string
	Status string
	Owner  string
	Amount int
}

func (r *transferRow) scanInto(s rowScanner) error {
	return s.Scan(&r.ID, &r.Status, &r.Owner, &r.Amount)
}

func (r transferRow) toDomain() Transfer {
	return Transfer{id: r.ID, status: r.Status, owner: r.Owner, amount: r.Amount}
}

// Transfer is a domain value: its state is read through getters.
type Transfer struct {
	id     string
	status string
	owner  string
	amount int
}

func (p Transfer) Status() string { return p.status }
func (p Transfer) Owner() string  { return p.owner }
func (p Transfer) Amount() int    { return p.amount }

var errTransferNotFound = errors.New("transfer not found")

type Transfers struct{ DB *sql.DB }

func (r *Transfers) byID(ctx context.Context, id string) (Transfer, error) {
	var row transferRow
	if err := row.scanInto(r.DB.QueryRowContext(ctx, "SELECT id, status, owner, amount FROM transfers WHERE id = $1", id)); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return Transfer{}, errTransferNotFound
		}
		return Transfer{}, err
	}
	return row.toDomain(), nil
}

// settle moves the transfer to settled and records the transition in one
// statement: the UPDATE is a writing CTE of the history INSERT (an effect
// as the classifier reads it).
func (r *Transfers) settle(ctx context.Context, id string) error { // want settle:`effects\(sql.DB.ExecContext "WITH moved AS \( UPDATE transfers SET status = 'settled' WHERE i…"\)`
	const q = `WITH moved AS (
		UPDATE transfers SET status = 'settled' WHERE id = $1 AND status = 'pending' RETURNING id
	)
	INSERT INTO transfer_history (transfer_id, status) SELECT id, 'settled' FROM moved`
	_, err := r.DB.ExecContext(ctx, q, id)
	return err
}

func (r *Transfers) credit(ctx context.Context, owner string, n int) error { // want credit:`effects\(sql.DB.ExecContext "UPDATE wallets SET balance = balance \+ \$1 WHERE owner = \$2"\)`
	_, err := r.DB.ExecContext(ctx, "UPDATE wallets SET balance = balance + $1 WHERE owner = $2", n, owner)
	return err
}

type TransferHandler struct{ transfers *Transfers }

// settled skips a settled transfer; the status is written with the credit.
func (h *TransferHandler) settled(ctx context.Context, d amqp.Delivery) {
	p, err := h.transfers.byID(ctx, string(d.Body))
	if err != nil {
		d.Nack(false, true)
		return
	}
	if p.Status() == "settled" {
		d.Ack(false)
		return
	}
	if err := h.transfers.credit(ctx, p.Owner(), p.Amount()); err != nil {
		d.Nack(false, true)
		return
	}
	if err := h.transfers.settle(ctx, string(d.Body)); err != nil {
		d.Nack(false, true)
		return
	}
	d.Ack(false)
}

// owned compares the owner, which nothing writes: validation, no dedup.
func (h *TransferHandler) owned(ctx context.Context, d amqp.Delivery) {
	p, err := h.transfers.byID(ctx, string(d.Body))
	if err != nil || p.Owner() == "" {
		d.Nack(false, true)
		return
	}
	if err := h.transfers.credit(ctx, p.Owner(), p.Amount()); err != nil { // want `IDEM001`
		d.Nack(false, true)
		return
	}
	if err := h.transfers.settle(ctx, string(d.Body)); err != nil { // want `IDEM001`
		d.Nack(false, true)
		return
	}
	d.Ack(false)
}

// Package inboxx (whole-program mode: the inbox is reached through an
// interface): an inbox table as the dedup. The handler looks the
// message id up in the inbox (SELECT 1 … WHERE message_id = $1, its scanned
// value compared with 1), skips a message found there, and records it.
package inboxx

import (
	"context"
	"database/sql"
	"errors"

	amqp "github.com/rabbitmq/amqp091-go"
)

// Inbox records the messages handled.
type Inbox interface {
	Exists(ctx context.Context, tx *sql.Tx, id string) (bool, error)
	Store(ctx context.Context, tx *sql.Tx, id string) error
}

type pgInbox struct{}

func (pgInbox) Exists(ctx context.Context, tx *sql.Tx, id string) (bool, error) {
	var result int
	if err := tx.QueryRowContext(ctx, "SELECT 1 FROM inbox WHERE message_id = $1", id).Scan(&result); err != nil {
		return false, err
	}
	return result == 1, nil
}

func (pgInbox) Store(ctx context.Context, tx *sql.Tx, id string) error {
	_, err := tx.ExecContext(ctx, "INSERT INTO inbox (message_id, status) VALUES ($1, 'done')", id)
	return err
}

// NewInbox returns the inbox.
func NewInbox() Inbox { return pgInbox{} }

type Handler struct {
	db    *sql.DB
	inbox Inbox
}

func reserve(ctx context.Context, tx *sql.Tx, sku string) error {
	_, err := tx.ExecContext(ctx, "UPDATE stock SET qty = qty - 1 WHERE sku = $1", sku)
	return err
}

// handle skips a message its inbox holds, and records it with the stock
// change in one transaction: check-then-act, accepted.
func (h *Handler) handle(ctx context.Context, d amqp.Delivery) error {
	tx, err := h.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	exists, err := h.inbox.Exists(ctx, tx, d.MessageId)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return err
	}
	if exists {
		return d.Ack(false)
	}
	if err := h.inbox.Store(ctx, tx, d.MessageId); err != nil {
		return err
	}
	if err := reserve(ctx, tx, string(d.Body)); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	return d.Ack(false)
}

// unchecked records the message but never looks it up.
func (h *Handler) unchecked(ctx context.Context, d amqp.Delivery) error {
	tx, err := h.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := h.inbox.Store(ctx, tx, d.MessageId); err != nil { // want `IDEM001`
		return err
	}
	if err := reserve(ctx, tx, string(d.Body)); err != nil { // want `IDEM001`
		return err
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	return d.Ack(false)
}

// txKey keys the transaction a context carries.
type txKey struct{}

func txOf(ctx context.Context) *sql.Tx {
	tx, _ := ctx.Value(txKey{}).(*sql.Tx)
	return tx
}

// CtxInbox is an inbox whose methods take their transaction from the
// context.
type CtxInbox interface {
	Exists(ctx context.Context, id string) (bool, error)
	Store(ctx context.Context, id string) error
}

type ctxInbox struct{}

func (ctxInbox) Exists(ctx context.Context, id string) (bool, error) {
	var result int
	if err := txOf(ctx).QueryRowContext(ctx, "SELECT 1 FROM inbox WHERE message_id = $1", id).Scan(&result); err != nil {
		return false, err
	}
	return result == 1, nil
}

func (ctxInbox) Store(ctx context.Context, id string) error {
	_, err := txOf(ctx).ExecContext(ctx, "INSERT INTO inbox (message_id, status) VALUES ($1, 'pending')", id)
	return err
}

// NewCtxInbox returns the inbox.
func NewCtxInbox() CtxInbox { return ctxInbox{} }

func reserveIn(ctx context.Context, sku string) error {
	_, err := txOf(ctx).ExecContext(ctx, "UPDATE stock SET qty = qty - 1 WHERE sku = $1", sku)
	return err
}

type CtxHandler struct {
	db    *sql.DB
	inbox CtxInbox
}

// oneTx hands one transaction through the context to the inbox and the
// work: they commit together.
func (h *CtxHandler) oneTx(ctx context.Context, d amqp.Delivery) error {
	tx, err := h.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	c := context.WithValue(ctx, txKey{}, tx)
	exists, err := h.inbox.Exists(c, d.MessageId)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return err
	}
	if exists {
		return d.Ack(false)
	}
	if err := h.inbox.Store(c, d.MessageId); err != nil {
		return err
	}
	if err := reserveIn(c, string(d.Body)); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	return d.Ack(false)
}

// twoTx commits the inbox row in one transaction and does the work in
// another, each handed through the context: when the work fails, or the
// process dies between them, the redelivery finds the row and skips it.
func (h *CtxHandler) twoTx(ctx context.Context, d amqp.Delivery) error {
	tx, err := h.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	c := context.WithValue(ctx, txKey{}, tx)
	exists, err := h.inbox.Exists(c, d.MessageId)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return err
	}
	if exists {
		return d.Ack(false)
	}
	if err := h.inbox.Store(c, d.MessageId); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	work, err := h.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer work.Rollback()
	wc := context.WithValue(ctx, txKey{}, work)
	if err := reserveIn(wc, string(d.Body)); err != nil { // want `IDEM006`
		return err
	}
	if err := work.Commit(); err != nil {
		return err
	}
	return d.Ack(false)
}

package inventory

import (
	"context"
	"database/sql"
	"errors"
	"log/slog"

	"github.com/IBM/sarama"
	"github.com/jackc/pgx/v5/pgconn"

	"example.com/realmod/db"
)

type base struct {
	DB  *sql.DB
	Log *slog.Logger
}

func (base) Setup(sarama.ConsumerGroupSession) error   { return nil }
func (base) Cleanup(sarama.ConsumerGroupSession) error { return nil }

// DeductHandler deducts stock for orders.created.
type DeductHandler struct{ base }

// ConsumeClaim claims each message in an inbox table and deducts stock in the
// same transaction (helpers in apply.go); a duplicate commits nothing but the
// offset. Poison messages are marked and skipped. A failed transaction
// returns the error, so the session ends and the offset stays uncommitted.
//
// truth: ok
func (h *DeductHandler) ConsumeClaim(sess sarama.ConsumerGroupSession, claim sarama.ConsumerGroupClaim) error {
	ctx := sess.Context()
	for msg := range claim.Messages() {
		ev, err := decodeOrder(msg.Value)
		if err != nil {
			h.Log.Warn("skip poison message", "offset", msg.Offset, "err", err)
			sess.MarkMessage(msg, "")
			continue
		}
		err = inTx(ctx, h.DB, func(tx *sql.Tx) error {
			fresh, err := claimInbox(ctx, tx, "deduct_inventory", ev.OrderID+"/"+ev.SKU)
			if err != nil || !fresh {
				return err
			}
			return deductStock(ctx, tx, ev.SKU, ev.Quantity)
		})
		if err != nil {
			return err
		}
		sess.MarkMessage(msg, "")
	}
	return nil
}

// ReserveHandler reserves stock through the sqlc queries.
type ReserveHandler struct {
	base
	Q *db.Queries
}

// ConsumeClaim deducts stock with the sqlc query straight on the pool, no
// dedup: a rebalance that redelivers the batch after the deduction and before
// the offset commit deducts twice.
//
// truth: bug IDEM001
func (h *ReserveHandler) ConsumeClaim(sess sarama.ConsumerGroupSession, claim sarama.ConsumerGroupClaim) error {
	for msg := range claim.Messages() {
		ev, err := decodeOrder(msg.Value)
		if err != nil {
			sess.MarkMessage(msg, "")
			continue
		}
		if err := h.Q.DeductStock(sess.Context(), int32(ev.Quantity), ev.SKU); err != nil {
			return err
		}
		sess.MarkMessage(msg, "")
	}
	return nil
}

// RestockHandler applies warehouse stock takes.
type RestockHandler struct{ base }

// ConsumeClaim writes the absolute quantity from a stock take, only when the
// count is newer than the stored one: replays and out-of-order duplicates
// change nothing.
//
// truth: ok
func (h *RestockHandler) ConsumeClaim(sess sarama.ConsumerGroupSession, claim sarama.ConsumerGroupClaim) error {
	for msg := range claim.Messages() {
		var ev StockCounted
		if err := jsonUnmarshal(msg.Value, &ev); err != nil {
			sess.MarkMessage(msg, "")
			continue
		}
		_, err := h.DB.ExecContext(sess.Context(),
			`UPDATE stock SET qty = $1, count_version = $2 WHERE sku = $3 AND count_version < $2`,
			ev.OnHand, ev.Version, ev.SKU)
		if err != nil {
			return err
		}
		sess.MarkMessage(msg, "")
	}
	return nil
}

// ReleaseHandler gives stock back when an order is cancelled.
type ReleaseHandler struct{ base }

// ConsumeClaim dedups correctly in one transaction, but when the transaction
// fails (database down) it logs and marks the offset anyway: the stock is
// never released.
//
// truth: bug IDEM003
func (h *ReleaseHandler) ConsumeClaim(sess sarama.ConsumerGroupSession, claim sarama.ConsumerGroupClaim) error {
	ctx := sess.Context()
	for msg := range claim.Messages() {
		ev, err := decodeOrder(msg.Value)
		if err != nil {
			sess.MarkMessage(msg, "")
			continue
		}
		tx, err := h.DB.BeginTx(ctx, nil)
		if err != nil {
			h.Log.Error("begin", "err", err)
			sess.MarkMessage(msg, "")
			continue
		}
		fresh, err := claimInbox(ctx, tx, "release_inventory", ev.OrderID)
		if err == nil && fresh {
			_, err = tx.ExecContext(ctx, `UPDATE stock SET qty = qty + $1 WHERE sku = $2`, ev.Quantity, ev.SKU)
		}
		if err == nil {
			err = tx.Commit()
		} else {
			_ = tx.Rollback()
		}
		if err != nil {
			h.Log.Error("release failed, skipping", "order", ev.OrderID, "err", err)
		}
		sess.MarkMessage(msg, "")
	}
	return nil
}

// SplitTxHandler deducts stock with the sqlc queries.
type SplitTxHandler struct {
	base
	Q *db.Queries
}

// ConsumeClaim records the message with MarkProcessed on the pool (its own
// implicit transaction) and then deducts in a second transaction: a crash
// between the two leaves the message marked and the stock untouched, and the
// redelivery skips it.
//
// truth: bug IDEM006
func (h *SplitTxHandler) ConsumeClaim(sess sarama.ConsumerGroupSession, claim sarama.ConsumerGroupClaim) error {
	ctx := sess.Context()
	for msg := range claim.Messages() {
		ev, err := decodeOrder(msg.Value)
		if err != nil {
			sess.MarkMessage(msg, "")
			continue
		}
		n, err := h.Q.MarkProcessed(ctx, "deduct_inventory", ev.OrderID)
		if err != nil {
			return err
		}
		if n == 0 {
			sess.MarkMessage(msg, "")
			continue
		}
		tx, err := h.DB.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		if err := h.Q.WithTx(tx).DeductStock(ctx, int32(ev.Quantity), ev.SKU); err != nil {
			_ = tx.Rollback()
			return err
		}
		if err := tx.Commit(); err != nil {
			return err
		}
		sess.MarkMessage(msg, "")
	}
	return nil
}

// UniqueHandler deducts stock, using a plain INSERT into processed_orders
// whose unique violation means "seen before".
type UniqueHandler struct{ base }

// ConsumeClaim inserts the dedup row first in the transaction; a 23505 unique
// violation rolls back and marks the duplicate; otherwise the deduction runs
// in the same transaction.
//
// truth: ok
func (h *UniqueHandler) ConsumeClaim(sess sarama.ConsumerGroupSession, claim sarama.ConsumerGroupClaim) error {
	ctx := sess.Context()
	for msg := range claim.Messages() {
		ev, err := decodeOrder(msg.Value)
		if err != nil {
			sess.MarkMessage(msg, "")
			continue
		}
		dup, err := h.deductOnce(ctx, ev)
		if err != nil {
			return err
		}
		if dup {
			h.Log.Info("duplicate order", "order", ev.OrderID)
		}
		sess.MarkMessage(msg, "")
	}
	return nil
}

func (h *UniqueHandler) deductOnce(ctx context.Context, ev OrderCreated) (dup bool, err error) {
	tx, err := h.DB.BeginTx(ctx, nil)
	if err != nil {
		return false, err
	}
	defer tx.Rollback() //nolint:errcheck
	_, err = tx.ExecContext(ctx, `INSERT INTO processed_orders (order_id, sku) VALUES ($1, $2)`, ev.OrderID, ev.SKU)
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && pgErr.Code == "23505" {
		return true, nil
	}
	if err != nil {
		return false, err
	}
	if _, err := tx.ExecContext(ctx, `UPDATE stock SET qty = qty - $1 WHERE sku = $2`, ev.Quantity, ev.SKU); err != nil {
		return false, err
	}
	return false, tx.Commit()
}

// LookupHandler deducts stock after looking the order up in a ledger.
type LookupHandler struct{ base }

// ConsumeClaim looks the order up, deducts and writes the ledger row, all in
// one transaction; the ledger's primary key makes a concurrent duplicate fail
// at commit and the redelivery then sees the row. A lookup-then-act in one
// SQL transaction: correct (IDEM005 is -strict only).
//
// truth: ok
func (h *LookupHandler) ConsumeClaim(sess sarama.ConsumerGroupSession, claim sarama.ConsumerGroupClaim) error {
	ctx := sess.Context()
	for msg := range claim.Messages() {
		ev, err := decodeOrder(msg.Value)
		if err != nil {
			sess.MarkMessage(msg, "")
			continue
		}
		tx, err := h.DB.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		var seen bool
		if err := tx.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM stock_ledger WHERE order_id = $1 AND sku = $2)`, ev.OrderID, ev.SKU).Scan(&seen); err != nil {
			_ = tx.Rollback()
			return err
		}
		if !seen {
			if _, err := tx.ExecContext(ctx, `UPDATE stock SET qty = qty - $1 WHERE sku = $2`, ev.Quantity, ev.SKU); err != nil {
				_ = tx.Rollback()
				return err
			}
			if _, err := tx.ExecContext(ctx, `INSERT INTO stock_ledger (order_id, sku, delta) VALUES ($1, $2, $3)`, ev.OrderID, ev.SKU, -ev.Quantity); err != nil {
				_ = tx.Rollback()
				return err
			}
		}
		if err := tx.Commit(); err != nil {
			return err
		}
		sess.MarkMessage(msg, "")
	}
	return nil
}

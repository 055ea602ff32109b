// Package statetx (whole-program mode): a cancel event settled in one
// transaction that a repository finds in the context: the order is read
// FOR UPDATE, skipped when its status says it is done, and its funds
// unlocked before the status is written.
package statetx

import (
	"context"
	"encoding/json"
	"errors"
	"log"

	"github.com/hibiken/asynq"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// OrderStatus is an order's state.
type OrderStatus int16

// The order states.
const (
	StatusNew OrderStatus = iota + 1
	StatusFilled
	StatusCanceled
)

// Order is an order row.
type Order struct {
	ID     string
	UserID string
	Status OrderStatus
	Locked int64
}

// DBExecutor is what a pool and a transaction share.
type DBExecutor interface {
	Exec(ctx context.Context, sql string, arguments ...any) (pgconn.CommandTag, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

type txKey struct{}

// Repo is the orders' and accounts' repository.
type Repo struct{ db *pgxpool.Pool }

// executor is the context's transaction, or the pool.
func (r *Repo) executor(ctx context.Context) DBExecutor {
	if tx, ok := ctx.Value(txKey{}).(pgx.Tx); ok {
		return tx
	}
	return r.db
}

// ExecTx runs fn in a transaction the context carries.
func (r *Repo) ExecTx(ctx context.Context, fn func(ctx context.Context) error) error {
	tx, err := r.db.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx)
	if err := fn(context.WithValue(ctx, txKey{}, tx)); err != nil {
		return err
	}
	return tx.Commit(ctx)
}

// GetOrderForUpdate reads and locks the order id.
func (r *Repo) GetOrderForUpdate(ctx context.Context, id string) (*Order, error) {
	row := r.executor(ctx).QueryRow(ctx, `SELECT id, user_id, status, locked FROM orders WHERE id = $1 FOR UPDATE`, id)
	return scanOrder(row)
}

// rowScanner is a row of either kind.
type rowScanner interface {
	Scan(dest ...any) error
}

// scanOrder scans an order row.
func scanOrder(row rowScanner) (*Order, error) {
	var o Order
	if err := row.Scan(&o.ID, &o.UserID, &o.Status, &o.Locked); err != nil {
		return nil, err
	}
	return &o, nil
}

// ValidToken reports whether token is the engine's current fencing token.
func (r *Repo) ValidToken(ctx context.Context, token int64) (bool, error) {
	var cur int64
	if err := r.executor(ctx).QueryRow(ctx, `SELECT token FROM fencing WHERE name = 'engine' FOR SHARE`).Scan(&cur); err != nil {
		return false, err
	}
	return cur == token, nil
}

// UpdateOrder writes the order's status.
func (r *Repo) UpdateOrder(ctx context.Context, o *Order) error {
	_, err := r.executor(ctx).Exec(ctx, `UPDATE orders SET status = $1 WHERE id = $2`, o.Status, o.ID)
	return err
}

// UnlockFunds moves n from the user's locked funds back to the balance.
func (r *Repo) UnlockFunds(ctx context.Context, user string, n int64) error {
	_, err := r.executor(ctx).Exec(ctx, `UPDATE accounts SET balance = balance + $1, locked = locked - $1 WHERE user_id = $2`, n, user)
	return err
}

// OrderRepository is the orders' side of the repository.
type OrderRepository interface {
	GetOrderForUpdate(ctx context.Context, id string) (*Order, error)
	ValidToken(ctx context.Context, token int64) (bool, error)
	UpdateOrder(ctx context.Context, o *Order) error
}

// AccountRepository is the accounts' side.
type AccountRepository interface {
	UnlockFunds(ctx context.Context, user string, n int64) error
}

// TxManager runs functions in transactions.
type TxManager interface {
	ExecTx(ctx context.Context, fn func(ctx context.Context) error) error
}

// Canceler settles cancel events.
type Canceler struct {
	tx       TxManager
	orders   OrderRepository
	accounts AccountRepository
}

// Cancel unlocks a cancelled order's funds once: a redelivered event finds
// the order cancelled under its row lock and changes nothing.
func (c *Canceler) Cancel(ctx context.Context, t *asynq.Task) error {
	var ev struct {
		OrderID string
		Token   int64
	}
	if err := json.Unmarshal(t.Payload(), &ev); err != nil {
		return err
	}
	return c.cancel(ctx, ev.OrderID, ev.Token)
}

// cancel settles the order in one transaction, behind the engine's fencing
// token, and reports the cancelled order after the commit.
func (c *Canceler) cancel(ctx context.Context, id string, token int64) error {
	var updated *Order
	err := c.tx.ExecTx(ctx, func(ctx context.Context) error {
		if token > 0 {
			valid, err := c.orders.ValidToken(ctx, token)
			if err != nil {
				return err
			}
			if !valid {
				return errStale
			}
		}
		o, err := c.orders.GetOrderForUpdate(ctx, id)
		if err != nil {
			if errors.Is(err, pgx.ErrNoRows) {
				return errStale
			}
			return err
		}
		if o.Status == StatusFilled || o.Status == StatusCanceled {
			return nil
		}
		if n := unlockAmount(o); n > 0 {
			if err := c.accounts.UnlockFunds(ctx, o.UserID, n); err != nil {
				return err
			}
		}
		o.Status = StatusCanceled
		if err := c.orders.UpdateOrder(ctx, o); err != nil {
			return err
		}
		updated = o
		return nil
	})
	if errors.Is(err, errStale) {
		return nil
	}
	if err == nil && updated != nil {
		log.Printf("order %s cancelled", updated.ID)
	}
	return err
}

// Unlock unlocks the funds the event names with no look at the order: a
// redelivered event unlocks them twice.
func (c *Canceler) Unlock(ctx context.Context, t *asynq.Task) error {
	var ev struct {
		OrderID, UserID string
		Amount          int64
	}
	if err := json.Unmarshal(t.Payload(), &ev); err != nil {
		return err
	}
	return c.tx.ExecTx(ctx, func(ctx context.Context) error { // want `effect func literal → statetx.AccountRepository.UnlockFunds .* in handler Canceler.Unlock is not guarded by a dedup check \(IDEM001\)`
		o, err := c.orders.GetOrderForUpdate(ctx, ev.OrderID)
		if err != nil {
			return err
		}
		if o.UserID != ev.UserID {
			return errStale // the owner is validated, not the state
		}
		return c.accounts.UnlockFunds(ctx, ev.UserID, ev.Amount)
	})
}

var errStale = errors.New("stale event")

// unlockAmount is what the order still holds.
func unlockAmount(o *Order) int64 { return o.Locked }

// Register wires the handler.
func Register(pool *pgxpool.Pool, mux *asynq.ServeMux) {
	r := &Repo{db: pool}
	c := &Canceler{tx: r, orders: r, accounts: r}
	mux.HandleFunc("order:cancel", c.Cancel)
	mux.HandleFunc("order:unlock", c.Unlock)
}

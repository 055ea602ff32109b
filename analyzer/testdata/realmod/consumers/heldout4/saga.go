package heldout4

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/segmentio/kafka-go"

	"github.com/idemkit/idem/guard"
	"github.com/idemkit/idem/guard/pgxguard"
)

type sagaCmd struct {
	SagaID string `json:"saga_id"`
	SKU    string `json:"sku"`
	Qty    int32  `json:"qty"`
	UserID int64  `json:"user_id"`
	Points int32  `json:"points"`
}

// ReserveStock is the "reserve" step of the checkout saga.
type ReserveStock struct {
	Reader *kafka.Reader
	Pool   *pgxpool.Pool
}

// Run moves the saga step from pending to reserved with a conditional UPDATE
// in the same transaction as the stock deduction; zero rows affected means the
// step already ran (or was cancelled), so only the offset is committed.
//
// truth: ok
func (s *ReserveStock) Run(ctx context.Context) error {
	for {
		m, err := s.Reader.FetchMessage(ctx)
		if err != nil {
			return err
		}
		var c sagaCmd
		if err := json.Unmarshal(m.Value, &c); err != nil {
			_ = s.Reader.CommitMessages(ctx, m)
			continue
		}
		err = pgx.BeginFunc(ctx, s.Pool, func(tx pgx.Tx) error {
			tag, err := tx.Exec(ctx,
				`UPDATE saga_steps SET state = 'reserved' WHERE saga_id = $1 AND step = 'reserve' AND state = 'pending'`, c.SagaID)
			if err != nil {
				return err
			}
			if tag.RowsAffected() == 0 {
				return nil
			}
			_, err = tx.Exec(ctx, `UPDATE stock SET qty = qty - $1 WHERE sku = $2`, c.Qty, c.SKU)
			return err
		})
		if err != nil {
			return err
		}
		if err := s.Reader.CommitMessages(ctx, m); err != nil {
			return err
		}
	}
}

// CompensateStock is the compensation of the reserve step.
type CompensateStock struct {
	Reader *kafka.Reader
	DB     *sql.DB
}

// Run reads the step's state with SELECT … FOR UPDATE, and returns the stock
// and marks the step compensated in the same transaction; the row lock
// serialises concurrent redeliveries, so lookup, effect and record are atomic.
//
// truth: ok
func (s *CompensateStock) Run(ctx context.Context) error {
	for {
		m, err := s.Reader.FetchMessage(ctx)
		if err != nil {
			return err
		}
		var c sagaCmd
		if err := json.Unmarshal(m.Value, &c); err != nil {
			_ = s.Reader.CommitMessages(ctx, m)
			continue
		}
		if err := s.compensate(ctx, c); err != nil {
			return err
		}
		if err := s.Reader.CommitMessages(ctx, m); err != nil {
			return err
		}
	}
}

func (s *CompensateStock) compensate(ctx context.Context, c sagaCmd) error {
	tx, err := s.DB.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer func() { _ = tx.Rollback() }()
	var state string
	err = tx.QueryRowContext(ctx,
		`SELECT state FROM saga_steps WHERE saga_id = $1 AND step = 'reserve' FOR UPDATE`, c.SagaID).Scan(&state)
	if errors.Is(err, sql.ErrNoRows) {
		return nil
	}
	if err != nil {
		return err
	}
	if state != "reserved" {
		return nil
	}
	if _, err := tx.ExecContext(ctx, `UPDATE stock SET qty = qty + $1 WHERE sku = $2`, c.Qty, c.SKU); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx,
		`UPDATE saga_steps SET state = 'compensated' WHERE saga_id = $1 AND step = 'reserve'`, c.SagaID); err != nil {
		return err
	}
	return tx.Commit()
}

// LoyaltyAward credits points for completed sagas through the SQL guard.
type LoyaltyAward struct {
	Reader *kafka.Reader
	Store  *guard.SQLStore
	DB     *sql.DB
}

// Run calls the guard, but the apply function writes through the pool instead
// of the guard's tx: the credit commits on its own, so a crash or a retried
// transaction (serialization failure) credits again while the claim rolls
// back. Record and effect are in different transactions.
//
// truth: bug IDEM006
func (a *LoyaltyAward) Run(ctx context.Context) error {
	for {
		m, err := a.Reader.FetchMessage(ctx)
		if err != nil {
			return err
		}
		var c sagaCmd
		if err := json.Unmarshal(m.Value, &c); err != nil {
			_ = a.Reader.CommitMessages(ctx, m)
			continue
		}
		_, err = a.Store.Do(ctx, "loyalty_award", c.SagaID, nil, func(ctx context.Context, tx *sql.Tx) error {
			_, err := a.DB.ExecContext(ctx, `UPDATE users SET points = points + $1 WHERE id = $2`, c.Points, c.UserID)
			return err
		})
		if err != nil {
			return fmt.Errorf("loyalty award %s: %w", c.SagaID, err)
		}
		if err := a.Reader.CommitMessages(ctx, m); err != nil {
			return err
		}
	}
}

// PointsAward credits points with pgx through the pgx guard.
type PointsAward struct {
	Reader *kafka.Reader
	Store  *pgxguard.Store
}

// Run runs the accumulating update on the guard's pgx transaction, so the
// claim and the credit commit together, and commits the offset only after Do
// returned Applied or Duplicate; any error stops the loop so the message is
// fetched again.
//
// truth: ok
func (a *PointsAward) Run(ctx context.Context) error {
	for {
		m, err := a.Reader.FetchMessage(ctx)
		if err != nil {
			return err
		}
		var c sagaCmd
		if err := json.Unmarshal(m.Value, &c); err != nil {
			_ = a.Reader.CommitMessages(ctx, m)
			continue
		}
		_, err = a.Store.Do(ctx, "add_points", c.SagaID, nil, func(ctx context.Context, tx pgx.Tx) error {
			_, err := tx.Exec(ctx, `UPDATE users SET points = points + $1 WHERE id = $2`, c.Points, c.UserID)
			return err
		})
		if err != nil {
			return err
		}
		if err := a.Reader.CommitMessages(ctx, m); err != nil {
			return err
		}
	}
}

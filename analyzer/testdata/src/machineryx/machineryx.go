// Package machineryx: machinery tasks. A task function takes its
// arguments, not a message: RegisterTask is what makes it a handler, and
// its nil error acks the task.
package machineryx

import (
	"context"
	"database/sql"

	"github.com/RichardKnop/machinery/v2"

	"shop"
)

type Tasks struct{ DB *sql.DB }

func (t *Tasks) AddPoints(user string, qty int) error {
	return shop.AddPoints(context.Background(), t.DB, user, qty) // want `effect shop.AddPoints .* in handler Tasks.AddPoints is not guarded by a dedup check`
}

// Stock claims the order id with the deduction.
func (t *Tasks) Stock(orderID, sku string, qty int) error {
	ctx := context.Background()
	tx, err := t.DB.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	fresh, err := shop.Claim(ctx, tx, "stock", orderID)
	if err != nil || !fresh {
		return err
	}
	if err := shop.DeductStock(ctx, tx, sku, qty); err != nil {
		return err
	}
	return tx.Commit()
}

func notify(phone string) error {
	return shop.SendSMS(context.Background(), phone, "hi") // want `IDEM001`
}

func register(server *machinery.Server, db *sql.DB) error {
	t := &Tasks{DB: db}
	if err := server.RegisterTask("points", t.AddPoints); err != nil {
		return err
	}
	if err := server.RegisterTask("stock", t.Stock); err != nil {
		return err
	}
	if err := server.RegisterTask("notify", notify); err != nil {
		return err
	}
	return server.RegisterTask("stats", func(day string, gmv int) error {
		return shop.BumpStats(context.Background(), db, day, gmv) // want `IDEM001`
	})
}

// Jobs wraps the server the way services do: their own registration
// helper takes the table of task functions.
type Jobs struct{ Server *machinery.Server }

// RegisterJobs registers the named task functions.
func (j *Jobs) RegisterJobs(named map[string]interface{}) error {
	return j.Server.RegisterTasks(named)
}

func refund(order string, cents int) error {
	return shop.AddPoints(context.Background(), nil, order, -cents) // want `effect shop.AddPoints .* in handler refund is not guarded by a dedup check`
}

func registerTable(j *Jobs, t *Tasks) error {
	return j.RegisterJobs(map[string]interface{}{
		"refund": refund,
		"stock":  t.Stock,
	})
}

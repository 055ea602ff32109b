package entx // want package:"idemfacts"

// Package entx: ent inserts from handlers. The create builders ent
// generates in a user's module call sqlgraph.CreateNode and BatchCreate;
// such a package is analysed like any other, and its Save carries the
// insert to the handler.

import (
	"context"

	"entgo.io/ent/dialect"
	"entgo.io/ent/dialect/sql/sqlgraph"
	"github.com/hibiken/asynq"

	"shop"
)

// PointsCreate is the shape of an ent-generated create builder.
type PointsCreate struct {
	driver dialect.Driver
	user   string
	qty    int
}

func (pc *PointsCreate) Save(ctx context.Context) error { // want Save:`effects\(sqlgraph.CreateNode\)`
	spec := sqlgraph.NewCreateSpec("points", &sqlgraph.FieldSpec{Column: "id"})
	spec.Fields = append(spec.Fields, &sqlgraph.FieldSpec{Column: "user", Value: pc.user}, &sqlgraph.FieldSpec{Column: "qty", Value: pc.qty})
	return sqlgraph.CreateNode(ctx, pc.driver, spec)
}

type PointsCreateBulk struct {
	driver dialect.Driver
	specs  []*sqlgraph.CreateSpec
}

func (pcb *PointsCreateBulk) Save(ctx context.Context) error { // want Save:`effects\(sqlgraph.BatchCreate\)`
	return sqlgraph.BatchCreate(ctx, pcb.driver, &sqlgraph.BatchCreateSpec{Nodes: pcb.specs})
}

type Worker struct{ Driver dialect.Driver }

func (w *Worker) ProcessTask(ctx context.Context, t *asynq.Task) error {
	o, err := shop.Decode(t.Payload())
	if err != nil {
		return nil
	}
	pc := &PointsCreate{driver: w.Driver, user: o.User, qty: o.Qty}
	if err := pc.Save(ctx); err != nil { // want `effect entx.PointsCreate.Save → sqlgraph.CreateNode in handler Worker.ProcessTask is not guarded by a dedup check`
		return err
	}
	return (&PointsCreateBulk{driver: w.Driver}).Save(ctx) // want `IDEM001`
}

// guarded inserts only for an order id seen for the first time.
func guarded(db shop.DBTX, drv dialect.Driver) asynq.HandlerFunc {
	return func(ctx context.Context, t *asynq.Task) error {
		o, err := shop.Decode(t.Payload())
		if err != nil {
			return nil
		}
		fresh, err := shop.Claim(ctx, db, "points", o.ID)
		if err != nil || !fresh {
			return err
		}
		return (&PointsCreate{driver: drv, user: o.User, qty: o.Qty}).Save(ctx)
	}
}

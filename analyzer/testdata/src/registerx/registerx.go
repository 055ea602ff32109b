// Package registerx: handlers registered in ways the engine does not follow
// yet (needs engine support; not in the test lists): the values of a map
// given to machinery's RegisterTasks, a handler returned by a constructor,
// and a value whose method is the handler (kq.ConsumeHandler,
// cqrs.EventHandler) when that method takes no message. The modular
// analyzer does not apply Register rules at all: every handler here, and
// those of machineryx, kqx, microx and cqrsx, is found by the whole-program
// mode only.
package registerx

import (
	"context"
	"database/sql"

	"github.com/RichardKnop/machinery/v1"
	"github.com/ThreeDotsLabs/watermill/components/cqrs"
	"github.com/zeromicro/go-queue/kq"

	"shop"
)

func registerMap(server *machinery.Server, db *sql.DB) error {
	return server.RegisterTasks(map[string]interface{}{
		"points": func(user string, qty int) error {
			return shop.AddPoints(context.Background(), db, user, qty) // want `IDEM001`
		},
	})
}

func handleStats(db *sql.DB) kq.ConsumeHandle {
	return func(ctx context.Context, key, value string) error {
		return shop.BumpStats(ctx, db, key, len(value)) // want `IDEM001`
	}
}

type Points struct{ DB *sql.DB }

func (p *Points) Consume(ctx context.Context, key, value string) error {
	return shop.AddPoints(ctx, p.DB, key, len(value)) // want `IDEM001`
}

type OrderPlaced struct{ User string }

type PointsOnOrder struct{ DB *sql.DB }

func (PointsOnOrder) HandlerName() string { return "points" }

func (PointsOnOrder) NewEvent() any { return &OrderPlaced{} }

func (h PointsOnOrder) Handle(ctx context.Context, event any) error {
	e := event.(*OrderPlaced)
	return shop.AddPoints(ctx, h.DB, e.User, 1) // want `IDEM001`
}

func start(c kq.KqConf, db *sql.DB) []cqrs.EventHandler {
	kq.MustNewQueue(c, kq.WithHandle(handleStats(db))).Start()
	kq.MustNewQueue(c, &Points{DB: db}).Start()
	return []cqrs.EventHandler{PointsOnOrder{DB: db}}
}

// Command svc wires the repositories into the consumers.
package main

import (
	"context"
	"database/sql"

	"github.com/nats-io/nats.go"
	"go.uber.org/zap"

	"wholeprog/bus"
	"wholeprog/consumer"
	"wholeprog/obs"
	"wholeprog/store/pg"
)

func main() {
	ctx := context.Background()
	db, _ := sql.Open("pgx", "")
	nc, _ := nats.Connect("")
	js, _ := nc.JetStream()
	st := pg.New(db)
	log := zap.NewNop()
	svc := consumer.New(st, st, st, log)
	svc.Metrics = obs.Log{L: log}
	svc.Keys, svc.Outbox = st, st
	r := bus.NewRouter()
	if err := svc.Start(ctx, js, r); err != nil {
		panic(err)
	}
	sub := make(chan *nats.Msg)
	r.Run(ctx, sub)
}

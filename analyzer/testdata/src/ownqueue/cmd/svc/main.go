// Command svc wires the queues, the targets and the pool.
package main

import (
	"context"
	"database/sql"

	"github.com/nats-io/nats.go"

	"ownqueue/mail"
	"ownqueue/notify"
	"ownqueue/targets"
)

func main() {
	ctx := context.Background()
	db, _ := sql.Open("postgres", "")
	nc, _ := nats.Connect("nats://localhost:4222")
	mail.Start(ctx)
	mail.StartSent(ctx, db)
	notify.New(ctx, db)
	targets.Start(db, nc, "https://hooks.example.com", nil)
	mail.Audit(db).Submit("started")
	_ = mail.Push(&mail.Message{ID: "1", To: "a@example.com"})
}

// Package svc: a service behind a repository interface, implemented in an
// imported package (pg) and in this one (an in-memory fake without effects).
package svc

import (
	"context"
	"log"

	amqp "github.com/rabbitmq/amqp091-go"

	"svc/pg"
)

type Repository interface {
	AddPoints(ctx context.Context, user string, n int) error
	SetEmail(ctx context.Context, user, email string) error
}

var _ Repository = (*pg.Repo)(nil)

type memory struct{ points map[string]int }

func (m *memory) AddPoints(ctx context.Context, user string, n int) error {
	m.points[user] += n
	return nil
}

func (m *memory) SetEmail(ctx context.Context, user, email string) error { return nil }

type Consumer struct{ Repo Repository }

func (c *Consumer) Handle(ctx context.Context, d amqp.Delivery) {
	if err := c.Repo.SetEmail(ctx, d.UserId, string(d.Body)); err != nil {
		d.Nack(false, true)
		return
	}
	if err := c.Repo.AddPoints(ctx, d.UserId, 10); err != nil { // want `effect svc.Repository.AddPoints \(implemented by pg.Repo.AddPoints\) → sql.DB.ExecContext .* in handler Consumer.Handle`
		log.Print(err)
		d.Nack(false, true)
		return
	}
	d.Ack(false)
}

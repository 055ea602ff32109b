// Package rpcx: an RPC server over RabbitMQ. Its requests come from an
// exclusive, server-named queue, which is gone with the server's
// connection: a request is never delivered twice. The same handlers on a
// durable work queue are redelivered after a crash.
package rpcx

import (
	"context"
	"database/sql"

	amqp "github.com/rabbitmq/amqp091-go"

	"shop"
)

type conn struct {
	ch       *amqp.Channel
	delivery <-chan amqp.Delivery
	work     <-chan amqp.Delivery
}

func (c *conn) attach() error {
	q, err := c.ch.QueueDeclare("", false, false, true, false, nil)
	if err != nil {
		return err
	}
	c.delivery, err = c.ch.Consume(q.Name, "", false, false, false, false, nil)
	if err != nil {
		return err
	}
	w, err := c.ch.QueueDeclare("points", true, false, false, false, nil)
	if err != nil {
		return err
	}
	c.work, err = c.ch.Consume(w.Name, "", false, false, false, false, nil)
	return err
}

type call func(ctx context.Context, d *amqp.Delivery) error

type Server struct {
	conn   *conn
	router map[string]call
	db     *sql.DB
}

func New(db *sql.DB) *Server {
	s := &Server{db: db, conn: &conn{}}
	s.router = map[string]call{"points.add": s.addPoints}
	return s
}

// Serve answers requests: at most once.
func (s *Server) Serve(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case d := <-s.conn.delivery:
			s.serveCall(ctx, &d)
		}
	}
}

func (s *Server) serveCall(ctx context.Context, d *amqp.Delivery) {
	h, ok := s.router[d.Type]
	if !ok {
		d.Ack(false)
		return
	}
	if err := h(ctx, d); err != nil {
		d.Ack(false)
		return
	}
	d.Ack(false)
}

func (s *Server) addPoints(ctx context.Context, d *amqp.Delivery) error {
	o, err := shop.Decode(d.Body)
	if err != nil {
		return err
	}
	return shop.AddPoints(ctx, s.db, o.User, o.Qty)
}

// Work takes the durable queue's deliveries: redelivered.
func (s *Server) Work(ctx context.Context) {
	for d := range s.conn.work {
		o, err := shop.Decode(d.Body)
		if err != nil {
			d.Nack(false, false)
			continue
		}
		if err := shop.BumpStats(ctx, s.db, "today", o.Qty); err != nil { // want `IDEM001`
			d.Nack(false, true)
			continue
		}
		d.Ack(false)
	}
}

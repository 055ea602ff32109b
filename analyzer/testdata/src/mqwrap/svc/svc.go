// Package svc consumes through the company's broker API: its handlers
// never see kafka-go, and the wrapper's reads commit before they run.
package svc

import (
	"context"
	"database/sql"
	"encoding/json"
	"log"

	"mqwrap/mq"
	"mqwrap/mq/kafka"

	"shop"
)

type event struct {
	User string `json:"user"`
	Qty  int    `json:"qty"`
}

type Credits struct {
	consumer mq.Consumer
	db       *sql.DB
}

func NewCredits(q mq.MQ, db *sql.DB) (*Credits, error) {
	c, err := q.Consumer("credits", "credit_group")
	if err != nil {
		return nil, err
	}
	return &Credits{consumer: c, db: db}, nil
}

// Consume is called in a loop by Start: the message it gets is committed
// already.
func (c *Credits) Consume(ctx context.Context) error {
	msg, err := c.consumer.Consume(ctx) // want `auto-ack consumer mq.Consumer.Consume \(commits by itself\) acks each message before handler Credits.Consume performs shop.AddPoints .*\(IDEM007\)`
	if err != nil {
		return err
	}
	var evt event
	if err := json.Unmarshal(msg.Value, &evt); err != nil {
		return err
	}
	return shop.AddPoints(ctx, c.db, evt.User, evt.Qty) // want `IDEM001`
}

func (c *Credits) Start(ctx context.Context) {
	go func() {
		for ctx.Err() == nil {
			if err := c.Consume(ctx); err != nil {
				log.Printf("credits: %v", err)
			}
		}
	}()
}

// Stats ranges over the consumer's channel.
type Stats struct {
	consumer mq.Consumer
	db       *sql.DB
}

func (s *Stats) Run(ctx context.Context) error {
	ch, err := s.consumer.ConsumeChan(ctx) // want `auto-ack consumer mq.Consumer.ConsumeChan \(commits by itself\) acks each message before handler Stats.Run performs shop.BumpStats .*\(IDEM007\)`
	if err != nil {
		return err
	}
	for msg := range ch {
		var evt event
		if err := json.Unmarshal(msg.Value, &evt); err != nil {
			continue
		}
		shop.BumpStats(ctx, s.db, "day", evt.Qty) // want `IDEM001`
	}
	return nil
}

// Peek only reads: committed before it runs, but nothing is lost.
func (c *Credits) Peek(ctx context.Context) (int, error) {
	msg, err := c.consumer.Consume(ctx)
	if err != nil {
		return 0, err
	}
	return len(msg.Value), nil
}

// Wire is main's wiring: the consumers are the kafka implementation's.
func Wire(ctx context.Context, db *sql.DB) error {
	c, err := NewCredits(kafka.NewMQ([]string{"localhost:9092"}), db)
	if err != nil {
		return err
	}
	c.Start(ctx)
	cs, err := kafka.NewMQ(nil).Consumer("stats", "stats_group")
	if err != nil {
		return err
	}
	s := &Stats{consumer: cs, db: db}
	return s.Run(ctx)
}

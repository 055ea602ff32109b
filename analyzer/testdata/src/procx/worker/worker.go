// Package worker is a service's shared Kafka consumer: a fetch loop decodes
// each message and queues it; workers hand the event to the consumer's
// Processor and commit the offset when Process returns nil. Which processor
// a consumer runs is wired in main: each implementation is a handler of
// its own.
package worker

import (
	"context"
	"encoding/json"
	"log"

	"github.com/segmentio/kafka-go"
)

// Event is a decoded message.
type Event struct {
	ID     string
	Type   string
	UserID string
}

// Processor handles the events of one consumer group.
type Processor interface {
	Name() string
	Process(ctx context.Context, e Event) error
}

type item struct {
	event Event
	msg   kafka.Message
}

// Consumer runs one Processor over a topic.
type Consumer struct {
	reader    *kafka.Reader
	processor Processor
	events    chan item
}

// New returns a consumer of p.
func New(r *kafka.Reader, p Processor) *Consumer {
	return &Consumer{reader: r, processor: p, events: make(chan item, 16)}
}

// Start runs the fetch loop and n workers.
func (c *Consumer) Start(ctx context.Context, n int) {
	go c.fetch(ctx)
	for i := 0; i < n; i++ {
		go c.work(ctx)
	}
}

func (c *Consumer) fetch(ctx context.Context) {
	for {
		m, err := c.reader.FetchMessage(ctx)
		if err != nil {
			return
		}
		var e Event
		if err := json.Unmarshal(m.Value, &e); err != nil {
			_ = c.reader.CommitMessages(ctx, m)
			continue
		}
		c.events <- item{event: e, msg: m}
	}
}

func (c *Consumer) work(ctx context.Context) {
	for it := range c.events {
		if err := c.processor.Process(ctx, it.event); err != nil {
			log.Printf("%s: %v", c.processor.Name(), err)
			continue
		}
		_ = c.reader.CommitMessages(ctx, it.msg)
	}
}

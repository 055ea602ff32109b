// Package pull is a company's consumer over kafka-go that commits
// explicitly: a goroutine fetches (FetchMessage) and queues the messages,
// Next returns the next one, Commit commits it.
package pull

import (
	"context"

	kafkago "github.com/segmentio/kafka-go"
)

// Delivery is one fetched message.
type Delivery struct {
	Body []byte
	Key  string
	raw  kafkago.Message
}

type Consumer struct {
	reader *kafkago.Reader
	queue  chan Delivery
}

func New(brokers []string, topic, group string) *Consumer {
	c := &Consumer{
		reader: kafkago.NewReader(kafkago.ReaderConfig{Brokers: brokers, Topic: topic, GroupID: group}),
		queue:  make(chan Delivery, 100),
	}
	go c.fetch()
	return c
}

func (c *Consumer) fetch() {
	for {
		m, err := c.reader.FetchMessage(context.Background())
		if err != nil {
			close(c.queue)
			return
		}
		c.queue <- Delivery{Body: m.Value, Key: string(m.Key), raw: m}
	}
}

// Next returns the next delivery; ok is false once the consumer is closed.
func (c *Consumer) Next(ctx context.Context) (Delivery, bool) {
	d, ok := <-c.queue
	return d, ok
}

// Commit commits d's offset.
func (c *Consumer) Commit(ctx context.Context, d Delivery) error {
	return c.reader.CommitMessages(ctx, d.raw)
}

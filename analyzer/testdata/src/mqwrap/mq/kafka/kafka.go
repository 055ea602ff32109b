// Package kafka implements mq over kafka-go: a goroutine reads with
// ReadMessage on a reader with a GroupID (each read commits) and queues
// the converted messages on a channel that Consume and ConsumeChan serve.
package kafka

import (
	"context"
	"errors"

	kafkago "github.com/segmentio/kafka-go"

	"mqwrap/mq"
)

type MQ struct{ brokers []string }

func NewMQ(brokers []string) *MQ { return &MQ{brokers: brokers} }

func (q *MQ) Consumer(topic, groupID string) (mq.Consumer, error) {
	c := &Consumer{
		reader: kafkago.NewReader(kafkago.ReaderConfig{Brokers: q.brokers, Topic: topic, GroupID: groupID}),
		msgCh:  make(chan *mq.Message, 1000),
	}
	go c.pump()
	return c, nil
}

type Consumer struct {
	reader *kafkago.Reader
	msgCh  chan *mq.Message
	done   chan struct{}
}

func (c *Consumer) Consume(ctx context.Context) (*mq.Message, error) {
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case m, ok := <-c.msgCh:
		if !ok {
			return nil, errors.New("kafka: consumer closed")
		}
		return m, nil
	}
}

func (c *Consumer) ConsumeChan(ctx context.Context) (<-chan *mq.Message, error) {
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	return c.msgCh, nil
}

func (c *Consumer) Close() error { return c.reader.Close() }

func (c *Consumer) pump() {
	defer close(c.msgCh)
	for {
		m, err := c.reader.ReadMessage(context.Background())
		if err != nil {
			return
		}
		select {
		case c.msgCh <- convert(m):
		case <-c.done:
			return
		}
	}
}

func convert(m kafkago.Message) *mq.Message {
	return &mq.Message{Value: m.Value, Key: m.Key, Topic: m.Topic, Partition: int64(m.Partition), Offset: m.Offset}
}

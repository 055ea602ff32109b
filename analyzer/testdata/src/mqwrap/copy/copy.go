// Package copy is a service's own thin layer over kafka-go: FetchMessage
// returns the fetched message copied field by field into the layer's own
// Message type, CommitMessages copies the offsets back.
package copy

import (
	"context"

	kafkago "github.com/segmentio/kafka-go"
)

// Message is the layer's copy of a fetched message.
type Message struct {
	Key       []byte
	Value     []byte
	Partition int
	Offset    int64
	Topic     string
}

type Consumer struct {
	reader *kafkago.Reader
}

func NewReader(brokers []string, topic, group string) *Consumer {
	return &Consumer{reader: kafkago.NewReader(kafkago.ReaderConfig{Brokers: brokers, Topic: topic, GroupID: group})}
}

// FetchMessage fetches the next message.
func (c *Consumer) FetchMessage(ctx context.Context) (Message, error) {
	msg, err := c.reader.FetchMessage(ctx)
	if err != nil {
		return Message{}, err
	}
	return Message{Key: msg.Key, Value: msg.Value, Partition: msg.Partition, Offset: msg.Offset, Topic: msg.Topic}, nil
}

// CommitMessages commits the messages' offsets.
func (c *Consumer) CommitMessages(ctx context.Context, msgs ...Message) error {
	kmsgs := make([]kafkago.Message, len(msgs))
	for i, m := range msgs {
		kmsgs[i] = kafkago.Message{Topic: m.Topic, Partition: m.Partition, Offset: m.Offset}
	}
	return c.reader.CommitMessages(ctx, kmsgs...)
}

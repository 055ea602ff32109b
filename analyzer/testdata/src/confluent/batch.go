package confluent

import (
	"context"
	"strings"
	"time"

	"github.com/confluentinc/confluent-kafka-go/v2/kafka"
	"github.com/elastic/go-elasticsearch/v8/esapi"
)

// batchConsumer reads messages in small batches; its consumer commits by
// itself (no enable.auto.commit in its ConfigMap).
type batchConsumer struct{ c *kafka.Consumer }

func newBatchConsumer() (*batchConsumer, error) {
	c, err := kafka.NewConsumer(&kafka.ConfigMap{"bootstrap.servers": "localhost", "group.id": "orders"})
	if err != nil {
		return nil, err
	}
	return &batchConsumer{c: c}, nil
}

// next reads up to n messages and returns them: each is committed as it
// is read.
func (b *batchConsumer) next(n int) ([]kafka.Message, error) {
	var out []kafka.Message
	for len(out) < n {
		m, err := b.c.ReadMessage(time.Second)
		if err != nil {
			return out, err
		}
		out = append(out, *m)
	}
	return out, nil
}

// indexOrders indexes each order by its id: a redelivery replaces the
// document, but the batch was committed when it was read, so a crash
// loses it.
func indexOrders(ctx context.Context, es esapi.Transport) {
	b, err := newBatchConsumer()
	if err != nil {
		return
	}
	for {
		msgs, err := b.next(10) // want `auto-ack consumer confluent.batchConsumer.next \(commits by itself\) acks each message before handler indexOrders performs`
		if err != nil {
			continue
		}
		for _, m := range msgs {
			req := esapi.IndexRequest{Index: "orders", DocumentID: string(m.Key), Body: strings.NewReader(string(m.Value))}
			if _, err := req.Do(ctx, es); err != nil {
				return
			}
		}
	}
}

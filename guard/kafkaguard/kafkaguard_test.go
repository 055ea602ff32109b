package kafkaguard_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/segmentio/kafka-go"

	"github.com/idemkit/idem/guard"
	"github.com/idemkit/idem/guard/internal/kafkatest"
	"github.com/idemkit/idem/guard/kafkaguard"
)

// reader returns a group reader of kafkatest's topic on b.
func reader(b *kafkatest.Broker) *kafka.Reader {
	return kafka.NewReader(kafka.ReaderConfig{
		Brokers: b.Addrs, GroupID: kafkatest.Group, Topic: kafkatest.Topic,
		StartOffset: kafka.FirstOffset, MaxWait: 100 * time.Millisecond,
	})
}

// member runs Consume on a real kafka-go Reader (and Writer, for dead
// letters) against b.
func member(b *kafkatest.Broker, extra ...kafkaguard.Option) kafkatest.Member {
	return func(ctx context.Context, h guard.Handler, deadLetter bool) error {
		r := reader(b)
		defer r.Close()
		opts := append([]kafkaguard.Option{
			kafkaguard.WithLogger(nil),
			kafkaguard.WithBackoff(kafkatest.MinBackoff, kafkatest.MaxBackoff),
			kafkaguard.WithTimeout(kafkatest.HandlerTimeout),
		}, extra...)
		if deadLetter {
			w := &kafka.Writer{Addr: kafka.TCP(b.Addrs...), Topic: kafkatest.DeadTopic, RequiredAcks: kafka.RequireAll, BatchSize: 1}
			defer w.Close()
			opts = append(opts, kafkaguard.WithDeadLetter(w))
		}
		return kafkaguard.Consume(ctx, r, h, opts...)
	}
}

// TestKfake runs the scenarios every Kafka adapter passes on kfake.
func TestKfake(t *testing.T) {
	for _, sc := range kafkatest.Scenarios {
		t.Run(sc.Name, func(t *testing.T) {
			b := kafkatest.Start(t)
			sc.Run(t, b, member(b))
		})
	}
}

// TestKfakeBatch runs the batch scenarios every Kafka adapter passes on
// kfake, with batching on.
func TestKfakeBatch(t *testing.T) {
	for _, sc := range kafkatest.BatchScenarios {
		t.Run(sc.Name, func(t *testing.T) {
			b := kafkatest.Start(t)
			sc.Run(t, b, member(b, kafkaguard.WithBatch(kafkatest.BatchSize, kafkatest.BatchFlush)))
		})
	}
}

// TestConsumeEnds covers the ways Consume ends that are kafka-go's own.
func TestConsumeEnds(t *testing.T) {
	cases := []struct {
		name   string
		setup  func(b *kafkatest.Broker, r *kafka.Reader)
		cancel bool // the handler cancels Consume's context, then answers Applied
		want   kafkatest.End
	}{
		{name: "refused commit", setup: func(b *kafkatest.Broker, _ *kafka.Reader) { b.RefuseCommits() },
			want: kafkatest.End{ErrPrefix: "kafkaguard: commit orders.created/0@0: ", ErrIs: kafka.GroupAuthorizationFailed, Committed: -1}},
		{name: "handled as the context ends is still committed", cancel: true, want: kafkatest.End{Committed: 1}},
		{name: "closed reader", setup: func(_ *kafkatest.Broker, r *kafka.Reader) { r.Close() },
			want: kafkatest.End{ErrPrefix: "kafkaguard: fetch: ", Committed: -1}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := kafkatest.Start(t)
			b.Produce(t, 2)
			r := reader(b)
			defer r.Close()
			if c.setup != nil {
				c.setup(b, r)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			h := guard.HandlerFunc(func(context.Context, []byte) (guard.Outcome, error) {
				if c.cancel {
					cancel()
				}
				return guard.Applied, nil
			})
			err := kafkaguard.Consume(ctx, r, b.Watch(h), kafkaguard.WithLogger(nil))
			if errors.Is(ctx.Err(), context.DeadlineExceeded) {
				t.Fatal("Consume did not end")
			}
			b.CheckEnd(t, err, c.want)
		})
	}
}

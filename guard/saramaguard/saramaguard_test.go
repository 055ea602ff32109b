package saramaguard_test

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/IBM/sarama"

	"github.com/idemkit/idem/guard"
	"github.com/idemkit/idem/guard/internal/kafkatest"
	"github.com/idemkit/idem/guard/saramaguard"
)

// config returns a sarama configuration for kfake: from the oldest offset,
// dead letters acknowledged by all replicas, and autocommit as given. A
// synchronous commit waits behind a pending fetch on the same broker
// connection (kfake is one broker), so fetches wait 20ms for data, not
// sarama's 500ms.
func config(autocommit bool) *sarama.Config {
	cfg := sarama.NewConfig()
	cfg.Consumer.MaxWaitTime = 20 * time.Millisecond
	cfg.Consumer.Offsets.Initial = sarama.OffsetOldest
	cfg.Consumer.Offsets.AutoCommit.Enable = autocommit
	cfg.Consumer.Offsets.AutoCommit.Interval = 50 * time.Millisecond
	cfg.Producer.RequiredAcks = sarama.WaitForAll
	cfg.Producer.Return.Successes = true
	return cfg
}

// modes are the two ways sarama commits marked offsets.
var modes = []struct {
	name       string
	autocommit bool
	opts       []saramaguard.Option
}{
	{name: "autocommit", autocommit: true},
	{name: "manual commits", opts: []saramaguard.Option{saramaguard.WithCommitEach()}},
}

// member runs Consume on a real sarama consumer group (and SyncProducer,
// for dead letters) against b.
func member(b *kafkatest.Broker, autocommit bool, extra []saramaguard.Option) kafkatest.Member {
	return func(ctx context.Context, h guard.Handler, deadLetter bool) error {
		cfg := config(autocommit)
		group, err := sarama.NewConsumerGroup(b.Addrs, kafkatest.Group, cfg)
		if err != nil {
			return err
		}
		defer group.Close()
		opts := append([]saramaguard.Option{
			saramaguard.WithLogger(nil),
			saramaguard.WithBackoff(kafkatest.MinBackoff, kafkatest.MaxBackoff),
			saramaguard.WithTimeout(kafkatest.HandlerTimeout),
		}, extra...)
		if deadLetter {
			p, err := sarama.NewSyncProducer(b.Addrs, cfg)
			if err != nil {
				return err
			}
			defer p.Close()
			opts = append(opts, saramaguard.WithDeadLetter(p, kafkatest.DeadTopic))
		}
		return saramaguard.Consume(ctx, group, []string{kafkatest.Topic}, h, opts...)
	}
}

// TestKfake runs the scenarios every Kafka adapter passes on kfake, with
// sarama's autocommit and with manual commits.
func TestKfake(t *testing.T) {
	for _, mode := range modes {
		for _, sc := range kafkatest.Scenarios {
			t.Run(mode.name+"/"+sc.Name, func(t *testing.T) {
				b := kafkatest.Start(t)
				sc.Run(t, b, member(b, mode.autocommit, mode.opts))
			})
		}
	}
}

// TestKfakeBatch runs the batch scenarios every Kafka adapter passes on
// kfake, with batching on, in both commit modes.
func TestKfakeBatch(t *testing.T) {
	for _, mode := range modes {
		for _, sc := range kafkatest.BatchScenarios {
			t.Run(mode.name+"/"+sc.Name, func(t *testing.T) {
				b := kafkatest.Start(t)
				opts := append(slices.Clone(mode.opts), saramaguard.WithBatch(kafkatest.BatchSize, kafkatest.BatchFlush))
				sc.Run(t, b, member(b, mode.autocommit, opts))
			})
		}
	}
}

// TestConsumeEnds covers the ways Consume ends that are sarama's own.
func TestConsumeEnds(t *testing.T) {
	cases := []struct {
		name   string
		closed bool // the group is closed before Consume
		cancel bool // the handler cancels Consume's context, then answers Applied
		want   kafkatest.End
	}{
		{name: "closed group", closed: true,
			want: kafkatest.End{ErrPrefix: "saramaguard: consume: kafka: tried to use a consumer group that was closed", ErrIs: sarama.ErrClosedConsumerGroup, Committed: -1}},
		{name: "handled as the context ends is still committed", cancel: true, want: kafkatest.End{Committed: 1}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := kafkatest.Start(t)
			b.Produce(t, 2)
			group, err := sarama.NewConsumerGroup(b.Addrs, kafkatest.Group, config(true))
			if err != nil {
				t.Fatal(err)
			}
			defer group.Close()
			if c.closed {
				group.Close()
			}
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			h := b.Watch(guard.HandlerFunc(func(hctx context.Context, _ []byte) (guard.Outcome, error) {
				if err := hctx.Err(); err != nil {
					return 0, err
				}
				if c.cancel {
					cancel()
				}
				return guard.Applied, nil
			}))
			err = saramaguard.Consume(ctx, group, []string{kafkatest.Topic}, h, saramaguard.WithLogger(nil))
			if errors.Is(ctx.Err(), context.DeadlineExceeded) {
				t.Fatal("Consume did not end")
			}
			b.CheckEnd(t, err, c.want)
		})
	}
}

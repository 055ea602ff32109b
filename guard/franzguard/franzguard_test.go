package franzguard_test

import (
	"context"
	"errors"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/idemkit/idem/guard"
	"github.com/idemkit/idem/guard/franzguard"
	"github.com/idemkit/idem/guard/internal/kafkatest"
)

// client returns a group consumer of kafkatest's topic on b, as the package
// doc recommends, with extra options.
func client(t testing.TB, b *kafkatest.Broker, extra ...kgo.Opt) *kgo.Client {
	t.Helper()
	opts := append([]kgo.Opt{
		kgo.SeedBrokers(b.Addrs...),
		kgo.ConsumerGroup(kafkatest.Group),
		kgo.ConsumeTopics(kafkatest.Topic),
		kgo.DisableAutoCommit(),
		kgo.BlockRebalanceOnPoll(),
		kgo.FetchMaxWait(100 * time.Millisecond),
	}, extra...)
	cl, err := kgo.NewClient(opts...)
	if err != nil {
		t.Fatal(err)
	}
	return cl
}

// member runs Consume on a real kgo client against b; the client produces
// its own dead letters.
func member(t testing.TB, b *kafkatest.Broker, extra ...franzguard.Option) kafkatest.Member {
	return func(ctx context.Context, h guard.Handler, deadLetter bool) error {
		cl := client(t, b)
		defer cl.CloseAllowingRebalance()
		opts := append([]franzguard.Option{
			franzguard.WithLogger(nil),
			franzguard.WithBackoff(kafkatest.MinBackoff, kafkatest.MaxBackoff),
			franzguard.WithTimeout(kafkatest.HandlerTimeout),
		}, extra...)
		if deadLetter {
			opts = append(opts, franzguard.WithDeadLetter(cl, kafkatest.DeadTopic))
		}
		return franzguard.Consume(ctx, cl, h, opts...)
	}
}

// TestKfake runs the scenarios every Kafka adapter passes on kfake.
func TestKfake(t *testing.T) {
	for _, sc := range kafkatest.Scenarios {
		t.Run(sc.Name, func(t *testing.T) {
			b := kafkatest.Start(t)
			sc.Run(t, b, member(t, b))
		})
	}
}

// TestKfakeBatch runs the batch scenarios every Kafka adapter passes on
// kfake, with batching on.
func TestKfakeBatch(t *testing.T) {
	for _, sc := range kafkatest.BatchScenarios {
		t.Run(sc.Name, func(t *testing.T) {
			b := kafkatest.Start(t)
			sc.Run(t, b, member(t, b, franzguard.WithBatch(kafkatest.BatchSize)))
		})
	}
}

// TestConsumeEnds covers the ways Consume ends that are franz-go's own.
func TestConsumeEnds(t *testing.T) {
	cases := []struct {
		name       string
		autocommit bool // the client is created without DisableAutoCommit
		refuse     bool // the broker refuses commits
		closed     bool // the client is closed before Consume
		want       kafkatest.End
	}{
		{name: "autocommitting client", autocommit: true,
			want: kafkatest.End{ErrPrefix: "franzguard: the client commits by itself", Committed: -1}},
		{name: "refused commit", refuse: true,
			want: kafkatest.End{ErrPrefix: "franzguard: commit through orders.created/0@1: ", ErrIs: kerr.GroupAuthorizationFailed, Committed: -1}},
		{name: "closed client", closed: true,
			want: kafkatest.End{ErrPrefix: "franzguard: poll: client closed", ErrIs: kgo.ErrClientClosed, Committed: -1}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := kafkatest.Start(t)
			b.Produce(t, 2)
			cl := client(t, b)
			if c.autocommit {
				cl.Close()
				var err error
				cl, err = kgo.NewClient(kgo.SeedBrokers(b.Addrs...), kgo.ConsumerGroup(kafkatest.Group), kgo.ConsumeTopics(kafkatest.Topic))
				if err != nil {
					t.Fatal(err)
				}
			}
			defer cl.CloseAllowingRebalance()
			if c.refuse {
				b.RefuseCommits()
			}
			if c.closed {
				cl.Close()
			}
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			h := b.Watch(guard.HandlerFunc(func(context.Context, []byte) (guard.Outcome, error) { return guard.Applied, nil }))
			err := franzguard.Consume(ctx, cl, h, franzguard.WithLogger(nil))
			if errors.Is(ctx.Err(), context.DeadlineExceeded) {
				t.Fatal("Consume did not end")
			}
			b.CheckEnd(t, err, c.want)
		})
	}
}

// TestCommitBeforeWait checks that the records of a poll settled before one
// that is retried are committed before the retry waits.
func TestCommitBeforeWait(t *testing.T) {
	b := kafkatest.Start(t)
	b.Produce(t, 3)
	cl := client(t, b)
	defer cl.CloseAllowingRebalance()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var (
		calls        atomic.Int32
		seenAtRetry  atomic.Int64
		errTransient = errors.New("database is down")
	)
	h := b.Watch(guard.HandlerFunc(func(_ context.Context, body []byte) (guard.Outcome, error) {
		if string(body) != "m2" {
			return guard.Applied, nil
		}
		if calls.Add(1) == 1 {
			return 0, errTransient
		}
		seenAtRetry.Store(b.Committed())
		cancel()
		return guard.Applied, nil
	}))
	// One poll holds all three records: they were produced before it.
	if err := franzguard.Consume(ctx, cl, h, franzguard.WithLogger(nil), franzguard.WithBackoff(time.Millisecond, time.Millisecond)); err != nil {
		t.Fatalf("Consume: %v", err)
	}
	if got := seenAtRetry.Load(); got != 2 {
		t.Errorf("committed %d when offset 2 was retried, want 2", got)
	}
	b.WaitCommitted(t, 3)
	b.Check(t)
	// One commit before the wait, one after the poll: the three records
	// came in one poll.
	if got := b.Commits(); !slices.Equal(got, []int64{2, 3}) {
		t.Errorf("commits %v, want [2 3]", got)
	}
}

// Package kafkatest runs guard's Kafka adapters (kafkaguard on
// segmentio/kafka-go, franzguard on franz-go, saramaguard on IBM/sarama)
// through the same scenarios on kfake, franz-go's in-process broker that
// speaks the Kafka wire protocol: a real client, a real consumer group, real
// offset commits.
//
// The broker watches the protocol itself. Every OffsetCommit request for the
// test topic is checked against what the handler answered: committing offset
// n requires every message before n to be settled (answered Applied or
// Duplicate, or already produced to the dead-letter topic, which the broker
// sees in the Produce requests). A violation fails the test. Only tests
// import this package.
package kafkatest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/idemkit/idem/guard"
	"github.com/idemkit/idem/guard/internal/adapt"
)

// The topology of every scenario: one partition, so the order of handling
// is the order of the log.
const (
	Topic     = "orders.created"      // the consumed topic, one partition
	DeadTopic = "orders.created.dead" // the dead-letter topic
	Group     = "deduct_inventory"    // the consumer group, and the guard consumer
)

// The settings a Member gives its adapter.
const (
	MinBackoff = time.Millisecond     // WithBackoff's min
	MaxBackoff = 5 * time.Millisecond // WithBackoff's max
	// HandlerTimeout is WithTimeout's. One scenario step waits for it (a
	// handler that blocks); every other call must finish well within it,
	// batches of eight through a real store included, on a loaded 2-core
	// machine: 200 ms was too short there for a batch's mark.
	HandlerTimeout = 2 * time.Second
)

// wait bounds every wait of a scenario: a failure bound, never a pace.
const wait = 30 * time.Second

// Member runs one member of Group on Topic: it makes a client on the
// broker's Addrs, runs the adapter's Consume with h (and, when deadLetter is
// set, a dead-letter producer to DeadTopic) until ctx is done or Consume
// stops, closes its clients and returns what Consume returned. It configures
// the adapter with MinBackoff, MaxBackoff and HandlerTimeout and reads from
// the oldest offset when the group has no commit.
type Member func(ctx context.Context, h guard.Handler, deadLetter bool) error

// Broker is a kfake cluster with Topic and DeadTopic that checks every
// commit against the handler's answers.
type Broker struct {
	Addrs []string
	c     *kfake.Cluster
	ids   map[[16]byte]string

	mu         sync.Mutex
	calls      []int64          // offsets the handler was called with, in order
	settled    map[int64]string // offset → applied, duplicate, dead-lettered
	commits    []int64          // committed offsets (the next to read), in order
	violations []string
}

// Start starts a broker, closed when t ends.
func Start(t testing.TB) *Broker {
	t.Helper()
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(1, Topic, DeadTopic))
	if err != nil {
		t.Fatalf("kfake: %v", err)
	}
	t.Cleanup(c.Close)
	b := &Broker{Addrs: c.ListenAddrs(), c: c, ids: map[[16]byte]string{}, settled: map[int64]string{}}
	for _, topic := range []string{Topic, DeadTopic} {
		b.ids[c.TopicInfo(topic).TopicID] = topic
	}
	c.ControlKey(int16(kmsg.OffsetCommit), b.watchCommit)
	c.ControlKey(int16(kmsg.Produce), b.watchProduce)
	return b
}

func (b *Broker) topic(name string, id [16]byte) string {
	if name != "" {
		return name
	}
	return b.ids[id]
}

// watchCommit checks an OffsetCommit request and lets the cluster handle it.
func (b *Broker) watchCommit(req kmsg.Request) (kmsg.Response, error, bool) {
	r := req.(*kmsg.OffsetCommitRequest)
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, t := range r.Topics {
		if b.topic(t.Topic, t.TopicID) != Topic {
			continue
		}
		for _, p := range t.Partitions {
			if n := len(b.commits); n == 0 || b.commits[n-1] != p.Offset {
				b.commits = append(b.commits, p.Offset)
			}
			for off := int64(0); off < p.Offset; off++ {
				if b.settled[off] == "" {
					b.violations = append(b.violations, fmt.Sprintf("offset %d committed before offset %d was settled", p.Offset, off))
				}
			}
		}
	}
	return nil, nil, false
}

// watchProduce notes the messages produced to DeadTopic as dead-lettered.
func (b *Broker) watchProduce(req kmsg.Request) (kmsg.Response, error, bool) {
	r := req.(*kmsg.ProduceRequest)
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, t := range r.Topics {
		if b.topic(t.Topic, t.TopicID) != DeadTopic {
			continue
		}
		for _, p := range t.Partitions {
			for raw := p.Records; len(raw) > 0; {
				var batch kmsg.RecordBatch
				if err := batch.ReadFrom(raw); err != nil {
					b.violations = append(b.violations, fmt.Sprintf("unreadable dead-letter batch: %v", err))
					break
				}
				raw = raw[min(len(raw), 12+int(batch.Length)):]
				records, err := kfake.BatchRecords(batch)
				if err != nil {
					b.violations = append(b.violations, fmt.Sprintf("unreadable dead-letter records: %v", err))
				}
				for _, rec := range records {
					for _, h := range rec.Headers {
						if h.Key == adapt.HeaderOffset {
							off, _ := strconv.ParseInt(string(h.Value), 10, 64)
							b.settled[off] = "dead-lettered"
						}
					}
				}
			}
		}
	}
	return nil, nil, false
}

// Produce writes n messages to Topic: offset i has key "k<i>", value "m<i>"
// and the header trace=t<i>.
func (b *Broker) Produce(t testing.TB, n int) {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(b.Addrs...), kgo.DefaultProduceTopic(Topic))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	var rs []*kgo.Record
	for i := range n {
		rs = append(rs, &kgo.Record{Key: fmt.Appendf(nil, "k%d", i), Value: fmt.Appendf(nil, "m%d", i),
			Headers: []kgo.RecordHeader{{Key: "trace", Value: fmt.Appendf(nil, "t%d", i)}}})
	}
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	if err := cl.ProduceSync(ctx, rs...).FirstErr(); err != nil {
		t.Fatalf("produce: %v", err)
	}
}

// Committed returns the group's committed offset of Topic, or -1.
func (b *Broker) Committed() int64 {
	if g := b.c.GroupInfo(Group); g != nil {
		if c, ok := g.Commits[Topic][0]; ok {
			return c.Offset
		}
	}
	return -1
}

// WaitCommitted waits until the group has committed offset (the next one to
// read) on Topic, and fails t if it committed past it.
func (b *Broker) WaitCommitted(t testing.TB, offset int64) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	_, err := b.c.WaitGroupInfo(ctx, Group, func(g *kfake.GroupInfo) bool {
		if g == nil {
			return false
		}
		c, ok := g.Commits[Topic][0]
		return ok && c.Offset >= offset
	})
	if got := b.Committed(); err != nil || got != offset {
		t.Fatalf("committed offset %d (commits %v), want %d", got, b.Commits(), offset)
	}
}

// Commits returns the offsets committed so far, in order (repeats folded).
func (b *Broker) Commits() []int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return slices.Clone(b.commits)
}

// Calls returns the offsets the handlers were called with, in order.
func (b *Broker) Calls() []int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return slices.Clone(b.calls)
}

// Check fails t for every commit that came before a message was settled.
func (b *Broker) Check(t testing.TB) {
	t.Helper()
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, v := range b.violations {
		t.Error(v)
	}
}

// DeadLetters reads the first n messages of DeadTopic.
func (b *Broker) DeadLetters(t testing.TB, n int) []*kgo.Record {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(b.Addrs...), kgo.ConsumeTopics(DeadTopic),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()), kgo.FetchMaxWait(100*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	var rs []*kgo.Record
	for len(rs) < n {
		fs := cl.PollFetches(ctx)
		if err := ctx.Err(); err != nil {
			t.Fatalf("dead-letter topic holds %d messages, want %d", len(rs), n)
		}
		rs = append(rs, fs.Records()...)
	}
	return rs
}

// called notes a handler call for offset and returns the offset.
func (b *Broker) called(body []byte) (int64, error) {
	off, err := strconv.ParseInt(strings.TrimPrefix(string(body), "m"), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%w: body %q", guard.ErrInvalidMessage, body)
	}
	b.mu.Lock()
	b.calls = append(b.calls, off)
	b.mu.Unlock()
	return off, nil
}

// answered notes the handler's answer for offset: Applied and Duplicate
// settle it.
func (b *Broker) answered(off int64, out guard.Outcome, err error) {
	if err != nil {
		return
	}
	b.mu.Lock()
	b.settled[off] = out.String()
	b.mu.Unlock()
}

// Header returns the value of r's header key, or "<none>".
func Header(r *kgo.Record, key string) string {
	for _, h := range r.Headers {
		if h.Key == key {
			return string(h.Value)
		}
	}
	return "<none>"
}

// RefuseCommits makes the broker refuse every later OffsetCommit with
// GROUP_AUTHORIZATION_FAILED, an error no client retries.
func (b *Broker) RefuseCommits() {
	b.c.ControlKey(int16(kmsg.OffsetCommit), func(req kmsg.Request) (kmsg.Response, error, bool) {
		b.c.KeepControl()
		r := req.(*kmsg.OffsetCommitRequest)
		resp := r.ResponseKind().(*kmsg.OffsetCommitResponse)
		resp.SetVersion(r.Version)
		for _, t := range r.Topics {
			rt := kmsg.NewOffsetCommitResponseTopic()
			rt.Topic, rt.TopicID = t.Topic, t.TopicID
			for _, p := range t.Partitions {
				rp := kmsg.NewOffsetCommitResponseTopicPartition()
				rp.Partition, rp.ErrorCode = p.Partition, kerr.GroupAuthorizationFailed.Code
				rt.Partitions = append(rt.Partitions, rp)
			}
			resp.Topics = append(resp.Topics, rt)
		}
		return resp, nil, true
	})
}

// Watch returns h noting its calls and answers, so that the broker checks
// commits against them. The body must be one Produce wrote.
func (b *Broker) Watch(h guard.Handler) guard.Handler {
	return guard.HandlerFunc(func(ctx context.Context, body []byte) (guard.Outcome, error) {
		off, err := b.called(body)
		if err != nil {
			return 0, err
		}
		out, err := h.Handle(ctx, body)
		b.answered(off, out, err)
		return out, err
	})
}

// End is how a Consume is expected to end.
type End struct {
	ErrPrefix string // the start of its error; empty: it returns nil
	ErrIs     error  // what the error wraps, if anything
	Committed int64  // the group's committed offset then; -1: none
}

// CheckEnd checks what a Consume returned and the commit it left.
func (b *Broker) CheckEnd(t testing.TB, err error, want End) {
	t.Helper()
	switch {
	case want.ErrPrefix == "" && err != nil:
		t.Errorf("Consume: %v, want nil", err)
	case want.ErrPrefix != "" && (err == nil || !strings.HasPrefix(err.Error(), want.ErrPrefix)):
		t.Errorf("Consume: %v, want an error starting %q", err, want.ErrPrefix)
	case want.ErrIs != nil && !errors.Is(err, want.ErrIs):
		t.Errorf("Consume: %v, want errors.Is %v", err, want.ErrIs)
	}
	if want.Committed >= 0 {
		b.WaitCommitted(t, want.Committed)
	} else if got := b.Committed(); got != -1 {
		t.Errorf("committed %d, want nothing", got)
	}
	b.Check(t)
}

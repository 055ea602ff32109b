package js

import (
	"context"
	"log"
	"strings"

	"github.com/nats-io/nats.go/jetstream"
)

// A KV bucket's writes are work a lost message loses (not effects a
// redelivery repeats). The helpers below say "retry" with true, as
// services that Nak on true and Ack otherwise do.

type mapping struct{ kv jetstream.KeyValue }

func (m *mapping) add(ctx context.Context, key, v string) error {
	_, err := m.kv.Put(ctx, key, []byte(v))
	return err
}

func (m *mapping) list(ctx context.Context, key string) ([]string, error) {
	e, err := m.kv.Get(ctx, key)
	if err != nil {
		return nil, err
	}
	return strings.Split(string(e.Value()), ","), nil
}

type kvConsumer struct{ m *mapping }

// upsert logs a failed KV write and returns false, as it does when the
// write succeeds: the failure is swallowed.
func (c *kvConsumer) upsert(ctx context.Context, key string) bool {
	if err := c.m.add(ctx, key, "v"); err != nil {
		log.Print(err)
	}
	return false
}

// upsertRetry returns true (retry) on a failed write, false otherwise:
// the failure is reported.
func (c *kvConsumer) upsertRetry(ctx context.Context, key string) bool {
	if err := c.m.add(ctx, key, "v"); err != nil {
		log.Print(err)
		return true
	}
	return false
}

// fanOut returns false when the read of the ids fails, as it does when
// there are none: the writes for those ids are skipped and reported done.
func (c *kvConsumer) fanOut(ctx context.Context, key string) bool {
	ids, err := c.m.list(ctx, key)
	if err != nil {
		log.Print(err)
		return false
	}
	if len(ids) == 0 {
		return false
	}
	for _, id := range ids {
		if err := c.m.add(ctx, id, key); err != nil {
			return true
		}
	}
	return false
}

// degrade goes on without the value it failed to read: nothing skipped.
func (c *kvConsumer) degrade(ctx context.Context, key string) bool {
	name := "unknown"
	ids, err := c.m.list(ctx, key)
	if err != nil {
		log.Print(err)
	} else if len(ids) > 0 {
		name = ids[0]
	}
	if err := c.m.add(ctx, key, name); err != nil {
		return true
	}
	return false
}

func (c *kvConsumer) onUpsert(msg jetstream.Msg) {
	if c.upsert(context.Background(), msg.Subject()) {
		msg.Nak()
		return
	}
	msg.Ack() // want `also runs when .*upsert.* fails.* \(IDEM003\)`
}

func (c *kvConsumer) onUpsertRetry(msg jetstream.Msg) {
	if c.upsertRetry(context.Background(), msg.Subject()) {
		msg.Nak()
		return
	}
	msg.Ack()
}

func (c *kvConsumer) onFanOut(msg jetstream.Msg) {
	if c.fanOut(context.Background(), msg.Subject()) {
		msg.Nak()
		return
	}
	msg.Ack() // want `also runs when .*list.* fails.* \(IDEM003\)`
}

func (c *kvConsumer) onDegrade(msg jetstream.Msg) {
	if c.degrade(context.Background(), msg.Subject()) {
		msg.Nak()
		return
	}
	msg.Ack()
}

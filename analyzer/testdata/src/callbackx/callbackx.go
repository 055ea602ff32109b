// Package callbackx: handlers and steps reached through func values a
// service's own helpers take — a preprocess callback of a forwarding loop,
// and a handler captured by the read loop a helper returns.
package callbackx

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"log"
	"net/http"
	"time"

	"github.com/cenkalti/backoff/v4"
	"github.com/confluentinc/confluent-kafka-go/v2/kafka"
	"gocloud.dev/pubsub"

	"shop"
)

// MutateFunc turns a received message into the one to forward.
type MutateFunc func(*pubsub.Message) (*pubsub.Message, error)

// Forward acks a message its preprocess step rejects: when that step only
// parses (the closure in parseOnly), a rejected message is poison, and
// acking it is right.
func Forward(ctx context.Context, sub *pubsub.Subscription, topic *pubsub.Topic, preprocess MutateFunc) error {
	for {
		m, err := sub.Receive(ctx)
		if err != nil {
			return err
		}
		out, err := preprocess(m)
		if err != nil {
			log.Printf("rejected: %v", err)
			m.Ack()
			continue
		}
		if err := topic.Send(ctx, out); err != nil {
			continue
		}
		m.Ack()
	}
}

func parseOnly(ctx context.Context, sub *pubsub.Subscription, topic *pubsub.Topic) error {
	return Forward(ctx, sub, topic, func(m *pubsub.Message) (*pubsub.Message, error) {
		var o shop.Order
		if err := json.Unmarshal(m.Body, &o); err != nil {
			return nil, err
		}
		if o.Qty <= 0 {
			return nil, errors.New("no quantity")
		}
		return &pubsub.Message{Body: []byte(o.SKU)}, nil
	})
}

// Relay acks a message its step fails on; that step publishes (a send
// that can fail for a while), so the message is lost.
func Relay(ctx context.Context, sub *pubsub.Subscription, check func(*pubsub.Message) error) error {
	for {
		m, err := sub.Receive(ctx)
		if err != nil {
			return err
		}
		if err := check(m); err != nil {
			m.Ack() // want `ack pubsub.Message.Ack in handler Relay also runs when call fails`
			continue
		}
		m.Ack()
	}
}

func audit(ctx context.Context, sub *pubsub.Subscription, topic *pubsub.Topic) error {
	return Relay(ctx, sub, func(m *pubsub.Message) error {
		if err := topic.Send(ctx, &pubsub.Message{Body: m.Body}); err != nil {
			return err
		}
		return nil
	})
}

// A consumer whose ConfigMap sets group.id and not enable.auto.commit
// commits offsets as it reads them.
func newConsumer(topic string) (*kafka.Consumer, error) {
	c, err := kafka.NewConsumer(&kafka.ConfigMap{"bootstrap.servers": "localhost", "group.id": "points"})
	if err != nil {
		return nil, err
	}
	if err := c.SubscribeTopics([]string{topic}, nil); err != nil {
		return nil, err
	}
	return c, nil
}

// newLoop returns the read loop; the filter and the handler it calls are
// captured. The filter only reads the message: the work lost with an
// autocommitted message is the handler's.
func newLoop(ctx context.Context, c *kafka.Consumer, keep func(*kafka.Message) bool, handler func(context.Context, *kafka.Message)) (start func()) {
	return func() {
		for {
			m, err := c.ReadMessage(time.Second) // want `auto-ack consumer kafka.Consumer.ReadMessage \(commits by itself\) acks each message before handler func literal in newLoop performs handler points.onMessage`
			if err != nil {
				continue
			}
			if keep != nil && !keep(m) {
				continue
			}
			handler(ctx, m)
		}
	}
}

func byKey(key string) func(*kafka.Message) bool {
	return func(m *kafka.Message) bool { return string(m.Key) == key }
}

type points struct{ db *sql.DB }

func (p *points) onMessage(ctx context.Context, m *kafka.Message) {
	o, err := shop.Decode(m.Value)
	if err != nil {
		return
	}
	if err := shop.AddPoints(ctx, p.db, o.User, o.Qty); err != nil { // want `IDEM001`
		log.Printf("points: %v", err)
	}
}

func runPoints(ctx context.Context, db *sql.DB) error {
	c, err := newConsumer("points")
	if err != nil {
		return err
	}
	defer func() { c.Close() }() // c is captured: a variable of its own
	p := &points{db: db}
	start := newLoop(ctx, c, byKey("points"), p.onMessage)
	start()
	return nil
}

// onLookup only reads: its request is a GET made on either branch.
func onLookup(ctx context.Context, m *kafka.Message) error {
	resp, err := fetch(ctx, "https://registry.example/"+string(m.Key))
	if err != nil {
		return err
	}
	return resp.Body.Close()
}

func fetch(ctx context.Context, url string) (*http.Response, error) {
	var req *http.Request
	if ctx != nil {
		req, _ = http.NewRequestWithContext(ctx, "GET", url, nil)
	} else {
		req, _ = http.NewRequest("GET", url, nil)
	}
	client := &http.Client{}
	return client.Do(req)
}

// timeline pushes and removes posts of cached timelines: each change is an
// operation built by a method of its own and retried by backoff.
type timeline struct {
	db *sql.DB
}

func (t *timeline) buildPush(ctx context.Context, user, post string) func() error {
	return func() error {
		_, err := t.db.ExecContext(ctx, `UPDATE timelines SET posts = array_append(posts, $2) WHERE user_id = $1`, user, post)
		return err
	}
}

func (t *timeline) buildRemove(ctx context.Context, user, post string) func() error {
	return func() error {
		_, err := t.db.ExecContext(ctx, `DELETE FROM timeline_posts WHERE user_id = $1 AND post_id = $2`, user, post)
		return err
	}
}

// apply builds the change's operation and retries it: the push the builder
// returns appends the post again when the change is read again.
func (t *timeline) apply(ctx context.Context, m kafka.Message) error {
	var op func() error
	if string(m.Key) == "push" {
		op = t.buildPush(ctx, string(m.Value), string(m.Key))
	} else {
		op = t.buildRemove(ctx, string(m.Value), string(m.Key))
	}
	return backoff.Retry(op, backoff.NewExponentialBackOff(backoff.WithMaxElapsedTime(time.Minute))) // want `effect func literal → sql.DB.ExecContext "UPDATE timelines SET posts = array_append.*" in handler timeline.apply is not guarded by a dedup check \(IDEM001\)`
}

func (t *timeline) run(c *kafka.Consumer) error {
	for {
		m, err := c.ReadMessage(time.Second)
		if err != nil {
			continue
		}
		if err := t.apply(context.Background(), *m); err != nil {
			return err
		}
		if _, err := c.StoreMessage(m); err != nil {
			return err
		}
	}
}

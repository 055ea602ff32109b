// Package pubsub is a stub of gocloud.dev@v0.49.0 for analyzer tests: signatures mirror the real API.
//
// Checked against the real package's type information; bodies return zero values.
package pubsub

import "context"

type Message struct {
	LoggableID string
	Body       []byte
	Metadata   map[string]string
}

func (m *Message) Ack() {}

func (m *Message) Nackable() bool { return false }

func (m *Message) Nack() {}

type Topic struct {
}

func (t *Topic) Send(ctx context.Context, m *Message) (err error) { return nil }

func (t *Topic) Shutdown(ctx context.Context) (err error) { return nil }

type Subscription struct {
}

func (s *Subscription) Receive(ctx context.Context) (_ *Message, err error) { return nil, nil }

func (s *Subscription) Shutdown(ctx context.Context) (err error) { return nil }

func OpenTopic(ctx context.Context, urlstr string) (*Topic, error) { return nil, nil }

func OpenSubscription(ctx context.Context, urlstr string) (*Subscription, error) { return nil, nil }

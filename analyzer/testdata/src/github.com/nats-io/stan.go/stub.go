// Package stan is a stub of github.com/nats-io/stan.go@v0.10.4 for analyzer tests: signatures mirror the real API.
//
// Checked against the real package's type information; bodies return zero values.
package stan

import (
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/stan.go/pb"
)

// Msg is a delivered NATS Streaming message.
type Msg struct {
	pb.MsgProto
	Sub Subscription
}

// Subscription is a subscription to a channel.
type Subscription interface {
	ClearMaxPending() error
	Delivered() (int64, error)
	Dropped() (int, error)
	IsValid() bool
	MaxPending() (int, int, error)
	Pending() (int, int, error)
	PendingLimits() (int, int, error)
	SetPendingLimits(msgLimit, bytesLimit int) error
	Unsubscribe() error
	Close() error
}

// MsgHandler is a subscription's callback.
type MsgHandler func(msg *Msg)

// AckHandler is called when an asynchronous publish is acked.
type AckHandler func(string, error)

// SubscriptionOptions are a subscription's options.
type SubscriptionOptions struct {
	DurableName string
	ManualAcks  bool
}

// SubscriptionOption sets a subscription option.
type SubscriptionOption func(*SubscriptionOptions) error

// Options are a connection's options.
type Options struct{}

// Option sets a connection option.
type Option func(*Options) error

// Conn is a connection to a NATS Streaming cluster.
type Conn interface {
	Publish(subject string, data []byte) error
	PublishAsync(subject string, data []byte, ah AckHandler) (string, error)
	Subscribe(subject string, cb MsgHandler, opts ...SubscriptionOption) (Subscription, error)
	QueueSubscribe(subject, qgroup string, cb MsgHandler, opts ...SubscriptionOption) (Subscription, error)
	Close() error
	NatsConn() *nats.Conn
}

func Connect(stanClusterID, clientID string, options ...Option) (Conn, error) { return nil, nil }

func SetManualAckMode() SubscriptionOption { return nil }

func AckWait(t time.Duration) SubscriptionOption { return nil }

func DurableName(name string) SubscriptionOption { return nil }

func DeliverAllAvailable() SubscriptionOption { return nil }

func (msg *Msg) Ack() error { return nil }

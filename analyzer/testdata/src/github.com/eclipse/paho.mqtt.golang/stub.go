// Package mqtt is a stub of github.com/eclipse/paho.mqtt.golang@v1.5.1 for analyzer tests: signatures mirror the real API.
//
// Checked against the real package's type information; bodies return zero values.
package mqtt

import "time"

// Message is a received PUBLISH, passed to the callbacks.
type Message interface {
	Duplicate() bool
	Qos() byte
	Retained() bool
	Topic() string
	MessageID() uint16
	Payload() []byte
	Ack()
}

// Token tracks an operation's completion.
type Token interface {
	Wait() bool
	WaitTimeout(time.Duration) bool
	Done() <-chan struct{}
	Error() error
}

// MessageHandler is a subscription's callback.
type MessageHandler func(Client, Message)

// Client is an MQTT v3.1.1 client.
type Client interface {
	IsConnected() bool
	Connect() Token
	Disconnect(quiesce uint)
	Publish(topic string, qos byte, retained bool, payload interface{}) Token
	Subscribe(topic string, qos byte, callback MessageHandler) Token
	SubscribeMultiple(filters map[string]byte, callback MessageHandler) Token
	Unsubscribe(topics ...string) Token
	AddRoute(topic string, callback MessageHandler)
}

// ClientOptions configures a Client.
type ClientOptions struct{}

func NewClientOptions() *ClientOptions { return &ClientOptions{} }

func NewClient(o *ClientOptions) Client { return nil }

func (o *ClientOptions) AddBroker(server string) *ClientOptions { return o }

func (o *ClientOptions) SetClientID(id string) *ClientOptions { return o }

func (o *ClientOptions) SetDefaultPublishHandler(defaultHandler MessageHandler) *ClientOptions {
	return o
}

func (o *ClientOptions) SetAutoAckDisabled(autoAckDisabled bool) *ClientOptions { return o }

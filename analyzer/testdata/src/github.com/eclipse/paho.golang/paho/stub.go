// Package paho is a stub of github.com/eclipse/paho.golang@v0.23.0 for analyzer tests: signatures mirror the real API.
//
// Checked against the real package's type information; bodies return zero values.
package paho

import "context"

type (
	// Publish is an MQTT v5 PUBLISH packet.
	Publish struct {
		PacketID   uint16
		QoS        byte
		Retain     bool
		Topic      string
		Properties *PublishProperties
		Payload    []byte
	}

	// PublishProperties are a PUBLISH's properties.
	PublishProperties struct {
		CorrelationData []byte
		ContentType     string
		ResponseTopic   string
	}

	// PublishResponse is the broker's answer to a QoS 1 or 2 publish.
	PublishResponse struct {
		ReasonCode byte
	}

	// PublishReceived is what an OnPublishReceived callback is given.
	PublishReceived struct {
		Packet         *Publish
		Client         *Client
		AlreadyHandled bool
		Errs           []error
	}

	// ClientConfig configures a Client.
	ClientConfig struct {
		ClientID                   string
		OnPublishReceived          []func(PublishReceived) (bool, error)
		EnableManualAcknowledgment bool
	}

	// Client is an MQTT v5 client.
	Client struct{}
)

// MessageHandler is a router's callback.
type MessageHandler func(*Publish)

// StandardRouter routes PUBLISHes by topic.
type StandardRouter struct{}

func NewClient(conf ClientConfig) *Client { return nil }

func NewStandardRouter() *StandardRouter { return nil }

func (r *StandardRouter) RegisterHandler(topic string, h MessageHandler) {}

func (c *Client) Ack(pb *Publish) error { return nil }

func (c *Client) Publish(ctx context.Context, p *Publish) (*PublishResponse, error) { return nil, nil }

func (c *Client) AddOnPublishReceived(f func(PublishReceived) (bool, error)) func() { return nil }

// Package autopaho is a stub of github.com/eclipse/paho.golang@v0.23.0 for analyzer tests: signatures mirror the real API.
//
// Checked against the real package's type information; bodies return zero values.
package autopaho

import (
	"context"

	"github.com/eclipse/paho.golang/paho"
)

// PublishReceived is what an OnPublishReceived callback is given.
type PublishReceived struct {
	paho.PublishReceived
	ConnectionManager *ConnectionManager
}

// ClientConfig configures a ConnectionManager.
type ClientConfig struct {
	KeepAlive uint16
	paho.ClientConfig
}

// ConnectionManager keeps a client connected.
type ConnectionManager struct{}

func NewConnection(ctx context.Context, cfg ClientConfig) (*ConnectionManager, error) {
	return nil, nil
}

func (c *ConnectionManager) Publish(ctx context.Context, p *paho.Publish) (*paho.PublishResponse, error) {
	return nil, nil
}

func (c *ConnectionManager) AddOnPublishReceived(f func(PublishReceived) (bool, error)) func() {
	return nil
}

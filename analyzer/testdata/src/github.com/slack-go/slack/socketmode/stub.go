// Package socketmode is a stub of github.com/slack-go/slack@v0.17.3 for analyzer tests: signatures mirror the real API.
//
// Checked against the real package's type information; bodies return zero values.
package socketmode

import (
	"context"
	"encoding/json"

	"github.com/slack-go/slack"
	"github.com/slack-go/slack/slackevents"
)

// EventType is the type of an Event.
type EventType string

// The event types used by the tests.
const (
	EventTypeConnected    = EventType("connected")
	EventTypeEventsAPI    = EventType("events_api")
	EventTypeInteractive  = EventType("interactive")
	EventTypeSlashCommand = EventType("slash_commands")
)

// Event is what the Events channel delivers.
type Event struct {
	Type    EventType
	Data    interface{}
	Request *Request
}

// Request is a Socket Mode envelope: acked by its EnvelopeID.
type Request struct {
	Type         string          `json:"type"`
	EnvelopeID   string          `json:"envelope_id"`
	Payload      json.RawMessage `json:"payload"`
	RetryAttempt int             `json:"retry_attempt"`
	RetryReason  string          `json:"retry_reason"`
}

// Client is a Socket Mode client.
type Client struct {
	slack.Client
	Events chan Event
}

// Option configures a Client.
type Option func(client *Client)

// SocketmodeHandlerFunc is a handler's callback.
type SocketmodeHandlerFunc func(*Event, *Client)

// SocketmodeHandler dispatches events to callbacks.
type SocketmodeHandler struct{}

func New(api *slack.Client, options ...Option) *Client { return &Client{} }

func NewSocketmodeHandler(client *Client) *SocketmodeHandler { return &SocketmodeHandler{} }

func (smc *Client) Run() error { return nil }

func (smc *Client) RunContext(ctx context.Context) error { return nil }

func (smc *Client) Ack(req Request, payload ...interface{}) {}

func (smc *Client) AckCtx(ctx context.Context, reqID string, payload interface{}) error { return nil }

func (r *SocketmodeHandler) Handle(et EventType, f SocketmodeHandlerFunc) {}

func (r *SocketmodeHandler) HandleEvents(et slackevents.EventsAPIType, f SocketmodeHandlerFunc) {}

func (r *SocketmodeHandler) HandleSlashCommand(command string, f SocketmodeHandlerFunc) {}

func (r *SocketmodeHandler) HandleDefault(f SocketmodeHandlerFunc) {}

func (r *SocketmodeHandler) RunEventLoop() error { return nil }

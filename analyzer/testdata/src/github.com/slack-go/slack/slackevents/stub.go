// Package slackevents is a stub of github.com/slack-go/slack@v0.17.3 for analyzer tests: signatures mirror the real API.
//
// Checked against the real package's type information; bodies return zero values.
package slackevents

// EventsAPIType is the type of an Events API event.
type EventsAPIType string

// The event types used by the tests.
const (
	AppMention = EventsAPIType("app_mention")
	Message    = EventsAPIType("message")
)

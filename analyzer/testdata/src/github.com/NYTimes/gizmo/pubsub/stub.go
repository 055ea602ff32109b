// Package pubsub is a stub of github.com/NYTimes/gizmo@v1.3.6 (package pubsub) for analyzer tests: signatures mirror the real API.
//
// A subset: the Subscriber and SubscriberMessage interfaces.
package pubsub

import "time"

// Subscriber is a generic interface to encapsulate how we want our subscribers to behave.
type Subscriber interface {
	Start() <-chan SubscriberMessage
	Err() error
	Stop() error
}

// SubscriberMessage is a struct to encapsulate subscriber messages.
type SubscriberMessage interface {
	Message() []byte
	ExtendDoneDeadline(time.Duration) error
	Done() error
}

// Package micro is a stub of go-micro.dev/v4@v4.11.0 for analyzer tests: signatures mirror the real API.
//
// Checked against the real package's type information; bodies return zero values.
package micro

import "go-micro.dev/v4/server"

type Service interface {
	Name() string
	Server() server.Server
	Run() error
	String() string
}

func RegisterSubscriber(topic string, s server.Server, h interface{}, opts ...server.SubscriberOption) error {
	return nil
}

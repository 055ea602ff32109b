// Package common is a stub of github.com/dapr/go-sdk@v1.11.0 for analyzer tests: signatures mirror the real API.
//
// Checked against the real package's type information; bodies return zero values.
package common

import "context"

type TopicEvent struct {
	ID              string            `json:"id"`
	SpecVersion     string            `json:"specversion"`
	Type            string            `json:"type"`
	Source          string            `json:"source"`
	DataContentType string            `json:"datacontenttype"`
	Data            interface{}       `json:"data"`
	RawData         []byte            `json:"-"`
	DataBase64      string            `json:"data_base64,omitempty"`
	Subject         string            `json:"subject"`
	Topic           string            `json:"topic"`
	PubsubName      string            `json:"pubsubname"`
	Metadata        map[string]string `json:"metadata,omitempty"`
}

func (e *TopicEvent) Struct(target interface{}) error { return nil }

type Subscription struct {
	PubsubName string            `json:"pubsubname"`
	Topic      string            `json:"topic"`
	Metadata   map[string]string `json:"metadata,omitempty"`
	Route      string            `json:"route"`
}

type Service interface {
	AddTopicEventHandler(sub *Subscription, fn TopicEventHandler) error
	Start() error
	Stop() error
	GracefulStop() error
}

type (
	TopicEventHandler func(ctx context.Context, e *TopicEvent) (retry bool, err error)
)

// Package interfaces is a stub of github.com/ONSdigital/dp-kafka/v4@v4.3.0 for analyzer tests: signatures mirror the real API.
package interfaces

import "context"

type Message interface {
	GetData() []byte
	GetHeader(key string) string
	Context() context.Context
	Mark()
	Commit()
	Release()
	CommitAndRelease()
	Offset() int64
	UpstreamDone() chan struct{}
}

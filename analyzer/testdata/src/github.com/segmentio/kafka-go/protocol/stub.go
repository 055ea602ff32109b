// Package protocol is a stub of github.com/segmentio/kafka-go@v0.4.51 for analyzer tests: signatures mirror the real API.
//
// Generated from the real package's type information; bodies return zero values.
package protocol

type Header struct {
	Key   string
	Value []byte
}

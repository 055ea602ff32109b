// Package queue is a stub of github.com/zeromicro/go-zero@v1.6.6 for analyzer tests: signatures mirror the real API.
//
// Checked against the real package's type information; bodies return zero values.
package queue

type MessageQueue interface {
	Start()
	Stop()
}

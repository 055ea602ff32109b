// Package logger is a stub of github.com/dapr/kit@v0.16.1 for analyzer tests: signatures mirror the real API.
package logger

// Logger includes the logging api sets.
type Logger interface {
	// Infof logs a message at level Info.
	Infof(format string, args ...interface{})
	// Warnf logs a message at level Warn.
	Warnf(format string, args ...interface{})
	// Errorf logs a message at level Error.
	Errorf(format string, args ...interface{})
}

// NewLogger creates a new logger with the given name.
func NewLogger(name string) Logger { return nil }

// Package watermill is a stub of github.com/ThreeDotsLabs/watermill@v1.5.1 for analyzer tests: signatures mirror the real API.
//
// Generated from the real package's type information; bodies return zero values.
package watermill

type LoggerAdapter interface {
	Debug(msg string, fields LogFields)
	Error(msg string, err error, fields LogFields)
	Info(msg string, fields LogFields)
	Trace(msg string, fields LogFields)
	With(fields LogFields) LoggerAdapter
}

type LogFields map[string]interface{}

func NewStdLogger(debug bool, trace bool) LoggerAdapter { return nil }

func NewUUID() string { return "" }

type NopLogger struct {
}

func (_ NopLogger) Error(msg string, err error, fields LogFields) {}

func (_ NopLogger) Info(msg string, fields LogFields) {}

func (_ NopLogger) Debug(msg string, fields LogFields) {}

func (_ NopLogger) Trace(msg string, fields LogFields) {}

func (l NopLogger) With(fields LogFields) LoggerAdapter { return nil }

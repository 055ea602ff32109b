// Package zap is a stub of go.uber.org/zap@v1.27.0 for analyzer tests: signatures mirror the real API.
package zap

// Field is a typed log field.
type Field struct {
	Key    string
	String string
}

// Logger is a fast, leveled logger.
type Logger struct{}

func NewNop() *Logger                                 { return &Logger{} }
func (log *Logger) Info(msg string, fields ...Field)  {}
func (log *Logger) Error(msg string, fields ...Field) {}
func (log *Logger) Sync() error                       { return nil }
func Error(err error) Field                           { return Field{Key: "error"} }
func String(key string, val string) Field             { return Field{Key: key, String: val} }

// Package obs is the service's own telemetry: metrics behind an interface
// whose method names sound like writes, implemented with logging only.
package obs

import "go.uber.org/zap"

// Metrics counts what the consumers do.
type Metrics interface {
	AddProcessed(subject string, n int)
	IncrFailures(subject string)
}

// Log is Metrics written to a logger.
type Log struct{ L *zap.Logger }

func (m Log) AddProcessed(subject string, n int) {
	m.L.Info("processed", zap.String("subject", subject))
}
func (m Log) IncrFailures(subject string) { m.L.Error("failure", zap.String("subject", subject)) }

// Package backoff is a stub of github.com/cenkalti/backoff/v4@v4.3.0 for analyzer tests: signatures mirror the real API.
package backoff

import "time"

// BackOff is a backoff policy.
type BackOff interface {
	NextBackOff() time.Duration
	Reset()
}

// Operation is retried by Retry.
type Operation func() error

// Retry runs o until it succeeds, returns a permanent error or b stops.
func Retry(o Operation, b BackOff) error { return nil }

// Permanent wraps an error that must not be retried.
func Permanent(err error) error { return nil }

// ExponentialBackOff grows its interval exponentially.
type ExponentialBackOff struct {
	InitialInterval     time.Duration
	RandomizationFactor float64
	Multiplier          float64
	MaxInterval         time.Duration
	MaxElapsedTime      time.Duration
}

// ExponentialBackOffOpts configures an ExponentialBackOff.
type ExponentialBackOffOpts func(*ExponentialBackOff)

// NewExponentialBackOff returns a backoff with the defaults and opts.
func NewExponentialBackOff(opts ...ExponentialBackOffOpts) *ExponentialBackOff { return nil }

// WithMaxElapsedTime sets MaxElapsedTime.
func WithMaxElapsedTime(duration time.Duration) ExponentialBackOffOpts { return nil }

// NextBackOff returns the next interval.
func (b *ExponentialBackOff) NextBackOff() time.Duration { return 0 }

// Reset restarts the intervals.
func (b *ExponentialBackOff) Reset() {}

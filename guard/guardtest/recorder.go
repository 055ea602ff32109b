package guardtest

import (
	"context"
	"sync"

	"github.com/idemkit/idem/guard"
)

// Recorder is a guard.Observer that keeps every event it receives, for tests
// that check which decisions a store reported. It is safe for concurrent use.
type Recorder struct {
	mu     sync.Mutex
	events []guard.Event
}

// NewRecorder returns an empty Recorder.
func NewRecorder() *Recorder { return &Recorder{} }

// Observe implements guard.Observer.
func (r *Recorder) Observe(_ context.Context, e guard.Event) {
	r.mu.Lock()
	r.events = append(r.events, e)
	r.mu.Unlock()
}

// Events returns a copy of the events received so far, in order.
func (r *Recorder) Events() []guard.Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]guard.Event(nil), r.events...)
}

// Count returns how many events of decision d were received.
func (r *Recorder) Count(d guard.Decision) int {
	n := 0
	for _, e := range r.Events() {
		if e.Decision == d {
			n++
		}
	}
	return n
}

// Find returns the events of decision d for key (any key when key is empty).
func (r *Recorder) Find(d guard.Decision, key string) []guard.Event {
	var out []guard.Event
	for _, e := range r.Events() {
		if e.Decision == d && (key == "" || e.Key == key) {
			out = append(out, e)
		}
	}
	return out
}

// Reset forgets the events received so far.
func (r *Recorder) Reset() {
	r.mu.Lock()
	r.events = nil
	r.mu.Unlock()
}

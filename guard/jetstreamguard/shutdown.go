package jetstreamguard

import (
	"sync"
	"time"
)

// drainTimeout bounds how long Consume waits for its drained subscription to
// close before it sends the settlements it held back.
const drainTimeout = 5 * time.Second

// shutdown orders the settlements of a stopping Consume. A nak sent while the
// consumer's pull request is still open on the server makes JetStream
// redeliver the message to that request, that is to the subscription being
// closed, which drops it: the message then waits out AckWait. So once
// stopping, settlements are held until the subscription is closed (its UNSUB
// is then on the wire ahead of them) and release sends them.
type shutdown struct {
	mu       sync.Mutex
	stopping bool
	released bool
	held     []func()
	inflight sync.WaitGroup
}

// enter admits a message to its handler and counts it in flight; the caller
// calls inflight.Done when the message is settled. Once stopping, enter
// refuses, and unhandled (the message's nak) goes the way of hold.
func (s *shutdown) enter(unhandled func()) bool {
	s.mu.Lock()
	if s.stopping {
		s.mu.Unlock()
		s.hold(unhandled)
		return false
	}
	s.inflight.Add(1)
	s.mu.Unlock()
	return true
}

// hold runs settle now when Consume is not stopping or has released, and
// otherwise keeps it for release.
func (s *shutdown) hold(settle func()) {
	s.mu.Lock()
	if s.stopping && !s.released {
		s.held = append(s.held, settle)
		s.mu.Unlock()
		return
	}
	s.mu.Unlock()
	settle()
}

// stop makes enter refuse and hold keep.
func (s *shutdown) stop() {
	s.mu.Lock()
	s.stopping = true
	s.mu.Unlock()
}

// release sends the held settlements, in order; later ones run at once.
func (s *shutdown) release() {
	s.mu.Lock()
	s.released = true
	held := s.held
	s.held = nil
	s.mu.Unlock()
	for _, settle := range held {
		settle()
	}
}

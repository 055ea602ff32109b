package jetstreamguard

import (
	"slices"
	"testing"
)

// TestShutdownHoldsSettlementsUntilRelease: before stop a settlement runs at
// once; between stop and release it is held (and enter refuses, holding the
// unhandled message's nak); release runs the held ones in order, and after
// it settlements run at once again.
func TestShutdownHoldsSettlementsUntilRelease(t *testing.T) {
	var s shutdown
	var ran []string
	note := func(name string) func() { return func() { ran = append(ran, name) } }

	if !s.enter(note("unexpected")) {
		t.Fatal("enter refused before stop")
	}
	s.hold(note("before"))
	s.inflight.Done()
	if want := []string{"before"}; !slices.Equal(ran, want) {
		t.Fatalf("before stop ran %q, want %q", ran, want)
	}

	s.stop()
	s.hold(note("in-flight"))
	if s.enter(note("buffered")) {
		t.Fatal("enter admitted a message after stop")
	}
	if want := []string{"before"}; !slices.Equal(ran, want) {
		t.Fatalf("after stop ran %q, want %q (held)", ran, want)
	}

	s.release()
	s.hold(note("late"))
	if want := []string{"before", "in-flight", "buffered", "late"}; !slices.Equal(ran, want) {
		t.Fatalf("after release ran %q, want %q", ran, want)
	}
	s.inflight.Wait() // nothing left in flight
}

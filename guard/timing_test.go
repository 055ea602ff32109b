package guard_test

import (
	"testing"

	"github.com/idemkit/idem/guard/internal/timingtest"
)

// TestEventTimings checks Event.Claim and Event.Effect on the SQL stores.
func TestEventTimings(t *testing.T) {
	for _, h := range sqlHarnesses() {
		t.Run(h.Name, func(t *testing.T) { timingtest.Run(t, h) })
	}
}

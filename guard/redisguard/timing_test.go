package redisguard_test

import (
	"testing"

	"github.com/idemkit/idem/guard/internal/timingtest"
)

// TestEventTimings checks Event.Claim and Event.Effect on Redis.
func TestEventTimings(t *testing.T) {
	forKinds(t, func(t *testing.T, k kind) { timingtest.Run(t, harness(k)) })
}

package pgxguard_test

import (
	"testing"

	"github.com/idemkit/idem/guard/internal/timingtest"
)

// TestEventTimings checks Event.Claim and Event.Effect on pgx.
func TestEventTimings(t *testing.T) { timingtest.Run(t, harness()) }

package guard

import (
	"math"
	"testing"
	"time"
)

// TestDurationsRoundUp: the SQL stores keep durations in microseconds,
// rounded up, so that no retention or lease is ever shortened.
func TestDurationsRoundUp(t *testing.T) {
	for _, tt := range []struct {
		d    time.Duration
		want int64
	}{
		{time.Nanosecond, 1},
		{time.Microsecond, 1},
		{time.Microsecond + 1, 2},
		{MinRetention + 999, 60_000_001},
		{MinLease, 1_000_000},
		{time.Duration(math.MaxInt64), math.MaxInt64/1000 + 1},
	} {
		if got := us(tt.d); got != tt.want {
			t.Errorf("us(%d ns) = %d µs, want %d", int64(tt.d), got, tt.want)
		}
	}
}

package redisguard

import (
	"math"
	"testing"
	"time"
)

// TestDurationsRoundUp: PEXPIRE takes milliseconds and the scripts'
// clock counts microseconds; durations are rounded up, and the longest one
// does not wrap round to 1 ms (a record that vanishes at once).
func TestDurationsRoundUp(t *testing.T) {
	forever := time.Duration(math.MaxInt64)
	for _, tt := range []struct {
		name string
		f    func(time.Duration) int64
		d    time.Duration
		want int64
	}{
		{"ms", ms, time.Nanosecond, 1},
		{"ms", ms, time.Millisecond, 1},
		{"ms", ms, time.Millisecond + 1, 2},
		{"ms", ms, time.Minute + time.Microsecond, 60_001},
		{"ms", ms, forever, math.MaxInt64/1_000_000 + 1},
		{"us", us, time.Nanosecond, 1},
		{"us", us, time.Second + 1, 1_000_001},
		{"us", us, forever, math.MaxInt64/1000 + 1},
	} {
		if got := tt.f(tt.d); got != tt.want {
			t.Errorf("%s(%d ns) = %d, want %d", tt.name, int64(tt.d), got, tt.want)
		}
	}
}

package guardtest

import (
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/idemkit/idem/guard"
)

// BenchConcurrencies are the concurrencies every store's benchmark runs at.
var BenchConcurrencies = []int{1, 8}

// RunConcurrent calls handle b.N times in total from conc goroutines and
// reports messages per second as the metric "msgs/s". The first error stops
// the benchmark. Stores' benchmarks use it so that guarded and unguarded
// handling are driven alike.
func RunConcurrent(b *testing.B, conc int, handle func() error) {
	b.Helper()
	var (
		failed atomic.Value
		next   atomic.Int64
	)
	done := make(chan struct{})
	b.ResetTimer()
	for range conc {
		go func() {
			defer func() { done <- struct{}{} }()
			for next.Add(1) <= int64(b.N) {
				if err := handle(); err != nil {
					failed.CompareAndSwap(nil, err)
					return
				}
			}
		}()
	}
	for range conc {
		<-done
	}
	b.StopTimer()
	if err, _ := failed.Load().(error); err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "msgs/s")
}

// BenchGuarded runs the sub-benchmarks unguarded/c<n> and guarded/c<n> for
// every concurrency of BenchConcurrencies, side by side in one run, so their
// ratio compares like with like. Each call of a function handles one message.
func BenchGuarded(b *testing.B, unguarded, guarded func() error) {
	for _, mode := range []struct {
		name   string
		handle func() error
	}{{"unguarded", unguarded}, {"guarded", guarded}} {
		for _, conc := range BenchConcurrencies {
			b.Run(fmt.Sprintf("%s/c%d", mode.name, conc), func(b *testing.B) {
				RunConcurrent(b, conc, mode.handle)
			})
		}
	}
}

// WantApplied turns a guarded benchmark's answer into an error unless it is
// Applied: benchmark messages have fresh keys.
func WantApplied(out guard.Outcome, err error) error {
	if err == nil && out != guard.Applied {
		err = fmt.Errorf("outcome %v, want applied", out)
	}
	return err
}

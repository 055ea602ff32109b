package guardtest

import (
	"sync/atomic"
	"testing"
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

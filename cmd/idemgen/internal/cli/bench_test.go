package cli

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// bigSpec returns a spec of n consumers, cycling through the effect kinds.
func bigSpec(n int) []byte {
	var b strings.Builder
	b.WriteString("version: 1\npackage: big\ndialect: postgres\nconsumers:\n")
	for i := range n {
		fmt.Fprintf(&b, "  - name: consumer_%04d\n    message: {fields: {order_id: string, user_id: string, sku: string, quantity: int64, at: time}}\n    key: [order_id, sku]\n", i)
		switch i % 3 {
		case 0:
			b.WriteString("    effect: sql\n")
		case 1:
			b.WriteString("    effect: redis\n    hash_tag: user_id\n")
		case 2:
			b.WriteString("    effect: external\n    lease: 10s\n")
		}
	}
	return []byte(b.String())
}

// BenchmarkCheck measures idemgen check on an up-to-date tree of a
// 1,000-consumer spec: load and validate the spec, generate the 2,000 Go
// files and the migrations in memory, and compare them with the disk. The
// target is under one second per check.
func BenchmarkCheck(b *testing.B) {
	dir := b.TempDir()
	file := filepath.Join(dir, "idem.yaml")
	if err := os.WriteFile(file, bigSpec(1000), 0o666); err != nil {
		b.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	if code := Main([]string{"generate", "-f", file}, nil, &stdout, &stderr); code != ExitOK {
		b.Fatalf("generate: exit %d\n%s", code, stderr.String())
	}
	if n := strings.Count(stdout.String(), "\n"); n != 2002 {
		b.Fatalf("generate wrote %d files, want 2002", n)
	}
	cpu0 := cpuTime()
	n := 0
	for b.Loop() {
		n++
		stdout.Reset()
		stderr.Reset()
		if code := Main([]string{"check", "-f", file}, nil, &stdout, &stderr); code != ExitOK {
			b.Fatalf("check: exit %d\n%s", code, stderr.String())
		}
	}
	// The CPU time, user and system, of all goroutines: on a loaded
	// machine wall time says little, and check works on every core.
	b.ReportMetric(float64(cpuTime()-cpu0)/float64(n), "cpu-ns/op")
}

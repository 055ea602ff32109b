package generator

import (
	"fmt"
	"strings"
	"testing"

	"github.com/idemkit/idem/spec"
)

// bigSpec returns a spec of n consumers that cycle through the effect
// kinds, built in memory.
func bigSpec(tb testing.TB, n int) *spec.Spec {
	tb.Helper()
	var b strings.Builder
	b.WriteString("version: 1\npackage: big\noutput: ./big\ndialect: postgres\nconsumers:\n")
	for i := range n {
		fmt.Fprintf(&b, "  - name: consumer_%d\n", i)
		b.WriteString("    message: {fields: {order_id: string, user_id: string, sku: string, quantity: int64, at: time, price: float64}}\n")
		b.WriteString("    key: [order_id, sku, at]\n")
		switch i % 4 {
		case 0:
			b.WriteString("    effect: sql\n")
		case 1:
			b.WriteString("    effect: redis\n    hash_tag: user_id\n")
		case 2:
			b.WriteString("    effect: external\n    store: sql\n    delivery: at-most-once\n")
		case 3:
			b.WriteString("    effect: external\n    store: redis\n    on_error: keep\n")
		}
	}
	s, err := spec.Parse("idem.yaml", []byte(b.String()))
	if err != nil {
		tb.Fatal(err)
	}
	return s
}

// BenchmarkGenerate1000 generates the files of a 1,000-consumer spec (2,000
// Go files and the migrations).
func BenchmarkGenerate1000(b *testing.B) {
	s := bigSpec(b, 1000)
	b.ResetTimer()
	for b.Loop() {
		if _, err := Generate(s); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPlanUnchanged compares the files of a 1,000-consumer spec with a
// tree that holds them already: the work of `idemgen check` on a clean
// tree, once generated.
func BenchmarkPlanUnchanged(b *testing.B) {
	files, err := Generate(bigSpec(b, 1000))
	if err != nil {
		b.Fatal(err)
	}
	dir := b.TempDir()
	if _, err := Write(dir, files); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		changes, err := Plan(dir, files)
		if err != nil || len(changes) > 0 {
			b.Fatal(changes, err)
		}
	}
}

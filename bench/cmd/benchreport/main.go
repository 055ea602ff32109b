// Command benchreport reads the output of BenchmarkThroughput (go test
// -bench, any -count) and prints, per configuration, a Markdown table of
// the median messages per second of every store, contender and
// concurrency, with its ratio to the naive contender's median on the same
// store and concurrency:
//
//	go run ./cmd/benchreport results/durable.txt results/fast.txt
package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// line matches a result: BenchmarkThroughput/<config>/<store>/<contender>/c<n>-<procs> … <x> msgs/s.
var line = regexp.MustCompile(`^BenchmarkThroughput/([^/]+)/([^/]+)/([^/]+)/c(\d+)(?:-\d+)?\s.*?\s([0-9.e+]+) msgs/s`)

type cell struct {
	config, store, contender string
	conc                     int
}

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: benchreport results.txt...")
		os.Exit(2)
	}
	samples := map[cell][]float64{}
	var order []cell
	for _, name := range os.Args[1:] {
		f, err := os.Open(name)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		if err := read(f, samples, &order); err != nil {
			fmt.Fprintf(os.Stderr, "%s: %v\n", name, err)
			os.Exit(1)
		}
		f.Close()
	}
	write(os.Stdout, samples, order)
}

func read(r io.Reader, samples map[cell][]float64, order *[]cell) error {
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		m := line.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		conc, _ := strconv.Atoi(m[4])
		v, err := strconv.ParseFloat(m[5], 64)
		if err != nil {
			return err
		}
		c := cell{m[1], m[2], m[3], conc}
		if _, ok := samples[c]; !ok {
			*order = append(*order, c)
		}
		samples[c] = append(samples[c], v)
	}
	return sc.Err()
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	sort.Float64s(s)
	if n := len(s); n%2 == 1 {
		return s[n/2]
	} else {
		return (s[n/2-1] + s[n/2]) / 2
	}
}

// thousands formats x rounded to an integer with commas.
func thousands(x float64) string {
	s := strconv.FormatInt(int64(x+0.5), 10)
	var b strings.Builder
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	return b.String()
}

func write(w io.Writer, samples map[cell][]float64, order []cell) {
	var configs, concs []string
	type row struct{ config, store, contender string }
	var rows []row
	seenRow := map[row]bool{}
	for _, c := range order {
		if !slices.Contains(configs, c.config) {
			configs = append(configs, c.config)
		}
		if k := strconv.Itoa(c.conc); !slices.Contains(concs, k) {
			concs = append(concs, k)
		}
		if r := (row{c.config, c.store, c.contender}); !seenRow[r] {
			seenRow[r] = true
			rows = append(rows, r)
		}
	}
	for _, cfg := range configs {
		fmt.Fprintf(w, "### %s\n\n| store | contender |", cfg)
		for _, k := range concs {
			fmt.Fprintf(w, " c%s msgs/s | c%s ÷ naive |", k, k)
		}
		fmt.Fprintf(w, " runs |\n|---|---|")
		for range concs {
			fmt.Fprintf(w, "---:|---:|")
		}
		fmt.Fprintf(w, "---:|\n")
		for _, r := range rows {
			if r.config != cfg {
				continue
			}
			fmt.Fprintf(w, "| %s | %s |", r.store, r.contender)
			runs := 0
			for _, k := range concs {
				conc, _ := strconv.Atoi(k)
				xs := samples[cell{r.config, r.store, r.contender, conc}]
				base := samples[cell{r.config, r.store, "naive", conc}]
				if len(xs) == 0 {
					fmt.Fprintf(w, " – | – |")
					continue
				}
				runs = max(runs, len(xs))
				ratio := "–"
				if len(base) > 0 {
					ratio = fmt.Sprintf("%.2f", median(xs)/median(base))
				}
				fmt.Fprintf(w, " %s | %s |", thousands(median(xs)), ratio)
			}
			fmt.Fprintf(w, " %d |\n", runs)
		}
		fmt.Fprintln(w)
	}
}

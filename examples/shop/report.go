package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/idemkit/idem/examples/shop/orders"
	"github.com/idemkit/idem/examples/shop/shopdb"
)

// off counts, per consumer, the rows of a snapshot that differ from the
// expected one: SKUs, users, texts, (day, metric) rows. A snapshot is
// exact when every count is zero.
type off map[string]int

func (o off) total() int {
	n := 0
	for _, v := range o {
		n += v
	}
	return n
}

// compare compares got with the expected snapshot exp, row by row.
func compare(exp, got snapshot) off {
	o := off{
		orders.DeductInventoryConsumer: diffMaps(exp.db.Stock, got.db.Stock),
		orders.AddPointsConsumer:       diffMaps(exp.db.Points, got.db.Points),
		orders.SendSmsConsumer:         diffMaps(exp.sms.Texts, got.sms.Texts),
		orders.UpdateStatsConsumer:     diffMaps(exp.db.Stats, got.db.Stats),
	}
	if exp.redisPoints != nil {
		o[orders.AddPointsRedisConsumer] = diffMaps(exp.redisPoints, got.redisPoints)
	}
	return o
}

// diffMaps counts the keys whose values differ between a and b, a key
// missing on one side counting as the zero value.
func diffMaps[K comparable, V comparable](a, b map[K]V) int {
	n := 0
	var zero V
	for k, v := range a {
		if w, ok := b[k]; !ok && v != zero || ok && w != v {
			n++
		}
	}
	for k, w := range b {
		if _, ok := a[k]; !ok && w != zero {
			n++
		}
	}
	return n
}

// exact reports whether the guarded consumers reached the expected state.
func (r *result) exact() bool {
	return compare(r.traffic.expected, r.guarded).total() == 0
}

// report prints the table of the run: per consumer, the expected final
// state, the naive consumers' and the guarded consumers', then a verdict
// per path.
func (r *result) report(w io.Writer) {
	exp, nv, gd := r.traffic.expected, r.naive, r.guarded
	nOff, gOff := compare(exp, nv), compare(exp, gd)
	type row struct{ consumer, measure, exp, naive, guarded string }
	var rows []row
	add := func(consumer, measure string, f func(s snapshot) string) {
		rows = append(rows, row{consumer, measure, f(exp), f(nv), f(gd)})
	}
	offRow := func(consumer, what string) {
		rows = append(rows, row{"", what + " off expected", "0", fmt.Sprint(nOff[consumer]), fmt.Sprint(gOff[consumer])})
	}
	add(orders.DeductInventoryConsumer, fmt.Sprintf("stock left, %d SKUs", len(r.traffic.skus)), func(s snapshot) string {
		return group(sum(s.db.Stock))
	})
	add("", "SKUs below zero", func(s snapshot) string {
		n := 0
		for _, q := range s.db.Stock {
			if q < 0 {
				n++
			}
		}
		return fmt.Sprint(n)
	})
	offRow(orders.DeductInventoryConsumer, "SKUs")
	add(orders.AddPointsConsumer, fmt.Sprintf("points credited, %d users", len(r.traffic.users)), func(s snapshot) string {
		return group(sum(s.db.Points))
	})
	offRow(orders.AddPointsConsumer, "users")
	if exp.redisPoints != nil {
		add(orders.AddPointsRedisConsumer, fmt.Sprintf("points credited, %d users", len(r.traffic.users)), func(s snapshot) string {
			return group(sum(s.redisPoints))
		})
		offRow(orders.AddPointsRedisConsumer, "users")
	}
	add(orders.SendSmsConsumer, "texts sent", func(s snapshot) string { return group(int64(s.sms.Sent)) })
	add("", "texts received twice or more", func(s snapshot) string {
		n := 0
		for _, c := range s.sms.Texts {
			if c > 1 {
				n++
			}
		}
		return fmt.Sprint(n)
	})
	rows = append(rows, row{"", "repeats dropped by the provider", "–", fmt.Sprint(nv.sms.Deduped), fmt.Sprint(gd.sms.Deduped)})
	add(orders.UpdateStatsConsumer, "orders counted", func(s snapshot) string { return group(stat(s, metricGMV).Count) })
	add("", "GMV", func(s snapshot) string { return money(stat(s, metricGMV).Total) })
	add("", "units counted", func(s snapshot) string { return group(stat(s, metricUnits).Total) })
	offRow(orders.UpdateStatsConsumer, "(day, metric) rows")

	fmt.Fprintln(w)
	format := "%-17s %-32s %12s %12s %12s\n"
	fmt.Fprintf(w, format, "consumer", "final state", "expected", "naive", "guarded")
	fmt.Fprintf(w, format, strings.Repeat("-", 17), strings.Repeat("-", 32), strings.Repeat("-", 12), strings.Repeat("-", 12), strings.Repeat("-", 12))
	for _, x := range rows {
		fmt.Fprintf(w, format, x.consumer, x.measure, x.exp, x.naive, x.guarded)
	}
	fmt.Fprintln(w)

	nn, gn := r.naiveN, r.guardedN
	fmt.Fprintf(w, "naive:   %d deliveries, %d redelivered, %d worker crashes; ",
		nn.delivered.Load(), nn.redelivered.Load(), nn.crashed.Load())
	if t := nOff.total(); t == 0 {
		fmt.Fprintln(w, "exact (no resend or crash hit it)")
	} else {
		fmt.Fprintf(w, "%d rows off expected: every resend and crash ran the effect again\n", t)
	}
	fmt.Fprintf(w, "guarded: %d deliveries, %d redelivered, %d worker crashes (%d mid-effect); %d duplicates skipped, %d waited for a lease; ",
		gn.delivered.Load(), gn.redelivered.Load(), gn.crashed.Load(), gn.midEffect.Load(), gn.duplicates.Load(), gn.inProgress.Load())
	if t := gOff.total(); t == 0 {
		fmt.Fprintln(w, "exact")
	} else {
		fmt.Fprintf(w, "%d rows OFF EXPECTED\n", t)
	}
}

func sum(m map[string]int64) int64 {
	var n int64
	for _, v := range m {
		n += v
	}
	return n
}

// stat sums a metric over the days.
func stat(s snapshot, metric string) shopdb.Stat {
	var t shopdb.Stat
	for k, v := range s.db.Stats {
		if k.Metric == metric {
			t.Count += v.Count
			t.Total += v.Total
		}
	}
	return t
}

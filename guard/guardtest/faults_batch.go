package guardtest

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"sort"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/idemkit/idem/guard"
)

// Parameters of the batch fault suite (see also the fault suite's).
const (
	faultBatchMax   = 16   // deliveries a worker takes at once
	faultPoisonRate = 0.03 // share of messages every effect of which is rejected
	faultFlakyRate  = 0.05 // share of deliveries whose effect fails once (transient)
)

var errFlaky = errors.New("guardtest: the effect failed for a moment")

// RunBatchFaults runs the fault-injection suite through the batch calls:
// the messages of RunFaults, each delivered 1 to 4 times in shuffled order
// (copies kept close, so that two copies often share a batch), handled by 8
// concurrent workers that each take up to 16 ready deliveries at once, while
// about 10% of the batches crash at one of four points: before the claim,
// inside the batch before the effect of one message, after the effect of
// one message before the commit, and after the commit before the acks of
// that message and those after it. A crash cancels the batch's context or
// abandons its leases, nothing else.
//
//   - transactional: DoBatch deducting qty from 20 SKU counters. Some
//     messages are poison (their effect is always rejected: they must end
//     failed and count nothing, and not undo their batch) and some
//     deliveries fail once in their effect (a transient error: only that
//     message is redelivered). Every counter must equal the sum over the
//     distinct messages that are not poison, every key end done (or failed
//     for poison), and no message be applied twice.
//   - external, at-least-once and at-most-once: ClaimBatch, a send log and
//     Lease.Complete per message, with the checks of RunFaults.
func RunBatchFaults(t *testing.T, h Harness) {
	if h.New == nil {
		t.Fatal("guardtest: Harness.New is nil")
	}
	seed := uint64(time.Now().UnixNano())
	if s := os.Getenv(FaultSeedEnv); s != "" {
		var err error
		if seed, err = strconv.ParseUint(s, 10, 64); err != nil {
			t.Fatalf("%s=%q: %v", FaultSeedEnv, s, err)
		}
	}
	n := faultMessages
	if testing.Short() {
		n = faultMessagesShort
	}
	t.Logf("%s: seed %d (%s=%d replays it), %d messages, batches of up to %d", h.Name, seed, FaultSeedEnv, seed, n, faultBatchMax)
	t.Run("transactional", func(t *testing.T) { t.Parallel(); runTransactionalBatchFaults(t, h, seed, n) })
	t.Run("external/at-least-once", func(t *testing.T) { t.Parallel(); runExternalBatchFaults(t, h, seed, n, guard.AtLeastOnce) })
	t.Run("external/at-most-once", func(t *testing.T) { t.Parallel(); runExternalBatchFaults(t, h, seed, n, guard.AtMostOnce) })
}

// batchCrash draws whether and where the handling of the batch ds crashes,
// and at which of its messages: the same seed gives the same draw for the
// same first copy and attempt.
func batchCrash(seed uint64, ds []delivery) (crashPoint, int) {
	d := ds[0]
	r := rand.New(rand.NewPCG(seed^0xba7c4, uint64(d.copy)<<20|uint64(d.attempt)))
	if r.Float64() >= faultCrashRate {
		return noCrash, 0
	}
	return crashPoint(1 + r.IntN(4)), r.IntN(len(ds))
}

// flaky draws whether delivery d's effect fails once.
func (d delivery) flaky(seed uint64) bool {
	r := rand.New(rand.NewPCG(seed^0xf1a4, uint64(d.copy)<<20|uint64(d.attempt)))
	return r.Float64() < faultFlakyRate
}

func runTransactionalBatchFaults(t *testing.T, h Harness, seed uint64, n int) {
	stats := newFaultStats()
	b := h.New(t, guard.WithObserver(stats))
	const consumer = "deduct_inventory"
	poison := map[int]bool{}
	msgs, ds := makeDeliveries(seed, n, func(i int, r *rand.Rand) faultMsg {
		m := faultMsg{key: key("order", strconv.Itoa(i)), sku: fmt.Sprintf("sku-%02d", r.IntN(faultSKUs)), qty: 1 + r.Int64N(9)}
		var f guard.FingerprintBuilder
		f.String("sku", m.sku)
		f.Int("qty", m.qty)
		m.fp = f.Sum()
		if r.Float64() < faultPoisonRate {
			poison[i] = true
		}
		return m
	})
	ctx, cancel := context.WithTimeout(t.Context(), faultBudget)
	defer cancel()
	br := newBroker(ds)
	var batches, rejected, flakes atomic.Int64
	start := time.Now()
	ok := br.workBatches(ctx, faultWorkers, faultBatchMax, func(batch []delivery) {
		batches.Add(1)
		stats.deliveries.Add(int64(len(batch)))
		crash, at := batchCrash(seed, batch)
		if crash == crashBeforeClaim {
			stats.crashes[crash].Add(1)
			for _, d := range batch {
				br.redeliver(d, faultRedeliver)
			}
			return
		}
		dctx, dcancel := context.WithTimeout(ctx, 20*time.Second)
		defer dcancel()
		crashed := false
		bm := make([]BatchEffect, len(batch))
		for i, d := range batch {
			m := msgs[d.msg]
			e := Effect{Counter: m.sku, Delta: m.qty}
			switch {
			case i == at && crash == crashBeforeEffect:
				e.Hook = func(context.Context) error { crashed = true; dcancel(); return context.Canceled }
			case i == at && crash == crashBeforeCommit:
				e.Hook = func(context.Context) error { crashed = true; dcancel(); return nil }
			case poison[d.msg]:
				e.Hook = func(context.Context) error { return guard.Reject(errors.New("poison")) }
			case d.flaky(seed):
				e.Hook = func(context.Context) error { flakes.Add(1); return errFlaky }
			}
			bm[i] = BatchEffect{Consumer: consumer, Key: m.key, Fingerprint: m.fp, Effect: e}
		}
		res := b.DoBatch(dctx, bm)
		if len(res) != len(batch) {
			t.Errorf("DoBatch of %d messages returned %d results", len(batch), len(res))
			return
		}
		if crashed { // the worker died: nothing is acknowledged
			stats.crashes[crash].Add(1)
			for i, d := range batch {
				if r := res[i]; r.Err == nil {
					stats.commitsDespiteCancel.Add(1)
				}
				br.redeliver(d, faultRedeliver)
			}
			return
		}
		ackLost := false
		for i, d := range batch {
			r, m := res[i], msgs[d.msg]
			switch {
			case r.Err == nil && r.Outcome == guard.Applied:
				stats.applied.Add(1)
				if poison[d.msg] {
					t.Errorf("poison message %s applied", m.key)
				}
			case r.Err == nil:
				stats.duplicates.Add(1)
			case errors.Is(r.Err, guard.ErrInProgress):
				stats.inProgress.Add(1)
				br.redeliver(d, retryDelay(r.Err))
				continue
			case errors.Is(r.Err, guard.ErrFailed) && poison[d.msg]:
				rejected.Add(1)
				br.ack() // dead-lettered, as it should be
				continue
			case guard.Permanent(r.Err):
				t.Errorf("delivery of %s: permanent error %v (dead-lettered)", m.key, r.Err)
				br.ack()
				continue
			default:
				if !errors.Is(r.Err, errFlaky) {
					stats.transientErr(r.Err)
				}
				br.redeliver(d, retryDelay(r.Err))
				continue
			}
			if crash == crashBeforeAck && i >= at {
				ackLost = true
				br.redeliver(d, faultRedeliver)
				continue
			}
			br.ack()
		}
		if ackLost {
			stats.crashes[crashBeforeAck].Add(1)
		}
	})
	elapsed := time.Since(start)
	stats.log(t, h.Name+" transactional batches", elapsed)
	t.Logf("%s transactional batches: %d batches, %d poison messages (%d rejections answered), %d flaky effects",
		h.Name, batches.Load(), len(poison), rejected.Load(), flakes.Load())
	if !ok {
		t.Fatalf("not every delivery was acknowledged within %s: %d outstanding", faultBudget, br.outstanding.Load())
	}
	want := map[string]int64{}
	for i, m := range msgs {
		if !poison[i] {
			want[m.sku] += m.qty
		}
	}
	skus := make([]string, 0, len(want))
	for s := range want {
		skus = append(skus, s)
	}
	sort.Strings(skus)
	vctx, vcancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer vcancel()
	for _, s := range skus {
		got, err := b.Counter(vctx, s)
		if err != nil {
			t.Fatalf("Counter(%s): %v", s, err)
		}
		if got != want[s] {
			t.Errorf("%s: counter %d, want %d (the sum over distinct messages that are not poison): an effect was lost or doubled", s, got, want[s])
		}
	}
	if a, ok := stats.applied.Load(), int64(len(msgs)-len(poison)); a > ok {
		t.Errorf("%d deliveries said applied, more than one per message that is not poison (%d)", a, ok)
	}
	for i, m := range msgs {
		want := guard.StateDone
		if poison[i] {
			want = guard.StateFailed
		}
		r, err := b.Store.Inspect(vctx, consumer, m.key)
		if err != nil || r == nil || r.State != want {
			t.Errorf("Inspect(%s) = %+v, %v; want a %s record", m.key, r, err, want)
			break
		}
	}
}

func runExternalBatchFaults(t *testing.T, h Harness, seed uint64, n int, mode guard.Delivery) {
	stats := newFaultStats()
	b := h.New(t, guard.WithObserver(stats), guard.WithLease(faultLease), guard.WithDelivery(mode))
	const consumer = "send_sms"
	msgs, ds := makeDeliveries(seed, n, func(i int, r *rand.Rand) faultMsg {
		m := faultMsg{key: key("sms", strconv.Itoa(i))}
		var f guard.FingerprintBuilder
		f.String("phone", fmt.Sprintf("+4915%08d", r.IntN(1e8)))
		f.String("text", "your code is "+strconv.Itoa(r.IntN(1e6)))
		m.fp = f.Sum()
		return m
	})
	provider := &sendLog{sends: map[string]int{}}
	run := &externalRun{abandoned: &keySet{}, sentAbandoned: &keySet{}, leaseLost: &keySet{}, slow: &keySet{},
		sawUncertain: &keySet{}, abandonedCount: &atomic.Int64{}, stats: stats}
	ctx, cancel := context.WithTimeout(t.Context(), faultBudget)
	defer cancel()
	br := newBroker(ds)
	start := time.Now()
	ok := br.workBatches(ctx, faultWorkers, faultBatchMax, func(batch []delivery) {
		stats.deliveries.Add(int64(len(batch)))
		crash, at := batchCrash(seed, batch)
		if crash == crashBeforeClaim {
			stats.crashes[crash].Add(1)
			for _, d := range batch {
				br.redeliver(d, faultRedeliver)
			}
			return
		}
		dctx, dcancel := context.WithTimeout(ctx, 20*time.Second)
		defer dcancel()
		bm := make([]guard.Message, len(batch))
		for i, d := range batch {
			bm[i] = guard.Message{Consumer: consumer, Key: msgs[d.msg].key, Fingerprint: msgs[d.msg].fp}
		}
		claimed := time.Now()
		claims := b.Store.ClaimBatch(dctx, bm)
		if len(claims) != len(batch) {
			t.Errorf("ClaimBatch of %d messages returned %d answers", len(batch), len(claims))
			return
		}
		abandon := func(k string) {
			run.abandoned.add(k)
			run.abandonedCount.Add(1)
			for try := 0; ; try++ {
				err := b.Tamper.ExpireLease(context.WithoutCancel(dctx), consumer, k)
				if err == nil || errors.Is(err, ErrNoRecord) {
					break
				}
				if try == 20 {
					t.Errorf("abandoning the lease of %s: %v", k, err)
					break
				}
				stats.transientErr(err)
			}
		}
		dead := false // the worker crashed at message at: the rest of its batch is abandoned
		for i, d := range batch {
			c, m := claims[i], msgs[d.msg]
			switch {
			case c.Err == nil && c.Lease.Outcome() == guard.Duplicate:
				stats.duplicates.Add(1)
				if dead || (crash == crashBeforeAck && i >= at) {
					br.redeliver(d, faultRedeliver)
					continue
				}
				br.ack()
				continue
			case c.Err == nil:
			case errors.Is(c.Err, guard.ErrInProgress):
				stats.inProgress.Add(1)
				br.redeliver(d, retryDelay(c.Err))
				continue
			case errors.Is(c.Err, guard.ErrUncertain):
				stats.uncertain.Add(1)
				run.sawUncertain.add(m.key)
				br.ack() // dead-letter and alert
				continue
			case guard.Permanent(c.Err):
				t.Errorf("ClaimBatch(%s): permanent error %v (dead-lettered)", m.key, c.Err)
				br.ack()
				continue
			default:
				stats.transientErr(c.Err)
				br.redeliver(d, retryDelay(c.Err))
				continue
			}
			l := c.Lease
			if l.TakenOver() {
				stats.takeovers.Add(1)
			}
			if dead || (i == at && crash == crashBeforeEffect) {
				if !dead {
					stats.crashes[crash].Add(1)
				}
				dead = true
				abandon(m.key)
				br.redeliver(d, faultRedeliver)
				continue
			}
			provider.send(m.key)
			if i == at && crash == crashBeforeCommit {
				stats.crashes[crash].Add(1)
				dead = true
				run.sentAbandoned.add(m.key)
				abandon(m.key)
				br.redeliver(d, faultRedeliver)
				continue
			}
			err := l.Complete(dctx, nil)
			if time.Since(claimed) >= faultLease {
				run.slow.add(m.key)
			}
			switch {
			case err == nil:
				stats.applied.Add(1)
			case errors.Is(err, guard.ErrLeaseLost):
				stats.leaseLost.Add(1)
				run.leaseLost.add(m.key)
				br.ack()
				continue
			default: // sent but not recorded: like a crash after the send
				stats.transientErr(err)
				run.sentAbandoned.add(m.key)
				abandon(m.key)
				br.redeliver(d, retryDelay(err))
				continue
			}
			if crash == crashBeforeAck && i >= at {
				if i == at {
					stats.crashes[crash].Add(1)
				}
				br.redeliver(d, faultRedeliver)
				continue
			}
			br.ack()
		}
	})
	name := h.Name + " external batches " + mode.String()
	stats.log(t, name, time.Since(start))
	if !ok {
		t.Fatalf("not every delivery was acknowledged within %s: %d outstanding", faultBudget, br.outstanding.Load())
	}
	checkExternal(t, b, name, mode, msgs, provider, run)
}

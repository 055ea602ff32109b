package guardtest

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/idemkit/idem/guard"
)

// Parameters of the fault-injection suite.
const (
	faultMessages      = 2000 // messages per run (faultMessagesShort with -short)
	faultMessagesShort = 300
	faultWorkers       = 8
	faultSKUs          = 20
	faultCrashRate     = 0.10 // share of deliveries that crash
	// faultLease is far longer than any delivery takes, so that only the
	// leases the run abandons end, and they end at once: the worker that
	// abandons one moves its end into the past by the store's clock
	// (Tamper.ExpireLease), as time passing would. No lease runs out under a
	// live worker because the machine is slow.
	faultLease         = 10 * time.Minute
	faultRedeliver     = 20 * time.Millisecond  // how soon the broker redelivers an unacked delivery
	faultRetryCap      = 250 * time.Millisecond // cap on an InProgress error's RetryAfter
	faultBudget        = 5 * time.Minute        // a run that takes longer fails (a run takes 5-15 s on an idle 2-core machine, 90 s was too little under -race -count=3 at load 10+)
	faultShuffleWindow = 64                     // copies of a message stay this close: they race
)

// FaultSeedEnv names the environment variable that fixes the seed of
// RunFaults (the messages, their delivery order and each delivery's crash
// draw); by default the seed is the time, and it is printed.
const FaultSeedEnv = "IDEM_FAULTS_SEED"

// crashPoint is where a worker crashes while handling a delivery.
type crashPoint int

const (
	noCrash           crashPoint = iota
	crashBeforeClaim             // the worker drops the delivery before touching the store
	crashBeforeEffect            // claimed, effect not done: the transaction's context is cancelled / the lease abandoned
	crashBeforeCommit            // effect done, not committed: the transaction rolls back / the sent lease is abandoned
	crashBeforeAck               // committed (Do returned, lease completed), not acked: the broker redelivers
)

var crashNames = [...]string{"", "before-claim", "after-claim", "after-effect", "after-commit"}

// RunFaults runs the fault-injection suite against the store of h: many
// messages, each delivered 1 to 4 times in shuffled order (copies of one
// message kept close, so they race), handled by 8 concurrent workers pulling
// from an in-memory broker that redelivers whatever was not acknowledged,
// while about 10% of deliveries crash the worker at one of four points:
// before the claim, after the claim before the effect, after the effect
// before the commit, and after the commit before the ack. A crash cancels the
// context a transaction runs under or abandons a lease, nothing else: it never
// leaks a transaction.
//
//   - transactional: "deduct qty from sku" through Backend.Do on 20 SKU
//     counters. Every message is acknowledged in the end, every counter equals
//     the sum over the distinct messages (exactly once), and every key is done.
//   - external/at-least-once: "send SMS" with Store.Claim, a send log and
//     Lease.Complete; a crash abandons the lease and ends it by the store's
//     clock (see faultLease). Every key is sent at least once and
//     ends done; a key is sent more than once only if a worker crashed after
//     sending it or lost its lease.
//   - external/at-most-once: the same under at-most-once delivery. No key is
//     sent twice; the keys that end uncertain are exactly those whose lease
//     was abandoned; a key whose lease was never abandoned is sent once.
//
// The figures (deliveries, crashes per point, applied, duplicates,
// in-progress, takeovers, uncertain, retries, elapsed) are logged. The seed is
// printed; FaultSeedEnv replays it.
func RunFaults(t *testing.T, h Harness) {
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
	t.Logf("%s: seed %d (%s=%d replays the messages, their order and the crash draws), %d messages", h.Name, seed, FaultSeedEnv, seed, n)
	// The three runs use three stores and run side by side.
	t.Run("transactional", func(t *testing.T) { t.Parallel(); runTransactionalFaults(t, h, seed, n) })
	t.Run("external/at-least-once", func(t *testing.T) { t.Parallel(); runExternalFaults(t, h, seed, n, guard.AtLeastOnce) })
	t.Run("external/at-most-once", func(t *testing.T) { t.Parallel(); runExternalFaults(t, h, seed, n, guard.AtMostOnce) })
}

// faultMsg is one message of a run.
type faultMsg struct {
	key string
	fp  []byte
	sku string
	qty int64
}

// delivery is one copy of a message on its way through the broker.
type delivery struct {
	msg     int // index of the message
	copy    int // which copy (unique over the run)
	attempt int // 1 the first time this copy is delivered
}

// crash draws whether and where the handling of d crashes: the same seed
// gives the same draw for the same copy and attempt.
func (d delivery) crash(seed uint64) crashPoint {
	r := rand.New(rand.NewPCG(seed, uint64(d.copy)<<20|uint64(d.attempt)))
	if r.Float64() >= faultCrashRate {
		return noCrash
	}
	return crashPoint(1 + r.IntN(4))
}

// makeDeliveries returns n messages and their copies in delivery order.
func makeDeliveries(seed uint64, n int, build func(i int, r *rand.Rand) faultMsg) ([]faultMsg, []delivery) {
	r := rand.New(rand.NewPCG(seed, 0))
	msgs := make([]faultMsg, n)
	var ds []delivery
	for i := range msgs {
		msgs[i] = build(i, r)
		for range 1 + r.IntN(4) {
			ds = append(ds, delivery{msg: i, copy: len(ds), attempt: 1})
		}
	}
	for i := range ds { // a shuffle within a sliding window
		j := i + r.IntN(min(faultShuffleWindow, len(ds)-i))
		ds[i], ds[j] = ds[j], ds[i]
	}
	return msgs, ds
}

// broker is an in-memory queue with redelivery: a delivery stays outstanding
// until it is acknowledged; one that is not is delivered again.
type broker struct {
	ready       chan delivery
	outstanding atomic.Int64
	done        chan struct{}
	timers      sync.WaitGroup
}

func newBroker(ds []delivery) *broker {
	b := &broker{ready: make(chan delivery, len(ds)), done: make(chan struct{})}
	for _, d := range ds {
		b.ready <- d
	}
	b.outstanding.Store(int64(len(ds)))
	return b
}

// ack settles d for good.
func (b *broker) ack() {
	if b.outstanding.Add(-1) == 0 {
		close(b.done)
	}
}

// redeliver puts d back after delay (a nak with delay, or the broker noticing
// a crashed consumer). The channel has room for every outstanding delivery,
// so this never blocks.
func (b *broker) redeliver(d delivery, delay time.Duration) {
	d.attempt++
	b.timers.Add(1)
	time.AfterFunc(delay, func() {
		defer b.timers.Done()
		b.ready <- d
	})
}

// work runs handle on workers goroutines until every delivery is acknowledged
// or ctx ends, and reports whether all were acknowledged.
func (b *broker) work(ctx context.Context, workers int, handle func(d delivery)) bool {
	return b.workBatches(ctx, workers, 1, func(ds []delivery) { handle(ds[0]) })
}

// workBatches is work for a consumer that reads in batches: each worker
// waits for a delivery, takes whatever else is ready up to max deliveries,
// and hands them to handle together.
func (b *broker) workBatches(ctx context.Context, workers, max int, handle func(ds []delivery)) bool {
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for {
				select {
				case <-b.done:
					return
				case <-ctx.Done():
					return
				case d := <-b.ready:
					ds := []delivery{d}
				fill:
					for len(ds) < max {
						select {
						case d := <-b.ready:
							ds = append(ds, d)
						default:
							break fill
						}
					}
					handle(ds)
				}
			}
		})
	}
	wg.Wait()
	b.timers.Wait()
	select {
	case <-b.done:
		return true
	default:
		return false
	}
}

// faultStats are the figures of a run.
type faultStats struct {
	deliveries, applied, duplicates, inProgress, takeovers, uncertain, leaseLost, transient atomic.Int64
	commitsDespiteCancel                                                                    atomic.Int64
	crashes                                                                                 [5]atomic.Int64
	decisions                                                                               map[guard.Decision]*atomic.Int64
	firstErrs                                                                               sync.Map // error text → struct{}, a sample of transient errors
}

func newFaultStats() *faultStats {
	s := &faultStats{decisions: map[guard.Decision]*atomic.Int64{}}
	for _, d := range []guard.Decision{guard.DecisionApplied, guard.DecisionDuplicate, guard.DecisionInProgress,
		guard.DecisionTakeover, guard.DecisionUncertain, guard.DecisionConflict, guard.DecisionLeaseLost,
		guard.DecisionReleased, guard.DecisionFailed, guard.DecisionPartial, guard.DecisionPurged, guard.DecisionRetried} {
		s.decisions[d] = new(atomic.Int64)
	}
	return s
}

// Observe counts decisions (guard.Observer).
func (s *faultStats) Observe(_ context.Context, e guard.Event) {
	if c := s.decisions[e.Decision]; c != nil {
		c.Add(1)
	}
}

func (s *faultStats) transientErr(err error) {
	s.transient.Add(1)
	s.firstErrs.LoadOrStore(err.Error(), struct{}{})
}

func (s *faultStats) log(t *testing.T, name string, elapsed time.Duration) {
	t.Helper()
	var crashes []string
	var total int64
	for p := crashBeforeClaim; p <= crashBeforeAck; p++ {
		n := s.crashes[p].Load()
		total += n
		crashes = append(crashes, fmt.Sprintf("%s %d", crashNames[p], n))
	}
	t.Logf("%s: %d deliveries, %d crashes (%s), %d applied, %d duplicates, %d in-progress, %d takeovers, %d uncertain, %d lease lost, %d retries, %d transient errors, elapsed %s",
		name, s.deliveries.Load(), total, strings.Join(crashes, ", "), s.applied.Load(), s.duplicates.Load(),
		s.inProgress.Load(), s.takeovers.Load(), s.uncertain.Load(), s.leaseLost.Load(),
		s.decisions[guard.DecisionRetried].Load(), s.transient.Load(), elapsed.Round(time.Millisecond))
	var errs []string
	s.firstErrs.Range(func(k, _ any) bool {
		if len(errs) < 5 {
			errs = append(errs, k.(string))
		}
		return true
	})
	if len(errs) > 0 {
		t.Logf("%s: transient errors seen (sample): %s", name, strings.Join(errs, " | "))
	}
}

// retryDelay is how long to wait before redelivering after err.
func retryDelay(err error) time.Duration {
	var ip *guard.InProgressError
	if errors.As(err, &ip) {
		return min(max(ip.RetryAfter, time.Millisecond), faultRetryCap)
	}
	return faultRedeliver
}

func runTransactionalFaults(t *testing.T, h Harness, seed uint64, n int) {
	stats := newFaultStats()
	b := h.New(t, guard.WithObserver(stats))
	const consumer = "deduct_inventory"
	msgs, ds := makeDeliveries(seed, n, func(i int, r *rand.Rand) faultMsg {
		m := faultMsg{key: key("order", strconv.Itoa(i)), sku: fmt.Sprintf("sku-%02d", r.IntN(faultSKUs)), qty: 1 + r.Int64N(9)}
		var f guard.FingerprintBuilder
		f.String("sku", m.sku)
		f.Int("qty", m.qty)
		m.fp = f.Sum()
		return m
	})
	ctx, cancel := context.WithTimeout(t.Context(), faultBudget)
	defer cancel()
	br := newBroker(ds)
	start := time.Now()
	ok := br.work(ctx, faultWorkers, func(d delivery) {
		stats.deliveries.Add(1)
		m := msgs[d.msg]
		crash := d.crash(seed)
		if crash == crashBeforeClaim {
			stats.crashes[crash].Add(1)
			br.redeliver(d, faultRedeliver)
			return
		}
		dctx, dcancel := context.WithTimeout(ctx, 20*time.Second)
		defer dcancel()
		crashed := false
		e := Effect{Counter: m.sku, Delta: m.qty}
		switch crash {
		case crashBeforeEffect:
			e.Hook = func(context.Context) error { crashed = true; dcancel(); return context.Canceled }
		case crashBeforeCommit:
			e.Hook = func(context.Context) error { crashed = true; dcancel(); return nil }
		}
		out, err := b.Do(dctx, consumer, m.key, m.fp, e)
		switch {
		case crashed && err != nil:
			stats.crashes[crash].Add(1)
			br.redeliver(d, faultRedeliver)
			return
		case err == nil && out == guard.Applied:
			stats.applied.Add(1)
		case err == nil:
			stats.duplicates.Add(1)
		case errors.Is(err, guard.ErrInProgress):
			stats.inProgress.Add(1)
			br.redeliver(d, retryDelay(err))
			return
		case guard.Permanent(err):
			t.Errorf("delivery of %s: permanent error %v (dead-lettered)", m.key, err)
			br.ack()
			return
		default:
			stats.transientErr(err)
			br.redeliver(d, retryDelay(err))
			return
		}
		switch {
		case crashed && crash == crashBeforeEffect:
			t.Errorf("delivery of %s: Do returned %v with no error although apply failed", m.key, out)
		case crashed: // the store committed although its context was cancelled: no crash after all
			stats.commitsDespiteCancel.Add(1)
		}
		if crash == crashBeforeAck {
			stats.crashes[crash].Add(1)
			br.redeliver(d, faultRedeliver)
			return
		}
		br.ack()
	})
	elapsed := time.Since(start)
	stats.log(t, h.Name+" transactional", elapsed)
	if !ok {
		t.Fatalf("not every delivery was acknowledged within %s: %d outstanding", faultBudget, br.outstanding.Load())
	}
	want := map[string]int64{}
	for _, m := range msgs {
		want[m.sku] += m.qty
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
			t.Errorf("%s: counter %d, want %d (the sum over distinct messages): an effect was lost or doubled", s, got, want[s])
		}
	}
	// A store may answer an error for a commit it could not confirm (its
	// context was cancelled), so fewer applied answers than messages are
	// allowed; more would mean a message applied twice.
	if a := stats.applied.Load(); a > int64(len(msgs)) {
		t.Errorf("%d deliveries said applied, more than one per message (%d)", a, len(msgs))
	}
	if n := stats.commitsDespiteCancel.Load(); n > 0 {
		t.Logf("%d transactions committed although their context was cancelled before the commit", n)
	}
	for _, m := range msgs {
		r, err := b.Store.Inspect(vctx, consumer, m.key)
		if err != nil || r == nil || r.State != guard.StateDone {
			t.Errorf("Inspect(%s) = %+v, %v; want a done record", m.key, r, err)
			break
		}
	}
}

// sendLog is the external provider: it counts sends per key.
type sendLog struct {
	mu    sync.Mutex
	sends map[string]int
}

func (s *sendLog) send(k string) {
	s.mu.Lock()
	s.sends[k]++
	s.mu.Unlock()
}

// keySet is a concurrent set of keys.
type keySet struct{ m sync.Map }

func (s *keySet) add(k string)      { s.m.Store(k, struct{}{}) }
func (s *keySet) has(k string) bool { _, ok := s.m.Load(k); return ok }
func (s *keySet) hasAny(k string, o ...*keySet) bool {
	if s.has(k) {
		return true
	}
	for _, x := range o {
		if x.has(k) {
			return true
		}
	}
	return false
}

func runExternalFaults(t *testing.T, h Harness, seed uint64, n int, mode guard.Delivery) {
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
	var (
		abandoned      keySet // a lease was abandoned (crash after claim or after the send, or a failed Complete)
		sentAbandoned  keySet // abandoned after the send
		leaseLost      keySet // Complete answered ErrLeaseLost
		slow           keySet // the lease ran out before Complete returned
		sawUncertain   keySet // a claim answered ErrUncertain
		abandonedCount atomic.Int64
	)
	ctx, cancel := context.WithTimeout(t.Context(), faultBudget)
	defer cancel()
	br := newBroker(ds)
	start := time.Now()
	ok := br.work(ctx, faultWorkers, func(d delivery) {
		stats.deliveries.Add(1)
		m := msgs[d.msg]
		crash := d.crash(seed)
		if crash == crashBeforeClaim {
			stats.crashes[crash].Add(1)
			br.redeliver(d, faultRedeliver)
			return
		}
		dctx, dcancel := context.WithTimeout(ctx, 20*time.Second)
		defer dcancel()
		claimed := time.Now()
		l, err := b.Store.Claim(dctx, consumer, m.key, m.fp)
		switch {
		case err == nil && l.Outcome() == guard.Duplicate:
			stats.duplicates.Add(1)
			if crash == crashBeforeAck {
				stats.crashes[crash].Add(1)
				br.redeliver(d, faultRedeliver)
				return
			}
			br.ack()
			return
		case err == nil:
		case errors.Is(err, guard.ErrInProgress):
			stats.inProgress.Add(1)
			br.redeliver(d, retryDelay(err))
			return
		case errors.Is(err, guard.ErrUncertain):
			stats.uncertain.Add(1)
			sawUncertain.add(m.key)
			br.ack() // dead-letter and alert
			return
		case guard.Permanent(err):
			t.Errorf("Claim(%s): permanent error %v (dead-lettered)", m.key, err)
			br.ack()
			return
		default:
			stats.transientErr(err)
			br.redeliver(d, retryDelay(err))
			return
		}
		if l.TakenOver() {
			stats.takeovers.Add(1)
		}
		abandon := func() {
			abandoned.add(m.key)
			abandonedCount.Add(1)
			// The lease runs out now. (Ours is live, so nobody else holds
			// it; after a Complete whose answer was lost there is no lease
			// left to end.) A deadlock or a busy database is tried again.
			for try := 0; ; try++ {
				err := b.Tamper.ExpireLease(context.WithoutCancel(dctx), consumer, m.key)
				if err == nil || errors.Is(err, ErrNoRecord) {
					break
				}
				if try == 20 {
					t.Errorf("abandoning the lease of %s: %v", m.key, err)
					break
				}
				stats.transientErr(err)
			}
		}
		if crash == crashBeforeEffect {
			stats.crashes[crash].Add(1)
			abandon()
			br.redeliver(d, faultRedeliver)
			return
		}
		provider.send(m.key)
		if crash == crashBeforeCommit {
			stats.crashes[crash].Add(1)
			sentAbandoned.add(m.key)
			abandon()
			br.redeliver(d, faultRedeliver)
			return
		}
		err = l.Complete(dctx, nil)
		if time.Since(claimed) >= faultLease {
			slow.add(m.key)
		}
		switch {
		case err == nil:
			stats.applied.Add(1)
		case errors.Is(err, guard.ErrLeaseLost):
			stats.leaseLost.Add(1)
			leaseLost.add(m.key)
			br.ack() // log it: the effect may be doubled
			return
		default: // the send happened but is not recorded: like a crash after the send
			stats.transientErr(err)
			sentAbandoned.add(m.key)
			abandon()
			br.redeliver(d, retryDelay(err))
			return
		}
		if crash == crashBeforeAck {
			stats.crashes[crash].Add(1)
			br.redeliver(d, faultRedeliver)
			return
		}
		br.ack()
	})
	elapsed := time.Since(start)
	name := h.Name + " external " + mode.String()
	stats.log(t, name, elapsed)
	if !ok {
		t.Fatalf("not every delivery was acknowledged within %s: %d outstanding", faultBudget, br.outstanding.Load())
	}
	checkExternal(t, b, name, mode, msgs, provider, &externalRun{abandoned: &abandoned, sentAbandoned: &sentAbandoned,
		leaseLost: &leaseLost, slow: &slow, sawUncertain: &sawUncertain, abandonedCount: &abandonedCount, stats: stats})
}

// externalRun is what a run of external effects noted about its keys.
type externalRun struct {
	abandoned      *keySet // a lease was abandoned (crash after claim or after the send, or a failed Complete)
	sentAbandoned  *keySet // abandoned after the send
	leaseLost      *keySet // Complete answered ErrLeaseLost
	slow           *keySet // the lease ran out before Complete returned
	sawUncertain   *keySet // a claim answered ErrUncertain
	abandonedCount *atomic.Int64
	stats          *faultStats
}

// checkExternal checks the end of a run of external effects: under
// at-least-once every key sent and done, sent more than once only after a
// crash after the send or a lost lease; under at-most-once no key sent
// twice and exactly the abandoned keys uncertain.
func checkExternal(t *testing.T, b Backend, name string, mode guard.Delivery, msgs []faultMsg, provider *sendLog, run *externalRun) {
	t.Helper()
	const consumer = "send_sms"
	abandoned, sentAbandoned, leaseLost, slow, sawUncertain, abandonedCount, stats :=
		run.abandoned, run.sentAbandoned, run.leaseLost, run.slow, run.sawUncertain, run.abandonedCount, run.stats
	vctx, vcancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer vcancel()
	var doubled, ended, unsent int
	for _, m := range msgs {
		sends := provider.sends[m.key]
		r, err := b.Store.Inspect(vctx, consumer, m.key)
		if err != nil || r == nil {
			t.Fatalf("Inspect(%s) = %v, %v; want a record", m.key, r, err)
		}
		if sends > 1 {
			doubled++
		}
		if sends == 0 {
			unsent++
		}
		if r.State == guard.StateUncertain {
			ended++
		}
		switch mode {
		case guard.AtLeastOnce:
			switch {
			case sends == 0:
				t.Errorf("%s: never sent (at-least-once)", m.key)
			case r.State != guard.StateDone:
				t.Errorf("%s: ended %s, want done (at-least-once)", m.key, r.State)
			case sends > 1 && !sentAbandoned.hasAny(m.key, leaseLost):
				t.Errorf("%s: sent %d times with no crash after a send and no lost lease", m.key, sends)
			}
		case guard.AtMostOnce:
			switch {
			case sends > 1:
				t.Errorf("%s: sent %d times (at-most-once)", m.key, sends)
			case (r.State == guard.StateUncertain) != abandoned.has(m.key):
				t.Errorf("%s: ended %s, abandoned %t: the keys that end uncertain must be exactly those whose lease was abandoned", m.key, r.State, abandoned.has(m.key))
			case !abandoned.has(m.key) && (sends != 1 || r.State != guard.StateDone):
				t.Errorf("%s: no abandoned lease, yet sent %d times and ended %s; want once and done", m.key, sends, r.State)
			case sawUncertain.has(m.key) && !abandoned.hasAny(m.key, slow):
				t.Errorf("%s: a claim answered ErrUncertain, yet no lease of it was abandoned or ran out", m.key)
			}
		}
	}
	if mode == guard.AtLeastOnce && stats.takeovers.Load() < abandonedCount.Load() {
		t.Errorf("%d takeovers for %d abandoned leases: every abandoned lease must be taken over", stats.takeovers.Load(), abandonedCount.Load())
	}
	t.Logf("%s: %d keys, %d abandoned leases, %d keys sent more than once, %d never sent, %d ended uncertain (dead-lettered: %d claims)",
		name, len(msgs), abandonedCount.Load(), doubled, unsent, ended, stats.uncertain.Load())
}

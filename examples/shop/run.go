package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/idemkit/idem/examples/shop/naive"
	"github.com/idemkit/idem/examples/shop/orders"
	"github.com/idemkit/idem/examples/shop/shopdb"
	"github.com/idemkit/idem/examples/shop/smsprovider"
	"github.com/idemkit/idem/guard"
	"github.com/idemkit/idem/guard/jetstreamguard"
)

// config is a run of the example, as the flags set it.
type config struct {
	messages  int     // orders
	dupRate   float64 // share of events the producer publishes 2–3 times
	crashRate float64 // share of deliveries whose worker dies
	workers   int     // workers per consumer and path
	timeout   time.Duration
	postgres  string
	mysql     string
	redis     string
	nats      string
	seed      uint64
	ackWait   time.Duration // the consumers' AckWait: how soon a dropped message comes back
	progress  time.Duration // between progress lines; 0 prints none
	logger    *slog.Logger  // the adapter's log (jetstreamguard), and the guard's surprises
}

// The two sets of consumers that get the same traffic.
const (
	pathNaive   = "naive"
	pathGuarded = "guarded"
)

// errWorkerDied is the cause of a handler's context cancelled mid-effect.
var errWorkerDied = errors.New("worker died mid-effect (simulated)")

// counters are the figures of one path, for the progress lines and the
// summary.
type counters struct {
	delivered   atomic.Int64 // deliveries handled (or dropped by a crash)
	redelivered atomic.Int64 // deliveries of a message delivered before
	crashed     atomic.Int64 // deliveries whose worker died
	midEffect   atomic.Int64 // of which mid-effect, in a guarded handler's apply
	applied     atomic.Int64 // guarded: effects performed
	duplicates  atomic.Int64 // guarded: duplicates acked without their effect
	inProgress  atomic.Int64 // guarded: deliveries naked because a lease was live
	transient   atomic.Int64 // deliveries naked after an error
	permanent   atomic.Int64 // guarded: deliveries terminated (a bug here)
}

// path is one set of consumers, on a stream of its own.
type path struct {
	name      string
	stream    string
	prefix    string // of the stream's subjects
	consumers []*consumerRun
	n         counters
}

func (p *path) subject(topic string) string { return p.prefix + "." + topic }

// consumerRun is a JetStream consumer and what its workers do with a
// delivery, given the fate drawn for it.
type consumerRun struct {
	name   string
	cons   jetstream.Consumer
	handle func(ctx context.Context, msg jetstream.Msg, c crash)
}

// result is what a run found.
type result struct {
	cfg              *config
	traffic          *traffic
	backend, broker  string
	naive, guarded   snapshot
	naiveN, guardedN *counters
	elapsed          time.Duration
}

// midEffectKey marks the context of a delivery whose worker must die
// mid-effect; its value is the context's cancel function.
type midEffectKey struct{}

// run runs the example: the traffic through the naive and the guarded
// consumers until both are drained (or cfg.timeout), printing progress to
// out. The result is returned even with a timeout error, to show how far
// it got.
func run(ctx context.Context, cfg *config, out io.Writer) (*result, error) {
	start := time.Now()
	ctx, cancel := context.WithTimeout(ctx, cfg.timeout)
	defer cancel()
	if cfg.logger == nil {
		cfg.logger = slog.New(slog.DiscardHandler)
	}
	runID := newRunID()
	tr := newTraffic(cfg.messages, cfg.dupRate, cfg.seed)

	be, err := openBackend(ctx, cfg, runID)
	if err != nil {
		return nil, err
	}
	defer be.close()
	br, err := openBroker(ctx, cfg.nats)
	if err != nil {
		return nil, err
	}
	defer br.close()
	sms := smsprovider.Start()
	defer sms.Close()
	if err := be.seed(ctx, tr); err != nil {
		return nil, err
	}

	res := &result{cfg: cfg, traffic: tr, broker: br.desc, backend: be.desc}
	if be.redis != nil {
		res.backend += ", " + be.redisDesc
	}
	fmt.Fprintf(out, "shop: %d orders → %d events → %d publications (%d producer resends, no dedup header)\n",
		len(tr.orders), tr.events, len(tr.pubs), tr.resends)
	fmt.Fprintf(out, "      crash rate %.2f, %d workers per consumer, AckWait %s, seed %d\n", cfg.crashRate, cfg.workers, cfg.ackWait, cfg.seed)
	fmt.Fprintf(out, "      %s\n      %s\n", br.desc, res.backend)

	np := &path{name: pathNaive, stream: "SHOP_" + strings.ToUpper(runID) + "_NAIVE", prefix: "shop." + runID + ".naive"}
	gp := &path{name: pathGuarded, stream: "SHOP_" + strings.ToUpper(runID) + "_GUARDED", prefix: "shop." + runID + ".guarded"}
	res.naiveN, res.guardedN = &np.n, &gp.n
	if err := wire(ctx, cfg, be, br, sms, np, gp); err != nil {
		return nil, err
	}

	// Workers: cfg.workers per consumer and path, each pulling one message
	// at a time.
	wctx, stopWorkers := context.WithCancel(ctx)
	var workers sync.WaitGroup
	crashDraw := crashes{seed: cfg.seed, rate: cfg.crashRate}
	for _, p := range []*path{np, gp} {
		for _, c := range p.consumers {
			for range cfg.workers {
				workers.Add(1)
				go func() {
					defer workers.Done()
					work(wctx, p, c, crashDraw, cfg.logger)
				}()
			}
		}
	}
	defer func() {
		stopWorkers()
		workers.Wait()
	}()

	// The producer: every publication to both streams, in the same order,
	// so both see the same stream sequences.
	var published atomic.Int64
	pubErr := make(chan error, 1)
	go func() {
		for _, pub := range tr.pubs {
			for _, p := range []*path{np, gp} {
				if _, err := br.js.Publish(ctx, p.subject(pub.topic), pub.data); err != nil {
					pubErr <- fmt.Errorf("publish: %w", err)
					return
				}
			}
			published.Add(1)
		}
		pubErr <- nil
	}()

	poll := time.NewTicker(100 * time.Millisecond)
	defer poll.Stop()
	lastProgress := time.Now()
	producing := true
	var runErr error
	for runErr == nil {
		select {
		case err := <-pubErr:
			producing = false
			runErr = err
			continue
		case <-ctx.Done():
			runErr = ctx.Err()
			continue
		case <-poll.C:
		}
		pending := -1
		if !producing {
			if pending, err = drain(ctx, np, gp); err != nil {
				if ctx.Err() == nil {
					runErr = err
				}
				continue
			}
			if pending == 0 {
				break
			}
		}
		if cfg.progress > 0 && time.Since(lastProgress) >= cfg.progress {
			lastProgress = time.Now()
			progress(out, time.Since(start), published.Load(), len(tr.pubs), pending, np, gp)
		}
	}
	if errors.Is(runErr, context.DeadlineExceeded) {
		pending, _ := drain(context.Background(), np, gp)
		runErr = fmt.Errorf("timed out after %s with %d messages not yet acknowledged (-timeout)", cfg.timeout, pending)
	}
	stopWorkers()
	workers.Wait()
	res.elapsed = time.Since(start)
	if cfg.progress > 0 {
		progress(out, res.elapsed, published.Load(), len(tr.pubs), 0, np, gp)
	}

	// What each path did to its tables, its provider account, its Redis keys.
	rctx, rcancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer rcancel()
	for _, s := range []struct {
		snap   *snapshot
		tables shopdb.Tables
		prefix string
		name   string
	}{{&res.naive, be.naive, be.redisNaive, pathNaive}, {&res.guarded, be.guarded, be.redisGuarded, pathGuarded}} {
		if s.snap.db, err = shopdb.Read(rctx, be.db, s.tables); err != nil {
			return nil, err
		}
		s.snap.sms = sms.Counts(s.name)
		if be.redis != nil {
			if s.snap.redisPoints, err = be.redisPoints(rctx, s.prefix, tr.users); err != nil {
				return nil, err
			}
		}
	}
	if be.redis == nil {
		tr.expected.redisPoints = nil
	}
	return res, runErr
}

// wire creates the streams and the consumers of both paths, and what their
// workers run: the naive jetstream.MessageHandlers, and the generated
// guarded handlers through jetstreamguard.
func wire(ctx context.Context, cfg *config, be *backend, br *broker, sms *smsprovider.Provider, np, gp *path) error {
	nc := naive.New(naive.Config{
		DB: be.db, Dialect: be.dialect, Tables: be.naive,
		Redis: be.redis, RedisPrefix: be.redisNaive,
		SMSURL: sms.URL(pathNaive),
	})
	shop, err := orders.New(orders.Config{
		Dialect: be.dialect, Tables: be.guarded,
		RedisPrefix: be.redisGuarded,
		SMSURL:      sms.URL(pathGuarded),
		HTTPClient:  &http.Client{Timeout: 3 * time.Second}, // shorter than the spec's 5s lease
		AfterEffect: func(ctx context.Context) error {
			die, ok := ctx.Value(midEffectKey{}).(context.CancelCauseFunc)
			if !ok {
				return nil
			}
			gp.n.midEffect.Add(1)
			die(errWorkerDied)
			return context.Cause(ctx)
		},
	})
	if err != nil {
		return err
	}
	// The handlers get the run's dedup table (or Redis key prefix), which
	// wins over the spec's idem_keys.
	table := guard.WithTable(be.dedupTable)
	type def struct {
		name    string
		topic   string
		naive   jetstream.MessageHandler
		guarded guard.Handler
	}
	defs := []def{
		{orders.DeductInventoryConsumer, orders.DeductInventoryTopic, nc.DeductInventory, shop.DeductInventory(be.store, table)},
		{orders.AddPointsConsumer, orders.AddPointsTopic, nc.AddPoints, shop.AddPoints(be.store, table)},
		{orders.SendSmsConsumer, orders.SendSmsTopic, nc.SendSms, shop.SendSms(be.store, table)},
		{orders.UpdateStatsConsumer, orders.UpdateStatsTopic, nc.UpdateStats, shop.UpdateStats(be.store, table)},
	}
	if be.redis != nil {
		defs = append(defs, def{orders.AddPointsRedisConsumer, orders.AddPointsRedisTopic, nc.AddPointsRedis, shop.AddPointsRedis(be.redisStore, guard.WithTable(be.redisTable))})
	}
	adapter := []jetstreamguard.Option{
		jetstreamguard.WithAckWait(cfg.ackWait), // heartbeat every AckWait/2 while a handler runs
		jetstreamguard.WithNakDelay(100 * time.Millisecond),
		jetstreamguard.WithLogger(cfg.logger),
	}
	for _, p := range []*path{np, gp} {
		if err := br.createStream(ctx, p.stream, p.prefix+".>"); err != nil {
			return err
		}
		for _, d := range defs {
			cons, err := br.js.CreateOrUpdateConsumer(ctx, p.stream, jetstream.ConsumerConfig{
				Durable:       d.name,
				FilterSubject: p.subject(d.topic),
				AckPolicy:     jetstream.AckExplicitPolicy,
				AckWait:       cfg.ackWait,
				MaxDeliver:    -1,
			})
			if err != nil {
				return fmt.Errorf("create consumer %s/%s: %w", p.stream, d.name, err)
			}
			c := &consumerRun{name: d.name, cons: cons}
			if p.name == pathNaive {
				c.handle = naiveDelivery(d.naive)
			} else {
				c.handle = guardedDelivery(counted(p, d.name, d.guarded, cfg.logger), adapter)
			}
			p.consumers = append(p.consumers, c)
		}
	}
	return nil
}

// naiveDelivery runs a naive handler; when the worker dies, its ack is
// lost (the effect, without a transaction, has happened).
func naiveDelivery(h jetstream.MessageHandler) func(context.Context, jetstream.Msg, crash) {
	return func(_ context.Context, msg jetstream.Msg, c crash) {
		if c != noCrash {
			msg = deadWorker{msg}
		}
		h(msg)
	}
}

// guardedDelivery runs a guarded handler through jetstreamguard. When the
// worker dies before the ack, nothing it sends reaches the server; when it
// dies mid-effect, its handler's context is also cancelled from inside
// apply (orders.Config.AfterEffect), so the transaction rolls back or the
// claim is released, as when a process dies: nothing leaks.
func guardedDelivery(h guard.Handler, opts []jetstreamguard.Option) func(context.Context, jetstream.Msg, crash) {
	return func(ctx context.Context, msg jetstream.Msg, c crash) {
		if c != noCrash {
			msg = deadWorker{msg}
		}
		if c == crashMidEffect {
			hctx, die := context.WithCancelCause(ctx)
			defer die(nil)
			ctx = context.WithValue(hctx, midEffectKey{}, die)
		}
		jetstreamguard.Handle(ctx, msg, h, opts...)
	}
}

// counted counts the answers of a guarded handler.
func counted(p *path, consumer string, h guard.Handler, logger *slog.Logger) guard.Handler {
	return guard.HandlerFunc(func(ctx context.Context, body []byte) (guard.Outcome, error) {
		out, err := h.Handle(ctx, body)
		switch {
		case err == nil && out == guard.Duplicate:
			p.n.duplicates.Add(1)
		case err == nil:
			p.n.applied.Add(1)
		case errors.Is(err, guard.ErrInProgress):
			p.n.inProgress.Add(1)
		case errors.Is(err, errWorkerDied) || errors.Is(context.Cause(ctx), errWorkerDied):
			// counted as a crash
		case guard.Permanent(err):
			p.n.permanent.Add(1)
			logger.Error("guarded handler: permanent error", "consumer", consumer, "error", err)
		default:
			p.n.transient.Add(1)
			logger.Warn("guarded handler: transient error", "consumer", consumer, "error", err)
		}
		return out, err
	})
}

// work is one worker: it pulls messages of c one at a time and hands each
// to c.handle with the fate drawn for the delivery, until ctx is done.
func work(ctx context.Context, p *path, c *consumerRun, draw crashes, logger *slog.Logger) {
	it, err := c.cons.Messages(jetstream.PullMaxMessages(1))
	if err != nil {
		logger.Error("messages", "consumer", c.name, "error", err)
		return
	}
	stop := context.AfterFunc(ctx, it.Stop)
	defer stop()
	defer it.Stop()
	for {
		msg, err := it.Next()
		if err != nil {
			if ctx.Err() != nil || errors.Is(err, jetstream.ErrMsgIteratorClosed) {
				return
			}
			logger.Debug("next", "consumer", c.name, "error", err)
			continue
		}
		if ctx.Err() != nil {
			return // not handled: redelivered after AckWait, to nobody
		}
		p.n.delivered.Add(1)
		fate := noCrash
		if md, err := msg.Metadata(); err == nil {
			if md.NumDelivered > 1 {
				p.n.redelivered.Add(1)
			}
			fate = draw.draw(c.name, md.Sequence.Stream, md.NumDelivered)
		}
		if fate != noCrash {
			p.n.crashed.Add(1)
		}
		c.handle(ctx, msg, fate)
	}
}

// drain returns how many messages the consumers of the paths still hold:
// not yet delivered, or delivered and not yet acknowledged (a crashed
// worker's message waits its AckWait).
func drain(ctx context.Context, paths ...*path) (int, error) {
	total := 0
	for _, p := range paths {
		for _, c := range p.consumers {
			info, err := c.cons.Info(ctx)
			if err != nil {
				return 0, fmt.Errorf("consumer info %s/%s: %w", p.name, c.name, err)
			}
			total += int(info.NumPending) + info.NumAckPending
		}
	}
	return total, nil
}

// progress prints one progress line.
func progress(out io.Writer, elapsed time.Duration, published int64, total, pending int, np, gp *path) {
	left := ""
	if pending >= 0 {
		left = fmt.Sprintf(" | %d to go", pending)
	}
	fmt.Fprintf(out, "%6.1fs  published %d/%d | naive: %d delivered, %d redelivered | guarded: %d delivered, %d redelivered, %d duplicates skipped%s\n",
		elapsed.Seconds(), published, total,
		np.n.delivered.Load(), np.n.redelivered.Load(),
		gp.n.delivered.Load(), gp.n.redelivered.Load(), gp.n.duplicates.Load(), left)
}

// deadWorker is a message whose worker died: nothing it would send — ack,
// nak, term, in-progress heartbeat — reaches the server, which redelivers
// the message after AckWait.
type deadWorker struct{ jetstream.Msg }

func (deadWorker) Ack() error                       { return nil }
func (deadWorker) DoubleAck(context.Context) error  { return nil }
func (deadWorker) Nak() error                       { return nil }
func (deadWorker) NakWithDelay(time.Duration) error { return nil }
func (deadWorker) InProgress() error                { return nil }
func (deadWorker) Term() error                      { return nil }
func (deadWorker) TermWithReason(string) error      { return nil }

// newRunID returns a fresh name part for the streams, tables and keys of a
// run, so that runs sharing a server never meet.
func newRunID() string {
	b := make([]byte, 3)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// Command shop is idem's main example: the four consumers of an online shop
// — deduct_inventory, add_points, send_sms, update_stats — fed the same
// traffic twice, once as naive consumers (./naive: effect, then ack) and
// once as the guarded handlers idemgen generated from idem.yaml (./orders),
// on NATS JetStream, while the producer resends events and workers die
// between the effect and the ack. It prints the final state each set of
// consumers reached next to the expected one, and exits 1 when the guarded
// consumers missed it.
//
//	go run ./examples/shop
//
// needs no server: it runs an embedded nats-server (JetStream, temporary
// store) and an embedded SQLite file. -postgres, -mysql, -redis and -nats
// use real servers instead; the generated code is the same, the store
// decides. Everything a run creates there (streams, tables, keys) has a name
// of its own and is removed at the end.
//
// Usage:
//
//	go run ./examples/shop [flags]
//
// Flags:
//
//	-messages n    orders (default 300); each is four events: orders.paid,
//	               sms.requested and two stats.recorded (gmv, units)
//	-dup-rate p    share of events the producer publishes 2 or 3 times,
//	               without a Nats-Msg-Id header (default 0.2)
//	-crash-rate p  share of deliveries whose worker dies between the effect
//	               and the ack; JetStream redelivers after AckWait, 1s
//	               (default 0.05)
//	-workers n     concurrent workers per consumer (default 4)
//	-seed n        seeds the traffic and the crashes (default 1)
//	-timeout d     give up after d (default 2m)
//	-postgres dsn  PostgreSQL instead of SQLite (postgres://…)
//	-mysql dsn     MySQL or MariaDB instead of SQLite (user:pass@tcp(host:port)/db)
//	-redis addr    Redis (host:port, several for a cluster, or redis://…):
//	               adds the add_points_redis consumer
//	-nats url      a NATS server with JetStream instead of the embedded one
//	-v             log the adapter's and the guard's decisions to stderr
//
// Exit status: 0 when the guarded consumers reached the expected state, 1
// when they did not or the run failed (a server that cannot be reached,
// the timeout), 2 for bad flags.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"time"

	redis "github.com/redis/go-redis/v9"
)

func main() {
	// go-redis logs failed dials itself; the error returned says it better.
	redis.SetLogger(quietRedis{})
	os.Exit(mainCode(os.Args[1:], os.Stdout, os.Stderr))
}

// mainCode runs the example with args and returns its exit status.
func mainCode(args []string, stdout, stderr io.Writer) int {
	cfg, err := parseFlags(args, stderr)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	res, err := run(ctx, cfg, stdout)
	if res != nil {
		res.report(stdout)
		fmt.Fprintf(stdout, "\ndone in %.1fs\n", res.elapsed.Seconds())
	}
	if err != nil {
		fmt.Fprintf(stderr, "shop: %v\n", err)
		return 1
	}
	if !res.exact() {
		fmt.Fprintln(stderr, "shop: the guarded consumers did not reach the expected state")
		return 1
	}
	return 0
}

// parseFlags parses the command line into a config.
func parseFlags(args []string, stderr io.Writer) (*config, error) {
	cfg := &config{ackWait: time.Second, progress: time.Second}
	fs := flag.NewFlagSet("shop", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.IntVar(&cfg.messages, "messages", 300, "orders; each is four events: orders.paid, sms.requested and two stats.recorded")
	fs.Float64Var(&cfg.dupRate, "dup-rate", 0.2, "share of events the producer publishes 2 or 3 times, without a dedup header")
	fs.Float64Var(&cfg.crashRate, "crash-rate", 0.05, "share of deliveries whose worker dies between the effect and the ack")
	fs.IntVar(&cfg.workers, "workers", 4, "concurrent workers per consumer")
	fs.Uint64Var(&cfg.seed, "seed", 1, "seed of the traffic and the crashes")
	fs.DurationVar(&cfg.timeout, "timeout", 2*time.Minute, "give up after this long")
	fs.StringVar(&cfg.postgres, "postgres", "", "PostgreSQL `dsn` (postgres://…) instead of the embedded SQLite")
	fs.StringVar(&cfg.mysql, "mysql", "", "MySQL or MariaDB `dsn` (user:pass@tcp(host:port)/db) instead of the embedded SQLite")
	fs.StringVar(&cfg.redis, "redis", "", "Redis `addr` (host:port, comma-separated for a cluster, or redis://…); adds add_points_redis")
	fs.StringVar(&cfg.nats, "nats", "", "NATS `url` with JetStream instead of the embedded server")
	verbose := fs.Bool("v", false, "log the adapter's and the guard's decisions to stderr")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: go run ./examples/shop [flags]\n\nRuns the shop's consumers naive and guarded on the same faulty traffic and compares their final state.\n\nFlags:")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	var bad error
	switch {
	case fs.NArg() > 0:
		bad = fmt.Errorf("unexpected argument %q", fs.Arg(0))
	case cfg.messages < 1:
		bad = errors.New("-messages must be at least 1")
	case cfg.dupRate < 0 || cfg.dupRate > 1:
		bad = errors.New("-dup-rate must be between 0 and 1")
	case cfg.crashRate < 0 || cfg.crashRate >= 1:
		bad = errors.New("-crash-rate must be at least 0 and below 1")
	case cfg.workers < 1:
		bad = errors.New("-workers must be at least 1")
	case cfg.timeout <= 0:
		bad = errors.New("-timeout must be positive")
	case cfg.postgres != "" && cfg.mysql != "":
		bad = errors.New("-postgres and -mysql: choose one")
	}
	if bad != nil {
		fmt.Fprintf(stderr, "shop: %v\n", bad)
		fs.Usage()
		return nil, bad
	}
	level := slog.LevelError
	if *verbose {
		level = slog.LevelDebug
	}
	cfg.logger = slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))
	return cfg, nil
}

// quietRedis drops go-redis's own log lines.
type quietRedis struct{}

// Printf drops a log line.
func (quietRedis) Printf(context.Context, string, ...any) {}

package guard

import (
	"fmt"
	"regexp"
	"time"
)

// Delivery chooses what happens to an external effect whose lease expired
// before it completed.
type Delivery int

const (
	// AtLeastOnce: an expired lease is taken over by the next claim, which runs
	// the effect again. Pair it with a provider idempotency key (Lease.Key).
	AtLeastOnce Delivery = iota
	// AtMostOnce: an expired lease turns the key uncertain (ErrUncertain); the
	// effect is never run a second time without an operator.
	AtMostOnce
)

// String returns "at-least-once" or "at-most-once".
func (d Delivery) String() string {
	if d == AtMostOnce {
		return "at-most-once"
	}
	return "at-least-once"
}

// OnError chooses what an error from an external apply does to its key.
type OnError int

const (
	// Release deletes the claim, so a redelivery runs the effect again. Under
	// AtMostOnce only errors wrapped with NotPerformed are released; any other
	// error marks the key uncertain, since the call may have reached the provider.
	Release OnError = iota
	// Keep marks the key failed: every redelivery gets ErrFailed.
	Keep
)

// String returns "release" or "keep".
func (o OnError) String() string {
	if o == Keep {
		return "keep"
	}
	return "release"
}

// Defaults of the options.
const (
	DefaultRetention  = 168 * time.Hour
	DefaultLease      = 30 * time.Second
	DefaultTable      = "idem_keys"
	DefaultMaxRetries = 10
	// DefaultPurgeBatch is how many rows Purge deletes per statement.
	DefaultPurgeBatch = 1000
	// DefaultMaxLeaseHold is how long a lease may be held, from its claim
	// through every Lease.Extend, unless WithMaxLeaseHold says otherwise
	// (or the lease itself is longer).
	DefaultMaxLeaseHold = time.Hour
)

// The shortest durations a store accepts. A shorter retention or lease
// would be cut to nothing by a store's clock resolution, and every
// duplicate would run its effect again; NewConfig refuses them.
const (
	// MinRetention is the shortest retention (WithRetention).
	MinRetention = time.Minute
	// MinLease is the shortest lease (WithLease), lease extension
	// (Lease.Extend) and maximum lease hold (WithMaxLeaseHold).
	MinLease = time.Second
)

// MaxKeyIdentityLen is the longest key identity (WithKeyIdentity), in bytes.
const MaxKeyIdentityLen = 1024

// Config is the resolved set of options of a store or handler. Stores build
// it with NewConfig; applications pass Options.
type Config struct {
	Retention  time.Duration // how long outcomes are kept (WithRetention)
	Lease      time.Duration // how long a claim blocks duplicates (WithLease)
	Delivery   Delivery      // WithDelivery
	OnError    OnError       // WithOnError
	Observer   Observer      // never nil after NewConfig (WithObserver)
	Table      string        // dedup table or Redis key prefix (WithTable)
	MaxRetries int           // transaction retries on serialization failures (WithMaxRetries)
	PurgeBatch int           // rows per Purge statement (WithPurgeBatch)
	// KeyIdentity describes what a consumer's keys mean (WithKeyIdentity);
	// empty means unchecked.
	KeyIdentity string
	// MaxLeaseHold bounds how long a lease may be held from its claim,
	// extensions included (WithMaxLeaseHold); 0 means DefaultMaxLeaseHold,
	// or the lease when that is longer (see LeaseHoldLimit).
	MaxLeaseHold time.Duration
	// DailyPartitions says the table is partitioned by day of expiry
	// (WithDailyPartitions; PostgreSQL only).
	DailyPartitions bool
}

// LeaseHoldLimit is how long a lease of c may be held from its claim,
// extensions included: MaxLeaseHold when set, else DefaultMaxLeaseHold or
// the lease, whichever is longer.
func (c Config) LeaseHoldLimit() time.Duration {
	if c.MaxLeaseHold > 0 {
		return c.MaxLeaseHold
	}
	return max(DefaultMaxLeaseHold, c.Lease)
}

// Option changes a Config.
type Option func(*Config)

// WithRetention sets how long a dedup record is kept; a redelivery after that
// runs the effect again. Default 168h; at least MinRetention. Stores keep it
// rounded up to their clock's resolution (a microsecond in SQL, a
// millisecond in Redis), never down.
func WithRetention(d time.Duration) Option { return func(c *Config) { c.Retention = d } }

// WithLease sets how long an external claim blocks duplicates before it may be
// taken over (or turned uncertain). Default 30s; at least MinLease, rounded
// up like the retention.
func WithLease(d time.Duration) Option { return func(c *Config) { c.Lease = d } }

// WithMaxLeaseHold bounds how long one owner may hold a lease, from its
// claim through every Lease.Extend: an extension that would end the lease
// later than d after the claim fails with ErrLeaseHoldExceeded, so a stuck
// handler that keeps extending cannot keep its key from the others for
// ever. Default DefaultMaxLeaseHold (or the lease, when longer); at least
// the lease and MinLease.
func WithMaxLeaseHold(d time.Duration) Option { return func(c *Config) { c.MaxLeaseHold = d } }

// WithDelivery chooses at-least-once (default) or at-most-once for external effects.
func WithDelivery(d Delivery) Option { return func(c *Config) { c.Delivery = d } }

// WithOnError chooses release (default) or keep for errors of external effects.
func WithOnError(o OnError) Option { return func(c *Config) { c.OnError = o } }

// WithObserver reports every decision to o (see NewSlogObserver).
func WithObserver(o Observer) Option { return func(c *Config) { c.Observer = o } }

// WithTable sets the dedup table (SQL) or key prefix (Redis). Default idem_keys.
func WithTable(name string) Option { return func(c *Config) { c.Table = name } }

// WithMaxRetries sets how often a transaction is retried after a serialization
// failure, deadlock or busy database. Default 10.
func WithMaxRetries(n int) Option { return func(c *Config) { c.MaxRetries = n } }

// WithPurgeBatch sets how many rows Purge deletes per statement. Default 1000.
func WithPurgeBatch(n int) Option { return func(c *Config) { c.PurgeBatch = n } }

// WithKeyIdentity declares the key identity of a consumer: a string that
// changes whenever the meaning of its keys changes (key fields, their order
// and types, the key encoding, the fingerprint fields). idemgen writes it
// into every generated handler. A store refuses to claim for a consumer whose
// recorded identity differs (ErrKeyIdentityChanged), since every message
// handled under the old keys would then look fresh and run its effect again.
// The first claim of the consumer through a store (Do, Claim, Run) records
// the identity when none is, and the store remembers a match for its life;
// see the package documentation on key identities. Empty: not checked. At
// most MaxKeyIdentityLen bytes.
func WithKeyIdentity(identity string) Option {
	return func(c *Config) { c.KeyIdentity = identity }
}

var tableName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]{0,62}(\.[A-Za-z_][A-Za-z0-9_]{0,62})?$`)

// NewConfig applies opts to the defaults and validates the result.
func NewConfig(opts ...Option) (Config, error) {
	c := Config{
		Retention:  DefaultRetention,
		Lease:      DefaultLease,
		Table:      DefaultTable,
		MaxRetries: DefaultMaxRetries,
		PurgeBatch: DefaultPurgeBatch,
	}
	for _, o := range opts {
		if o != nil {
			o(&c)
		}
	}
	if c.Observer == nil {
		c.Observer = nopObserver{}
	}
	switch {
	case c.Retention < MinRetention:
		return c, fmt.Errorf("guard: retention %s is below the minimum of %s", c.Retention, MinRetention)
	case c.Lease < MinLease:
		return c, fmt.Errorf("guard: lease %s is below the minimum of %s", c.Lease, MinLease)
	case c.Lease > c.Retention:
		return c, fmt.Errorf("guard: lease %s is longer than retention %s", c.Lease, c.Retention)
	case c.MaxLeaseHold < 0 || (c.MaxLeaseHold > 0 && c.MaxLeaseHold < MinLease):
		return c, fmt.Errorf("guard: maximum lease hold %s is below the minimum of %s", c.MaxLeaseHold, MinLease)
	case c.MaxLeaseHold > 0 && c.MaxLeaseHold < c.Lease:
		return c, fmt.Errorf("guard: lease %s is longer than the maximum lease hold %s (WithMaxLeaseHold)", c.Lease, c.MaxLeaseHold)
	case len(c.KeyIdentity) > MaxKeyIdentityLen:
		return c, fmt.Errorf("guard: key identity of %d bytes is longer than the maximum of %d", len(c.KeyIdentity), MaxKeyIdentityLen)
	case c.Delivery != AtLeastOnce && c.Delivery != AtMostOnce:
		return c, fmt.Errorf("guard: unknown delivery %d", c.Delivery)
	case c.OnError != Release && c.OnError != Keep:
		return c, fmt.Errorf("guard: unknown on_error %d", c.OnError)
	case !tableName.MatchString(c.Table):
		return c, fmt.Errorf("guard: table %q is not an identifier (letters, digits, _; optionally schema.table)", c.Table)
	case c.MaxRetries < 0:
		return c, fmt.Errorf("guard: max retries must not be negative, got %d", c.MaxRetries)
	case c.PurgeBatch <= 0:
		return c, fmt.Errorf("guard: purge batch must be positive, got %d", c.PurgeBatch)
	}
	return c, nil
}

// With returns a copy of c with opts applied on top, validated. Handlers use it
// to layer per-consumer settings over a store's defaults.
func (c Config) With(opts ...Option) (Config, error) {
	all := []Option{func(d *Config) { *d = c }}
	return NewConfig(append(all, opts...)...)
}

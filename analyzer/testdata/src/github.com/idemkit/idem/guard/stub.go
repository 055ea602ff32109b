// Package guard is a stub of github.com/idemkit/idem@28899d2 for analyzer tests: signatures mirror the real API.
//
// Generated from the real package's type information; bodies return zero values.
package guard

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"time"
)

const ActConflict Action = 6

const ActDuplicate Action = 5

const ActFailed Action = 7

const ActInProgress Action = 9

const ActInsert Action = 1

const ActMarkUncertain Action = 4

const ActReclaim Action = 2

const ActTakeover Action = 3

const ActUncertain Action = 8

type Action int

func (a Action) Acquires() bool { return false }

const Applied Outcome = 1

const AtLeastOnce Delivery = 0

const AtMostOnce Delivery = 1

func CanonicalUUID(s string) (string, error) { return "", nil }

func ClaimAnswer(ctx context.Context, b LeaseBackend, info LeaseInfo, v Verdict, rec *Record) (*Lease, error) {
	return nil, nil
}

type Config struct {
	Retention  time.Duration
	Lease      time.Duration
	Delivery   Delivery
	OnError    OnError
	Observer   Observer
	Table      string
	MaxRetries int
	PurgeBatch int
}

func (c Config) With(opts ...Option) (Config, error) { return Config{}, nil }

func (c Config) Refuse(ctx context.Context, consumer string, key string, v Verdict, rec *Record) (Outcome, error) {
	return 0, nil
}

func CreateTableSQL(d Dialect, table string) ([]string, error) { return nil, nil }

func DecideClaim(rec *Record, now time.Time, fp []byte, d Delivery) Verdict { return Verdict{} }

type Decision string

const DecisionApplied Decision = "applied"

const DecisionConflict Decision = "conflict"

const DecisionDuplicate Decision = "duplicate"

const DecisionFailed Decision = "failed"

const DecisionInProgress Decision = "in_progress"

const DecisionLeaseLost Decision = "lease_lost"

const DecisionPartial Decision = "partial"

const DecisionPurged Decision = "purged"

const DecisionReleased Decision = "released"

const DecisionRetried Decision = "retried"

const DecisionTakeover Decision = "takeover"

const DecisionUncertain Decision = "uncertain"

const DefaultLease time.Duration = 30000000000

const DefaultMaxRetries = 10

const DefaultPurgeBatch = 1000

const DefaultRetention time.Duration = 604800000000000

const DefaultTable = "idem_keys"

type Delivery int

func (d Delivery) String() string { return "" }

type Dialect int

func (d Dialect) String() string { return "" }

func DropTableSQL(d Dialect, table string) ([]string, error) { return nil, nil }

const Duplicate Outcome = 2

var ErrEmptyKey = fmt.Errorf("%w: empty key", ErrInvalidMessage)

var ErrFailed = errors.New("guard: key failed permanently")

var ErrInProgress = errors.New("guard: key is in progress")

var ErrInvalidMessage = errors.New("guard: invalid message")

var ErrKeyConflict = errors.New("guard: key seen before with a different fingerprint")

var ErrLeaseLost = errors.New("guard: lease lost to another owner")

var ErrPartialEffect = errors.New("guard: effect partially applied")

var ErrUncertain = errors.New("guard: effect outcome is uncertain")

type Event struct {
	Decision Decision
	Consumer string
	Key      string
	Attempt  int
	Count    int64
	Err      error
	Duration time.Duration
}

type FingerprintBuilder struct {
}

func (f *FingerprintBuilder) String(name string, v string) {}

func (f *FingerprintBuilder) Int(name string, v int64) {}

func (f *FingerprintBuilder) Uint(name string, v uint64) {}

func (f *FingerprintBuilder) Float(name string, v float64) {}

func (f *FingerprintBuilder) Bool(name string, v bool) {}

func (f *FingerprintBuilder) Time(name string, v time.Time) {}

func (f *FingerprintBuilder) UUID(name string, v string) {}

func (f *FingerprintBuilder) Bytes(name string, v []byte) {}

func (f *FingerprintBuilder) Sum() []byte { return nil }

type Handler interface {
	Handle(ctx context.Context, body []byte) (Outcome, error)
}

type HandlerFunc func(ctx context.Context, body []byte) (Outcome, error)

func (f HandlerFunc) Handle(ctx context.Context, body []byte) (Outcome, error) { return 0, nil }

type InProgressError struct {
	Consumer   string
	RetryAfter time.Duration
}

func (e *InProgressError) Error() string { return "" }

func (e *InProgressError) Is(target error) bool { return false }

func IsNotPerformed(err error) bool { return false }

func IsRejected(err error) bool { return false }

const Keep OnError = 1

type KeyBuilder struct {
}

func (b *KeyBuilder) String(v string) {}

func (b *KeyBuilder) Int(v int64) {}

func (b *KeyBuilder) Uint(v uint64) {}

func (b *KeyBuilder) Bool(v bool) {}

func (b *KeyBuilder) Time(v time.Time) {}

func (b *KeyBuilder) UUID(v string) {}

func (b *KeyBuilder) Key() string { return "" }

func KeyHash(key string) [32]byte { return [32]byte{} }

type Lease struct {
}

func (l *Lease) Key() string { return "" }

func (l *Lease) EncodedKey() string { return "" }

func (l *Lease) Consumer() string { return "" }

func (l *Lease) Owner() string { return "" }

func (l *Lease) Outcome() Outcome { return 0 }

func (l *Lease) TakenOver() bool { return false }

func (l *Lease) Result() []byte { return nil }

func (l *Lease) SetResult(result []byte) {}

func (l *Lease) Until() time.Time { return time.Time{} }

func (l *Lease) Complete(ctx context.Context, result []byte) error { return nil }

func (l *Lease) Fail(ctx context.Context, reason error) error { return nil }

func (l *Lease) Release(ctx context.Context) error { return nil }

func (l *Lease) Extend(ctx context.Context, d time.Duration) error { return nil }

type LeaseBackend interface {
	Extend(ctx context.Context, l *Lease, d time.Duration) error
	Release(ctx context.Context, l *Lease) error
	Settle(ctx context.Context, l *Lease, state State, result []byte) error
}

type LeaseInfo struct {
	Consumer string
	Key      string
	Owner    string
	Outcome  Outcome
	Result   []byte
	Duration time.Duration
	Takeover bool
	Config   Config
}

const MySQL Dialect = 2

func NewConfig(opts ...Option) (Config, error) { return Config{}, nil }

func NewLease(b LeaseBackend, info LeaseInfo) *Lease { return nil }

func NewOwnerToken() string { return "" }

func NewSQLEngine(b SQLBackend, d Dialect, opts ...Option) (*SQLEngine, error) { return nil, nil }

func NewSQLStore(db *sql.DB, d Dialect, opts ...Option) (*SQLStore, error) { return nil, nil }

func NewSlogObserver(l *slog.Logger) Observer { return nil }

func NotPerformed(err error) error { return nil }

type Observer interface {
	Observe(ctx context.Context, e Event)
}

type ObserverFunc func(ctx context.Context, e Event)

func (f ObserverFunc) Observe(ctx context.Context, e Event) {}

type OnError int

func (o OnError) String() string { return "" }

type Option func(*Config)

type Outcome int

func (o Outcome) String() string { return "" }

func ParseDialect(s string) (Dialect, error) { return 0, nil }

func Permanent(err error) bool { return false }

const Postgres Dialect = 1

func ProviderKey(consumer string, key string) string { return "" }

type Record struct {
	Consumer    string
	Key         string
	State       State
	Fingerprint []byte
	Owner       string
	LeaseUntil  time.Time
	Result      []byte
	CreatedAt   time.Time
	ExpiresAt   time.Time
}

func (r *Record) Expired(now time.Time) bool { return false }

func Reject(err error) error { return nil }

const Release OnError = 0

func RunLease(ctx context.Context, l *Lease, apply func(ctx context.Context, l *Lease) error) (Outcome, error) {
	return 0, nil
}

type SQLBackend interface {
	SQLExecer
	Begin(ctx context.Context) (SQLTx, error)
}

type SQLEngine struct {
}

func (e *SQLEngine) Config() Config { return Config{} }

func (e *SQLEngine) With(opts ...Option) (*SQLEngine, error) { return nil, nil }

func (e *SQLEngine) Dialect() Dialect { return 0 }

func (e *SQLEngine) CreateTable(ctx context.Context) error { return nil }

func (e *SQLEngine) Do(ctx context.Context, consumer string, key string, fp []byte, apply func(ctx context.Context, tx SQLTx) error) (Outcome, error) {
	return 0, nil
}

func (e *SQLEngine) Claim(ctx context.Context, consumer string, key string, fp []byte) (*Lease, error) {
	return nil, nil
}

func (e *SQLEngine) Run(ctx context.Context, consumer string, key string, fp []byte, apply func(ctx context.Context, l *Lease) error) (Outcome, error) {
	return 0, nil
}

func (e *SQLEngine) Settle(ctx context.Context, l *Lease, state State, result []byte) error {
	return nil
}

func (e *SQLEngine) Release(ctx context.Context, l *Lease) error { return nil }

func (e *SQLEngine) Extend(ctx context.Context, l *Lease, d time.Duration) error { return nil }

func (e *SQLEngine) Inspect(ctx context.Context, consumer string, key string) (*Record, error) {
	return nil, nil
}

func (e *SQLEngine) Resolve(ctx context.Context, consumer string, key string, result []byte) error {
	return nil
}

func (e *SQLEngine) Forget(ctx context.Context, consumer string, key string) error { return nil }

func (e *SQLEngine) Purge(ctx context.Context) (int64, error) { return 0, nil }

type SQLExecer interface {
	Exec(ctx context.Context, query string, args ...any) (rowsAffected int64, err error)
	QueryRow(ctx context.Context, query string, args ...any) interface{ Scan(dest ...any) error }
}

type SQLStore struct {
	*SQLEngine
}

func (s *SQLStore) With(opts ...Option) (*SQLStore, error) { return nil, nil }

func (s *SQLStore) DB() *sql.DB { return nil }

func (s *SQLStore) Do(ctx context.Context, consumer string, key string, fp []byte, apply func(ctx context.Context, tx *sql.Tx) error) (Outcome, error) {
	return 0, nil
}

type SQLTx interface {
	SQLExecer
	Commit(ctx context.Context) error
	Rollback(ctx context.Context) error
}

const SQLite Dialect = 3

func SQLiteDSN(path string) string { return "" }

type State string

const StateDone State = "done"

func StateError(sentinel error, consumer string, reason string, cause error) error { return nil }

const StateFailed State = "failed"

const StatePending State = "pending"

const StateUncertain State = "uncertain"

type Store interface {
	Claim(ctx context.Context, consumer string, key string, fp []byte) (*Lease, error)
	Config() Config
	Forget(ctx context.Context, consumer string, key string) error
	Inspect(ctx context.Context, consumer string, key string) (*Record, error)
	Purge(ctx context.Context) (int64, error)
	Resolve(ctx context.Context, consumer string, key string, result []byte) error
	Run(ctx context.Context, consumer string, key string, fp []byte, apply func(ctx context.Context, l *Lease) error) (Outcome, error)
}

const SupportPackageIsVersion1 = true

func ValidateClaim(consumer string, key string) error { return nil }

type Verdict struct {
	Action     Action
	RetryAfter time.Duration
}

func WithDelivery(d Delivery) Option { return nil }

func WithLease(d time.Duration) Option { return nil }

func WithMaxRetries(n int) Option { return nil }

func WithObserver(o Observer) Option { return nil }

func WithOnError(o OnError) Option { return nil }

func WithPurgeBatch(n int) Option { return nil }

func WithRetention(d time.Duration) Option { return nil }

func WithTable(name string) Option { return nil }

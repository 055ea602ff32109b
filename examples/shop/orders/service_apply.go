package orders

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/idemkit/idem/examples/shop/shopdb"
	"github.com/idemkit/idem/guard"
)

// Config is what the effects need besides the transaction, the
// pipeline or the lease the store gives them.
type Config struct {
	// Dialect is the SQL dialect of the database holding Tables (the same
	// database as the store's: an effect shares the store's transaction).
	Dialect guard.Dialect
	// Tables are the business tables the effects change.
	Tables shopdb.Tables
	// RedisPrefix starts the Redis keys of add_points_redis (see
	// shopdb.PointsKey).
	RedisPrefix string
	// SMSURL is the SMS provider's send endpoint (see package smsprovider).
	SMSURL string
	// HTTPClient calls the provider; nil means http.DefaultClient.
	HTTPClient *http.Client
	// AfterEffect, when set, runs at the end of every effect, after
	// the effect (the UPDATE ran, the INCRBY is queued, the provider
	// answered) and before it is recorded; a non-nil error is returned by
	// the effect. The example uses it to kill a worker mid-effect: it cancels the
	// handler's context and returns the cause, so the transaction rolls back
	// (or the lease is released) as when a process dies. Production code
	// leaves it nil.
	AfterEffect func(ctx context.Context) error
}

// Service performs the effects of the guarded consumers: it implements
// Effects (handlers_idem.go), one method per consumer, each in the
// consumer's <consumer>_apply.go. idemgen wrote this file and those as stubs;
// they were filled in by hand. Build every handler with NewHandlers:
//
//	h := NewHandlers(Stores{SQL: store, Redis: redisStore}, svc, opts...)
//
// The options go to each generated constructor, where they win over the
// spec's settings (guard.WithTable gives a run its own dedup table, say).
type Service struct {
	cfg  Config
	http *http.Client

	deductSQL string // conditional: never below zero
	pointsSQL string
	statsSQL  string
}

// New returns a Service over cfg.
func New(cfg Config) (*Service, error) {
	if cfg.Dialect == 0 || cfg.Tables.Stock == "" {
		return nil, errors.New("orders: New: Dialect and Tables are required")
	}
	s := &Service{cfg: cfg, http: cfg.HTTPClient}
	if s.http == nil {
		s.http = http.DefaultClient
	}
	s.deductSQL = shopdb.Rebind(cfg.Dialect, fmt.Sprintf(`UPDATE %s SET qty = qty - ? WHERE sku = ? AND qty >= ?`, cfg.Tables.Stock))
	s.pointsSQL = shopdb.Rebind(cfg.Dialect, fmt.Sprintf(`UPDATE %s SET points = points + ? WHERE user_id = ?`, cfg.Tables.Points))
	s.statsSQL = shopdb.AddStatsSQL(cfg.Dialect, cfg.Tables.Stats)
	return s, nil
}

// afterEffect runs Config.AfterEffect, if any.
func (s *Service) afterEffect(ctx context.Context) error {
	if s.cfg.AfterEffect == nil {
		return nil
	}
	return s.cfg.AfterEffect(ctx)
}

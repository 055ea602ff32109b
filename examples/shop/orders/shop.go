package orders

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/idemkit/idem/examples/shop/shopdb"
	"github.com/idemkit/idem/guard"
	"github.com/idemkit/idem/guard/redisguard"
)

// Config is what the apply functions need besides the transaction, the
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
	// AfterEffect, when set, runs at the end of every apply function, after
	// the effect (the UPDATE ran, the INCRBY is queued, the provider
	// answered) and before it is recorded; a non-nil error is returned by
	// apply. The example uses it to kill a worker mid-effect: it cancels the
	// handler's context and returns the cause, so the transaction rolls back
	// (or the lease is released) as when a process dies. Production code
	// leaves it nil.
	AfterEffect func(ctx context.Context) error
}

// Shop is the business logic of the guarded consumers: the apply functions
// are its methods, and the constructors below wire them into the handlers
// idemgen generated. Their options go to the generated constructor, where
// they win over the spec's settings (guard.WithTable gives a run its own
// dedup table, say).
type Shop struct {
	cfg  Config
	http *http.Client

	deductSQL string // conditional: never below zero
	pointsSQL string
	statsSQL  string
}

// New returns a Shop over cfg.
func New(cfg Config) (*Shop, error) {
	if cfg.Dialect == 0 || cfg.Tables.Stock == "" {
		return nil, errors.New("orders: New: Dialect and Tables are required")
	}
	s := &Shop{cfg: cfg, http: cfg.HTTPClient}
	if s.http == nil {
		s.http = http.DefaultClient
	}
	s.deductSQL = shopdb.Rebind(cfg.Dialect, fmt.Sprintf(`UPDATE %s SET qty = qty - ? WHERE sku = ? AND qty >= ?`, cfg.Tables.Stock))
	s.pointsSQL = shopdb.Rebind(cfg.Dialect, fmt.Sprintf(`UPDATE %s SET points = points + ? WHERE user_id = ?`, cfg.Tables.Points))
	s.statsSQL = shopdb.AddStatsSQL(cfg.Dialect, cfg.Tables.Stats)
	return s, nil
}

// afterEffect runs Config.AfterEffect, if any.
func (s *Shop) afterEffect(ctx context.Context) error {
	if s.cfg.AfterEffect == nil {
		return nil
	}
	return s.cfg.AfterEffect(ctx)
}

// DeductInventory returns the guarded deduct_inventory handler over store.
func (s *Shop) DeductInventory(store *guard.SQLStore, opts ...guard.Option) *DeductInventoryHandler {
	return NewDeductInventoryHandler(store, s.applyDeductInventory, opts...)
}

// AddPoints returns the guarded add_points handler over store.
func (s *Shop) AddPoints(store *guard.SQLStore, opts ...guard.Option) *AddPointsHandler {
	return NewAddPointsHandler(store, s.applyAddPoints, opts...)
}

// SendSms returns the guarded send_sms handler over store.
func (s *Shop) SendSms(store *guard.SQLStore, opts ...guard.Option) *SendSmsHandler {
	return NewSendSmsHandler(store, s.applySendSms, opts...)
}

// UpdateStats returns the guarded update_stats handler over store.
func (s *Shop) UpdateStats(store *guard.SQLStore, opts ...guard.Option) *UpdateStatsHandler {
	return NewUpdateStatsHandler(store, s.applyUpdateStats, opts...)
}

// AddPointsRedis returns the guarded add_points_redis handler over store.
func (s *Shop) AddPointsRedis(store *redisguard.Store, opts ...guard.Option) *AddPointsRedisHandler {
	return NewAddPointsRedisHandler(store, s.applyAddPointsRedis, opts...)
}

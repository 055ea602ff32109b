// Package naive holds the shop's consumers written the way idem's seed
// article warns against: each decodes the message,
// performs its effect and acks, trusting that an acknowledged message is a
// message handled once. There is no dedup check, so every redelivery — a
// producer's resend after a timeout, a worker that died between the effect
// and the ack — performs the effect again:
//
//   - deduct_inventory: stock = stock - qty; a duplicate oversells, and stock
//     goes negative.
//   - add_points: points = points + n; the buyer is credited twice.
//   - send_sms: an HTTP POST without an idempotency key; the customer gets the
//     same text twice.
//   - update_stats: count = count + 1, total = total + amount; the day's orders
//     and GMV are counted twice.
//
// Each method is a jetstream.MessageHandler. They are correct in every other
// respect (a failed effect is naked, never acked), so idemlint reports each
// of them for exactly one reason: IDEM001, an effect without a dedup check
// (see expected-findings.txt). The guarded versions are in ../orders.
package naive

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/nats-io/nats.go/jetstream"
	redis "github.com/redis/go-redis/v9"

	"github.com/idemkit/idem/examples/shop/shopdb"
	"github.com/idemkit/idem/examples/shop/smsprovider"
	"github.com/idemkit/idem/guard"
)

// Config is what the consumers need.
type Config struct {
	DB      *sql.DB
	Dialect guard.Dialect
	Tables  shopdb.Tables
	// Redis and RedisPrefix are for AddPointsRedis only.
	Redis       redis.UniversalClient
	RedisPrefix string
	// SMSURL is the SMS provider's send endpoint.
	SMSURL string
}

// Consumers are the naive consumers of the shop.
type Consumers struct {
	cfg       Config
	deductSQL string
	pointsSQL string
	statsSQL  string
}

// New returns the consumers over cfg.
func New(cfg Config) *Consumers {
	return &Consumers{
		cfg:       cfg,
		deductSQL: shopdb.Rebind(cfg.Dialect, fmt.Sprintf(`UPDATE %s SET qty = qty - ? WHERE sku = ?`, cfg.Tables.Stock)),
		pointsSQL: shopdb.Rebind(cfg.Dialect, fmt.Sprintf(`UPDATE %s SET points = points + ? WHERE user_id = ?`, cfg.Tables.Points)),
		statsSQL:  shopdb.AddStatsSQL(cfg.Dialect, cfg.Tables.Stats),
	}
}

// order is the part of an orders.paid event the consumers read.
type order struct {
	OrderID  string `json:"order_id"`
	UserID   string `json:"user_id"`
	Sku      string `json:"sku"`
	Quantity int64  `json:"quantity"`
	Points   int64  `json:"points"`
}

// DeductInventory takes the order's quantity out of stock, then acks.
func (c *Consumers) DeductInventory(msg jetstream.Msg) {
	var o order
	if err := json.Unmarshal(msg.Data(), &o); err != nil {
		_ = msg.Term()
		return
	}
	if _, err := c.cfg.DB.Exec(c.deductSQL, o.Quantity, o.Sku); err != nil {
		_ = msg.Nak()
		return
	}
	_ = msg.Ack()
}

// AddPoints credits the order's points to its buyer, then acks.
func (c *Consumers) AddPoints(msg jetstream.Msg) {
	var o order
	if err := json.Unmarshal(msg.Data(), &o); err != nil {
		_ = msg.Term()
		return
	}
	if _, err := c.cfg.DB.Exec(c.pointsSQL, o.Points, o.UserID); err != nil {
		_ = msg.Nak()
		return
	}
	_ = msg.Ack()
}

// AddPointsRedis credits the order's points to its buyer on Redis, then acks.
func (c *Consumers) AddPointsRedis(msg jetstream.Msg) {
	var o order
	if err := json.Unmarshal(msg.Data(), &o); err != nil {
		_ = msg.Term()
		return
	}
	if err := c.cfg.Redis.IncrBy(context.Background(), shopdb.PointsKey(c.cfg.RedisPrefix, o.UserID), o.Points).Err(); err != nil {
		_ = msg.Nak()
		return
	}
	_ = msg.Ack()
}

// SendSms sends the requested text through the provider, then acks.
func (c *Consumers) SendSms(msg jetstream.Msg) {
	var m struct {
		OrderID  string `json:"order_id"`
		Phone    string `json:"phone"`
		Template string `json:"template"`
	}
	if err := json.Unmarshal(msg.Data(), &m); err != nil {
		_ = msg.Term()
		return
	}
	body, _ := json.Marshal(smsprovider.Request{To: m.Phone, Template: m.Template, Params: map[string]string{"order_id": m.OrderID}})
	resp, err := http.Post(c.cfg.SMSURL, "application/json", bytes.NewReader(body))
	if err != nil {
		_ = msg.Nak()
		return
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		_ = msg.Nak()
		return
	}
	_ = msg.Ack()
}

// UpdateStats counts the event into its day's row of its metric, then acks.
func (c *Consumers) UpdateStats(msg jetstream.Msg) {
	var e struct {
		EventID string `json:"event_id"`
		Day     string `json:"day"`
		Metric  string `json:"metric"`
		Amount  int64  `json:"amount"`
	}
	if err := json.Unmarshal(msg.Data(), &e); err != nil {
		_ = msg.Term()
		return
	}
	if _, err := c.cfg.DB.Exec(c.statsSQL, e.Day, e.Metric, e.Amount); err != nil {
		_ = msg.Nak()
		return
	}
	_ = msg.Ack()
}

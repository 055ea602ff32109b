package points

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"
	"github.com/redis/go-redis/v9"
)

// TierCache keeps each user's loyalty tier in Redis, fetched from the
// profile service.
type TierCache struct {
	RDB     *redis.Client
	HTTP    *http.Client
	BaseURL string
}

func (c *TierCache) fetchTier(ctx context.Context, userID int64) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.BaseURL+"/users/"+strconv.FormatInt(userID, 10)+"/tier", nil)
	if err != nil {
		return nil, err
	}
	resp, err := c.HTTP.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("tier: status %d", resp.StatusCode)
	}
	return io.ReadAll(resp.Body)
}

// Refresh reads the tier over HTTP GET and overwrites the cache entry with
// SET: only reads and absolute writes, so a redelivery does no harm. Ack
// after the write, requeue on failure.
//
// truth: ok
func (c *TierCache) Refresh(ctx context.Context, deliveries <-chan amqp.Delivery) {
	for d := range deliveries {
		var ev struct {
			UserID int64 `json:"user_id"`
		}
		if err := json.Unmarshal(d.Body, &ev); err != nil {
			_ = d.Reject(false)
			continue
		}
		tier, err := c.fetchTier(ctx, ev.UserID)
		if err == nil {
			err = c.RDB.Set(ctx, "tier:"+strconv.FormatInt(ev.UserID, 10), tier, time.Hour).Err()
		}
		if err != nil {
			_ = d.Nack(false, true)
			continue
		}
		_ = d.Ack(false)
	}
}

// creditOnce marks the order and credits the points in one Lua script, so
// Redis runs both or neither.
var creditOnce = redis.NewScript(`
if redis.call('SET', KEYS[1], '1', 'NX', 'EX', 604800) then
  return redis.call('INCRBY', KEYS[2], ARGV[1])
end
return false
`)

// Credit runs the marker and the INCRBY atomically in a Lua script (the
// script's NX decides inside Redis), then acks. Duplicates return nil from
// the script and are acked.
//
// truth: ok
func (c *TierCache) Credit(ctx context.Context, deliveries <-chan amqp.Delivery) {
	for d := range deliveries {
		ev, ok := parse(d)
		if !ok {
			_ = d.Reject(false)
			continue
		}
		uid := strconv.FormatInt(ev.UserID, 10)
		err := creditOnce.Run(ctx, c.RDB, []string{"{u" + uid + "}:credited:" + ev.OrderID, "{u" + uid + "}:points"}, ev.Points).Err()
		if err != nil && err != redis.Nil {
			_ = d.Nack(false, true)
			continue
		}
		_ = d.Ack(false)
	}
}

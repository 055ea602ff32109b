package sqlcx

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/http"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
)

// NewRequestID returns a random id: a key built from it dedups nothing.
func NewRequestID() string { // want NewRequestID:`fresh\(rand.Read\)`
	var b [12]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// FirstSeen passes SET NX's own answer on.
func FirstSeen(ctx context.Context, rdb *redis.Client, key string) (bool, error) { // want FirstSeen:`dedup\(result 0: true=fresh, false=duplicate\)`
	return rdb.SetNX(ctx, "seen:"+key, 1, time.Hour).Result()
}

// Push posts with the Idempotency-Key its caller gives.
func Push(ctx context.Context, hc *http.Client, key, body string) error { // want Push:`effects\(http.Client.Do POST\)`
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, "https://push.example/v1", strings.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Idempotency-Key", key)
	resp, err := hc.Do(req)
	if err != nil {
		return err
	}
	return resp.Body.Close()
}

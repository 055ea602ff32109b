package heldout4

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/redis/go-redis/v9"

	"github.com/idemkit/idem/guard"
	"github.com/idemkit/idem/guard/redisguard"
)

type gameEvent struct {
	EventID  string   `json:"event_id"`
	PlayerID string   `json:"player_id"`
	Score    float64  `json:"score"`
	Page     string   `json:"page"`
	Visitor  string   `json:"visitor"`
	DocID    string   `json:"doc_id"`
	Tags     []string `json:"tags"`
	Title    string   `json:"title"`
	Day      string   `json:"day"`
	At       int64    `json:"at"`
}

// Leaderboard keeps the weekly high-score board in a sorted set.
type Leaderboard struct{ Redis *redis.Client }

// Handle adds the match score with ZINCRBY and acks: a redelivered match
// result is added twice.
//
// truth: bug IDEM001
func (l *Leaderboard) Handle(msg jetstream.Msg) {
	var ev gameEvent
	if err := json.Unmarshal(msg.Data(), &ev); err != nil {
		_ = msg.Term()
		return
	}
	ctx := context.Background()
	if err := l.Redis.ZIncrBy(ctx, "board:weekly", ev.Score, ev.PlayerID).Err(); err != nil {
		_ = msg.Nak()
		return
	}
	_ = msg.Ack()
}

// GuardedLeaderboard adds scores through the Redis guard.
type GuardedLeaderboard struct{ Store *redisguard.Store }

// Handle queues ZINCRBY in the guard's MULTI together with the dedup key, so
// a redelivery sees Duplicate; in-progress and transient errors are naked,
// permanent ones terminated.
//
// truth: ok
func (l *GuardedLeaderboard) Handle(msg jetstream.Msg) {
	var ev gameEvent
	if err := json.Unmarshal(msg.Data(), &ev); err != nil {
		_ = msg.Term()
		return
	}
	ctx := context.Background()
	_, err := l.Store.Do(ctx, "leaderboard", ev.EventID, nil, func(ctx context.Context, pipe redis.Pipeliner) error {
		pipe.ZIncrBy(ctx, "board:weekly", ev.Score, ev.PlayerID)
		return nil
	})
	var busy *guard.InProgressError
	switch {
	case err == nil:
		_ = msg.Ack()
	case errors.As(err, &busy):
		_ = msg.NakWithDelay(busy.RetryAfter)
	case guard.Permanent(err):
		_ = msg.Term()
	default:
		_ = msg.Nak()
	}
}

// UniqueVisitors counts distinct visitors per page per day.
type UniqueVisitors struct{ Redis *redis.Client }

// Handle uses PFADD, which is a set insertion: adding the same visitor twice
// changes nothing, so redelivery is harmless.
//
// truth: ok
func (u *UniqueVisitors) Handle(msg jetstream.Msg) {
	var ev gameEvent
	if err := json.Unmarshal(msg.Data(), &ev); err != nil {
		_ = msg.Term()
		return
	}
	key := fmt.Sprintf("uv:%s:%s", ev.Page, ev.Day)
	if err := u.Redis.PFAdd(context.Background(), key, ev.Visitor).Err(); err != nil {
		_ = msg.Nak()
		return
	}
	_ = msg.Ack()
}

// TagIndex maintains tag → document sets and a document hash.
type TagIndex struct{ Redis *redis.Client }

// Handle writes with SADD and HSET (absolute field values) in one pipeline;
// both are idempotent, so a replay rewrites the same state.
//
// truth: ok
func (t *TagIndex) Handle(msg jetstream.Msg) {
	var ev gameEvent
	if err := json.Unmarshal(msg.Data(), &ev); err != nil {
		_ = msg.Term()
		return
	}
	ctx := context.Background()
	_, err := t.Redis.TxPipelined(ctx, func(pipe redis.Pipeliner) error {
		pipe.HSet(ctx, "doc:"+ev.DocID, "title", ev.Title, "updated_at", ev.At)
		for _, tag := range ev.Tags {
			pipe.SAdd(ctx, "tag:"+tag, ev.DocID)
		}
		return nil
	})
	if err != nil {
		_ = msg.Nak()
		return
	}
	_ = msg.Ack()
}

// ActivityFeed pushes events onto a player's capped feed list.
type ActivityFeed struct{ Redis *redis.Client }

// Handle does LPUSH + LTRIM: a redelivered event appears twice in the feed.
//
// truth: bug IDEM001
func (f *ActivityFeed) Handle(msg jetstream.Msg) {
	var ev gameEvent
	if err := json.Unmarshal(msg.Data(), &ev); err != nil {
		_ = msg.Term()
		return
	}
	ctx := context.Background()
	key := "feed:" + ev.PlayerID
	pipe := f.Redis.Pipeline()
	pipe.LPush(ctx, key, msg.Data())
	pipe.LTrim(ctx, key, 0, 99)
	if _, err := pipe.Exec(ctx); err != nil {
		_ = msg.Nak()
		return
	}
	_ = msg.Ack()
}

// TimelineFeed keeps the feed as a sorted set keyed by event id.
type TimelineFeed struct{ Redis *redis.Client }

// Handle uses ZADD with the event id as member and its timestamp as score:
// re-adding the same member only rewrites the same score, and the trim by
// rank is idempotent too.
//
// truth: ok
func (f *TimelineFeed) Handle(msg jetstream.Msg) {
	var ev gameEvent
	if err := json.Unmarshal(msg.Data(), &ev); err != nil {
		_ = msg.Term()
		return
	}
	ctx := context.Background()
	key := "timeline:" + ev.PlayerID
	pipe := f.Redis.TxPipeline()
	pipe.ZAdd(ctx, key, redis.Z{Score: float64(ev.At), Member: ev.EventID})
	pipe.ZRemRangeByRank(ctx, key, 0, -201)
	if _, err := pipe.Exec(ctx); err != nil {
		_ = msg.Nak()
		return
	}
	_ = msg.Ack()
}

// DailyPlays counts plays per day in a hash.
type DailyPlays struct{ Redis *redis.Client }

// Handle claims "plays:<event>:<day>" with SET NX and then runs HINCRBY as a
// separate command: a crash between them loses the count (the redelivery is
// taken for a duplicate). It should queue both in one MULTI.
//
// truth: bug IDEM006
func (p *DailyPlays) Handle(msg jetstream.Msg) {
	var ev gameEvent
	if err := json.Unmarshal(msg.Data(), &ev); err != nil {
		_ = msg.Term()
		return
	}
	ctx := context.Background()
	fresh, err := p.Redis.SetNX(ctx, "plays:"+ev.EventID+":"+ev.Day, 1, 48*time.Hour).Result()
	if err != nil {
		_ = msg.Nak()
		return
	}
	if fresh {
		if err := p.Redis.HIncrBy(ctx, "plays:"+ev.Day, ev.Page, 1).Err(); err != nil {
			_ = msg.Nak()
			return
		}
	}
	_ = msg.Ack()
}

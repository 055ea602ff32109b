package genericx

// A generic Kafka consumer hands each message read with ReadMessage (which
// commits as it reads) over a channel to a pool of workers that call the
// handler: the commit comes before the upsert the handler runs.

import (
	"context"
	"encoding/json"
	"log"
	"sync"

	"github.com/segmentio/kafka-go"
	"gorm.io/gorm"
)

// Consumer is a generic Kafka consumer: it decodes each message into a T
// and hands it over a channel to worker goroutines that run the handler.
type Consumer[T any] struct {
	reader  *kafka.Reader
	workers int
}

// NewConsumer returns a consumer of Ts in group.
func NewConsumer[T any](topic, group string, workers int) *Consumer[T] {
	r := kafka.NewReader(kafka.ReaderConfig{Brokers: []string{"kafka:9092"}, Topic: topic, GroupID: group})
	return &Consumer[T]{reader: r, workers: workers}
}

type delivery[T any] struct {
	key string
	val T
}

// Consume reads with ReadMessage, which commits each message as it
// returns it: a worker's failure, or a crash before the worker runs, loses
// the message.
func (c *Consumer[T]) Consume(ctx context.Context, handler func(ctx context.Context, key string, value T) error) error {
	ch := make(chan delivery[T], c.workers)
	var wg sync.WaitGroup
	for i := 0; i < c.workers; i++ {
		wg.Add(1)
		go func(worker int) {
			defer wg.Done()
			for d := range ch {
				if err := handler(ctx, d.key, d.val); err != nil {
					log.Print(worker, err)
				}
			}
		}(i)
	}
	for {
		msg, err := c.reader.ReadMessage(ctx) // want `auto-ack consumer kafka.Reader.ReadMessage \(commits by itself\) acks each message before handler func literal in RunBets performs genericx.BetService.HandleMatchCreated \(a write\): a crash loses the message \(IDEM007\)`
		if err != nil {
			break
		}
		var value T
		if err := json.Unmarshal(msg.Value, &value); err != nil {
			continue
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case ch <- delivery[T]{key: string(msg.Key), val: value}:
		}
	}
	close(ch)
	wg.Wait()
	return ctx.Err()
}

// MatchCreated is a match offered for betting.
type MatchCreated struct{ ID, Home, Away string }

// Matches stores matches.
type Matches interface {
	Add(ctx context.Context, m MatchCreated) error
}

// BetService keeps the matches open for betting.
type BetService struct{ matches Matches }

// HandleMatchCreated stores the match.
func (s *BetService) HandleMatchCreated(ctx context.Context, key string, m MatchCreated) error {
	return s.matches.Add(ctx, m)
}

// RunBets wires the consumer to the service.
func RunBets(ctx context.Context, s *BetService) error {
	c := NewConsumer[MatchCreated]("match-created", "bets", 4)
	return c.Consume(ctx, func(ctx context.Context, key string, evt MatchCreated) error {
		return s.HandleMatchCreated(ctx, key, evt)
	})
}

type gormMatches struct{ db *gorm.DB }

// Add upserts the match.
func (g *gormMatches) Add(ctx context.Context, m MatchCreated) error {
	return g.db.WithContext(ctx).Exec("INSERT INTO matches (id, home, away) VALUES (?, ?, ?) ON CONFLICT (id) DO UPDATE SET home = EXCLUDED.home, away = EXCLUDED.away", m.ID, m.Home, m.Away).Error
}

// Bets is the bet service the command runs.
var Bets = &BetService{matches: &gormMatches{}}

// Package popqueue (whole-program mode): a program's own queue layer over
// a Redis pop. Dequeue decodes the popped job into the caller's variable,
// behind the worker's interface; the worker's loop over it consumes the
// list as directly as a pop does, and the pop removes the job before the
// worker's effect (IDEM007).
package popqueue

import (
	"context"
	"database/sql"
	"encoding/json"
	"log"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"
)

// queuedEvent is a balance change.
type queuedEvent struct {
	User   string `json:"user"`
	Amount int    `json:"amount"`
}

// eventQueue queues events.
type eventQueue interface {
	Dequeue(ctx context.Context, queue string, value interface{}) error
}

type redisQueue struct{ c *redis.Client }

func (s *redisQueue) Dequeue(ctx context.Context, queue string, value interface{}) error {
	var elem string
	for elem == "" {
		res, err := s.c.BRPop(ctx, time.Second, queue).Result()
		if err == redis.Nil {
			continue
		}
		if err != nil {
			return err
		}
		elem = res[1]
	}
	return json.Unmarshal([]byte(elem), value)
}

type balanceWorker struct {
	store eventQueue
	db    *sql.DB
}

func (w *balanceWorker) Run(ctx context.Context) error {
	for {
		var ev queuedEvent
		if err := w.store.Dequeue(ctx, "events", &ev); err != nil { // want `auto-ack consumer popqueue.eventQueue.Dequeue \(commits by itself\) acks each message before handler balanceWorker.Run performs sql.DB.ExecContext`
			log.Printf("dequeue: %v", err)
			continue
		}
		if _, err := w.db.ExecContext(ctx, `UPDATE balances SET amount = amount + $1 WHERE user_id = $2`, ev.Amount, ev.User); err != nil { // want `in handler balanceWorker.Run is not guarded by a dedup check \(IDEM001\)`
			log.Printf("apply: %v", err)
		}
	}
}

func inlineWorker(ctx context.Context, rdb *redis.Client, db *sql.DB) error {
	for {
		res, err := rdb.BRPop(ctx, time.Second, "events").Result() // want `auto-ack consumer redis.Client.BRPop .* before handler inlineWorker`
		if err != nil {
			continue
		}
		var ev queuedEvent
		if err := json.Unmarshal([]byte(res[1]), &ev); err != nil {
			continue
		}
		if _, err := db.ExecContext(ctx, `UPDATE balances SET amount = amount + $1 WHERE user_id = $2`, ev.Amount, ev.User); err != nil { // want `in handler inlineWorker is not guarded by a dedup check \(IDEM001\)`
			log.Printf("apply: %v", err)
		}
	}
}

// idQueue pops order ids: PopID parses the id out of the reply, and the
// service's Next hands on what PopID returned (a wrapper of a wrapper).
type idQueue struct{ c *redis.Client }

func (q *idQueue) PopID(ctx context.Context) (int64, bool, error) {
	res, err := q.c.BRPop(ctx, time.Second, "orders").Result()
	if err != nil {
		return 0, false, err
	}
	id, err := strconv.ParseInt(res[1], 10, 64)
	return id, err == nil, err
}

type orderService struct {
	q  *idQueue
	db *sql.DB
}

func (s *orderService) Next(ctx context.Context) (int64, bool, error) {
	return s.q.PopID(ctx)
}

func (s *orderService) Run(ctx context.Context) {
	for {
		id, ok, err := s.Next(ctx) // want `auto-ack consumer popqueue.orderService.Next \(commits by itself\) acks each message before handler orderService.Run performs sql.DB.ExecContext`
		if err != nil || !ok {
			continue
		}
		if _, err := s.db.ExecContext(ctx, `UPDATE orders SET reminders = reminders + 1 WHERE id = $1`, id); err != nil { // want `in handler orderService.Run is not guarded by a dedup check \(IDEM001\)`
			log.Printf("remind: %v", err)
		}
	}
}

func startWorkers(rdb *redis.Client, db *sql.DB) {
	w := &balanceWorker{store: &redisQueue{c: rdb}, db: db}
	go w.Run(context.Background())
	go (&orderService{q: &idQueue{c: rdb}, db: db}).Run(context.Background())
	go inlineWorker(context.Background(), rdb, db)
}

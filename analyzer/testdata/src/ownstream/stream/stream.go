// Package stream is a service's own Redis-streams consumer: a reader
// fetches entries with XREADGROUP and queues them on a channel; workers
// take them off it, call the handler registered for the stream and XACK
// when it returns nil.
package stream

import (
	"context"

	"github.com/redis/go-redis/v9"
)

// HandlerFunc handles one entry of a stream.
type HandlerFunc func(ctx context.Context, id string, payload map[string]interface{}) error

type message struct {
	stream string
	id     string
	values map[string]interface{}
}

// Consumer reads the streams handlers are registered for.
type Consumer struct {
	rdb      *redis.Client
	group    string
	handlers map[string]HandlerFunc
	queue    chan message
}

// NewConsumer returns a consumer of group.
func NewConsumer(rdb *redis.Client, group string) *Consumer {
	return &Consumer{rdb: rdb, group: group, handlers: map[string]HandlerFunc{}, queue: make(chan message, 64)}
}

// Register sets the handler of a stream.
func (c *Consumer) Register(stream string, fn HandlerFunc) {
	c.handlers[stream] = fn
}

// Start runs the reader and the workers.
func (c *Consumer) Start(ctx context.Context, workers int) {
	go c.reader(ctx)
	for i := 0; i < workers; i++ {
		go c.worker(ctx)
	}
}

func (c *Consumer) reader(ctx context.Context) {
	streams := []string{}
	for s := range c.handlers {
		streams = append(streams, s)
	}
	for _, s := range c.handlers {
		_ = s
		streams = append(streams, ">")
	}
	for ctx.Err() == nil {
		res, err := c.rdb.XReadGroup(ctx, &redis.XReadGroupArgs{Group: c.group, Consumer: "c", Streams: streams}).Result()
		if err != nil {
			continue
		}
		for _, st := range res {
			for _, m := range st.Messages {
				c.queue <- message{stream: st.Stream, id: m.ID, values: m.Values}
			}
		}
	}
}

func (c *Consumer) worker(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case m := <-c.queue:
			h, ok := c.handlers[m.stream]
			if !ok {
				continue
			}
			err := func() (err error) {
				defer func() {
					if r := recover(); r != nil {
						err = context.Canceled
					}
				}()
				return h(ctx, m.id, m.values)
			}()
			if err != nil {
				continue
			}
			c.rdb.XAck(ctx, m.stream, c.group, m.id)
		}
	}
}

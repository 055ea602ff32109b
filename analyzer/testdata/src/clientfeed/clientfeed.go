// Package clientfeed: a consumer reads through the service's own
// interface over the client (for mocks), which the program fills with a
// *kafka.Reader, and queues what it read on a channel its caller made; the
// workers receiving from that channel handle messages.
package clientfeed

import (
	"context"
	"database/sql"
	"sync"

	"github.com/segmentio/kafka-go"
)

// Reader is what the consumer needs of kafka-go, to be mocked in tests.
type Reader interface {
	ReadMessage(ctx context.Context) (kafka.Message, error)
}

type consumer struct{ r Reader }

func newConsumer() *consumer {
	return &consumer{r: kafka.NewReader(kafka.ReaderConfig{Brokers: []string{"localhost:9092"}, GroupID: "g", Topic: "orders"})}
}

// consume queues each message read on out.
func (c *consumer) consume(ctx context.Context, out chan<- []byte) {
	for ctx.Err() == nil {
		m, err := c.r.ReadMessage(ctx)
		if err != nil {
			return
		}
		out <- m.Value
	}
}

// work inserts a row per message: no dedup check.
func work(ctx context.Context, db *sql.DB, in <-chan []byte, wg *sync.WaitGroup) {
	defer wg.Done()
	for body := range in {
		if _, err := db.ExecContext(ctx, `INSERT INTO orders (body) VALUES ($1)`, body); err != nil { // want `effect sql.DB.ExecContext "INSERT INTO orders \(body\) VALUES \(\$1\)" in handler work is not guarded`
			return
		}
	}
}

// Run wires the consumer to its workers.
func Run(ctx context.Context, db *sql.DB) {
	ch := make(chan []byte)
	wg := &sync.WaitGroup{}
	for i := 0; i < 4; i++ {
		wg.Add(1)
		go work(ctx, db, ch, wg)
	}
	newConsumer().consume(ctx, ch)
	wg.Wait()
}

// Package queue is a service's own persistent work queue, shaped like the
// ones large services write for themselves: items are serialized into a
// backing store on Push, popped and decoded by a dispatcher goroutine,
// batched and handed through a channel to workers, which call the handler
// registered with the queue. The handler returns the items it did not
// handle; they are pushed back. No broker client is involved: the queue is
// recognised by its shape (a package that serializes and decodes items and
// hands what it receives from a channel to a registered function).
package queue

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
)

// HandlerFunc handles a batch of items and returns those it did not handle.
type HandlerFunc[T any] func(items ...T) (unhandled []T)

// Queue is a persistent queue of items of type T.
type Queue[T any] struct {
	dir       string
	handler   HandlerFunc[T]
	safe      func(items ...T) []T
	popped    chan []byte
	batches   chan []T
	batchSize int
	buf       []T
}

// Create returns a queue named name whose items are handled by handler.
func Create[T any](ctx context.Context, name string, handler HandlerFunc[T]) *Queue[T] {
	q := &Queue[T]{dir: filepath.Join(os.TempDir(), name), handler: handler, popped: make(chan []byte), batches: make(chan []T), batchSize: 20}
	q.safe = func(items ...T) []T {
		defer func() { _ = recover() }()
		return q.handler(items...)
	}
	go q.pop(ctx)
	go q.run(ctx)
	go q.work(ctx)
	return q
}

// Push stores item in the queue.
func (q *Queue[T]) Push(item T) error {
	b, err := json.Marshal(item)
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(q.dir, "item"), b, 0o600)
}

func (q *Queue[T]) pop(ctx context.Context) {
	for ctx.Err() == nil {
		names, _ := os.ReadDir(q.dir)
		sort.Slice(names, func(i, j int) bool { return names[i].Name() < names[j].Name() })
		for _, n := range names {
			p := filepath.Join(q.dir, n.Name())
			b, err := os.ReadFile(p)
			if err != nil {
				continue
			}
			_ = os.Remove(p)
			q.popped <- b
		}
	}
}

func (q *Queue[T]) decode(b []byte) (t T, ok bool) {
	if err := json.Unmarshal(b, &t); err != nil {
		return t, false
	}
	return t, true
}

// run decodes what pop read and dispatches it to the workers in batches.
func (q *Queue[T]) run(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case b := <-q.popped:
			v, ok := q.decode(b)
			if !ok {
				continue
			}
			q.buf = append(q.buf, v)
			if len(q.buf) >= q.batchSize {
				q.dispatch()
			}
		}
	}
}

func (q *Queue[T]) dispatch() {
	batch := q.buf
	q.buf = nil
	q.batches <- batch
}

// work handles the batches.
func (q *Queue[T]) work(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case batch := <-q.batches:
			q.handle(batch)
		}
	}
}

func (q *Queue[T]) handle(batch []T) {
	unhandled := q.safe(batch...)
	for _, item := range unhandled {
		_ = q.Push(item)
	}
}

// Package esutil is a stub of github.com/elastic/go-elasticsearch/v8@v8.19.7 for analyzer tests: signatures mirror the real API (the bulk indexer; its config without the client and logger fields).
//
// Checked against the real package's type information; bodies return zero values.
package esutil

import (
	"context"
	"io"
	"time"
)

// BulkIndexer batches items and flushes them from its own workers.
type BulkIndexer interface {
	Add(context.Context, BulkIndexerItem) error
	Close(context.Context) error
	Flush(context.Context) error
	Stats() BulkIndexerStats
}

// BulkIndexerConfig configures a BulkIndexer.
type BulkIndexerConfig struct {
	NumWorkers    int
	FlushBytes    int
	FlushInterval time.Duration
	OnError       func(context.Context, error)
	Index         string
}

// BulkIndexerStats are a BulkIndexer's counters.
type BulkIndexerStats struct {
	NumAdded   uint64
	NumFlushed uint64
	NumFailed  uint64
}

// BulkIndexerItem is one action.
type BulkIndexerItem struct {
	Index      string
	Action     string
	DocumentID string
	Body       io.ReadSeeker

	OnSuccess func(context.Context, BulkIndexerItem, BulkIndexerResponseItem)
	OnFailure func(context.Context, BulkIndexerItem, BulkIndexerResponseItem, error)
}

// BulkIndexerResponseItem is one action's result.
type BulkIndexerResponseItem struct {
	Index      string `json:"_index"`
	DocumentID string `json:"_id"`
	Result     string `json:"result"`
	Status     int    `json:"status"`
}

func NewBulkIndexer(cfg BulkIndexerConfig) (BulkIndexer, error) { return nil, nil }

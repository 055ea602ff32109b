// Package searchx: a search index's document writes (Meilisearch) are by
// primary key, add-or-replace: no effect a redelivery repeats, but work a
// lost message loses.
package searchx

import (
	"context"
	"encoding/json"
	"log"

	"github.com/hibiken/asynq"
	"github.com/meilisearch/meilisearch-go"
)

type doc struct {
	ID    string `json:"id"`
	Title string `json:"title"`
}

var search = meilisearch.New("http://localhost:7700")

// Index re-indexes a document: a redelivery replaces it with itself.
func Index(ctx context.Context, t *asynq.Task) error {
	var d doc
	if err := json.Unmarshal(t.Payload(), &d); err != nil {
		return err
	}
	pk := "id"
	_, err := search.Index("docs").AddDocumentsWithContext(ctx, []doc{d}, &meilisearch.DocumentOptions{PrimaryKey: &pk})
	return err
}

// IndexLossy logs a failed write and reports success: the document is
// never indexed.
func IndexLossy(ctx context.Context, t *asynq.Task) error {
	var d doc
	if err := json.Unmarshal(t.Payload(), &d); err != nil {
		return err
	}
	if _, err := search.Index("docs").AddDocumentsWithContext(ctx, []doc{d}, nil); err != nil {
		log.Print(err)
	}
	return nil // want `handler IndexLossy returns nil when meilisearch.IndexManager.AddDocumentsWithContext fails`
}

// Remove deletes a document: idempotent.
func Remove(ctx context.Context, t *asynq.Task) error {
	_, err := search.Index("docs").DeleteDocumentWithContext(ctx, string(t.Payload()), nil)
	return err
}

// Register registers the tasks.
func Register(mux *asynq.ServeMux) {
	mux.HandleFunc("search:index", Index)
	mux.HandleFunc("search:index-lossy", IndexLossy)
	mux.HandleFunc("search:remove", Remove)
}

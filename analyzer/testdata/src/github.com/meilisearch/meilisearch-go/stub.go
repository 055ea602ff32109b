// Package meilisearch is a stub of github.com/meilisearch/meilisearch-go
// (v0.36): the signatures idemlint's catalog names.
package meilisearch

import (
	"context"
	"io"
)

// TaskInfo describes an enqueued task.
type TaskInfo struct{ TaskUID int64 }

// DocumentOptions are the options of a document write.
type DocumentOptions struct{ PrimaryKey *string }

// DocumentManager writes an index's documents.
type DocumentManager interface {
	AddDocuments(documentsPtr interface{}, opts *DocumentOptions) (*TaskInfo, error)
	AddDocumentsWithContext(ctx context.Context, documentsPtr interface{}, opts *DocumentOptions) (*TaskInfo, error)
	AddDocumentsInBatches(documentsPtr interface{}, batchSize int, opts *DocumentOptions) ([]TaskInfo, error)
	AddDocumentsInBatchesWithContext(ctx context.Context, documentsPtr interface{}, batchSize int, opts *DocumentOptions) ([]TaskInfo, error)
	AddDocumentsCsv(documents []byte, options *CsvDocumentsQuery) (*TaskInfo, error)
	AddDocumentsCsvWithContext(ctx context.Context, documents []byte, options *CsvDocumentsQuery) (*TaskInfo, error)
	AddDocumentsCsvInBatches(documents []byte, batchSize int, options *CsvDocumentsQuery) ([]TaskInfo, error)
	AddDocumentsCsvInBatchesWithContext(ctx context.Context, documents []byte, batchSize int, options *CsvDocumentsQuery) ([]TaskInfo, error)
	AddDocumentsCsvFromReaderInBatches(documents io.Reader, batchSize int, options *CsvDocumentsQuery) ([]TaskInfo, error)
	AddDocumentsCsvFromReaderInBatchesWithContext(ctx context.Context, documents io.Reader, batchSize int, options *CsvDocumentsQuery) ([]TaskInfo, error)
	AddDocumentsCsvFromReader(documents io.Reader, options *CsvDocumentsQuery) (*TaskInfo, error)
	AddDocumentsCsvFromReaderWithContext(ctx context.Context, documents io.Reader, options *CsvDocumentsQuery) (*TaskInfo, error)
	AddDocumentsNdjson(documents []byte, opts *DocumentOptions) (*TaskInfo, error)
	AddDocumentsNdjsonWithContext(ctx context.Context, documents []byte, opts *DocumentOptions) (*TaskInfo, error)
	AddDocumentsNdjsonInBatches(documents []byte, batchSize int, opts *DocumentOptions) ([]TaskInfo, error)
	AddDocumentsNdjsonInBatchesWithContext(ctx context.Context, documents []byte, batchSize int, opts *DocumentOptions) ([]TaskInfo, error)
	AddDocumentsNdjsonFromReader(documents io.Reader, opts *DocumentOptions) (*TaskInfo, error)
	AddDocumentsNdjsonFromReaderWithContext(ctx context.Context, documents io.Reader, opts *DocumentOptions) (*TaskInfo, error)
	AddDocumentsNdjsonFromReaderInBatches(documents io.Reader, batchSize int, opts *DocumentOptions) ([]TaskInfo, error)
	AddDocumentsNdjsonFromReaderInBatchesWithContext(ctx context.Context, documents io.Reader, batchSize int, opts *DocumentOptions) ([]TaskInfo, error)
	UpdateDocuments(documentsPtr interface{}, opts *DocumentOptions) (*TaskInfo, error)
	UpdateDocumentsWithContext(ctx context.Context, documentsPtr interface{}, opts *DocumentOptions) (*TaskInfo, error)
	UpdateDocumentsInBatches(documentsPtr interface{}, batchSize int, opts *DocumentOptions) ([]TaskInfo, error)
	UpdateDocumentsInBatchesWithContext(ctx context.Context, documentsPtr interface{}, batchSize int, opts *DocumentOptions) ([]TaskInfo, error)
	UpdateDocumentsCsv(documents []byte, options *CsvDocumentsQuery) (*TaskInfo, error)
	UpdateDocumentsCsvWithContext(ctx context.Context, documents []byte, options *CsvDocumentsQuery) (*TaskInfo, error)
	UpdateDocumentsCsvInBatches(documents []byte, batchsize int, options *CsvDocumentsQuery) ([]TaskInfo, error)
	UpdateDocumentsCsvInBatchesWithContext(ctx context.Context, documents []byte, batchsize int, options *CsvDocumentsQuery) ([]TaskInfo, error)
	UpdateDocumentsNdjson(documents []byte, opts *DocumentOptions) (*TaskInfo, error)
	UpdateDocumentsNdjsonWithContext(ctx context.Context, documents []byte, opts *DocumentOptions) (*TaskInfo, error)
	UpdateDocumentsNdjsonInBatches(documents []byte, batchsize int, opts *DocumentOptions) ([]TaskInfo, error)
	UpdateDocumentsNdjsonInBatchesWithContext(ctx context.Context, documents []byte, batchsize int, opts *DocumentOptions) ([]TaskInfo, error)
	UpdateDocumentsByFunction(req *UpdateDocumentByFunctionRequest) (*TaskInfo, error)
	UpdateDocumentsByFunctionWithContext(ctx context.Context, req *UpdateDocumentByFunctionRequest) (*TaskInfo, error)
	DeleteDocument(identifier string, opts *DocumentOptions) (*TaskInfo, error)
	DeleteDocumentWithContext(ctx context.Context, identifier string, opts *DocumentOptions) (*TaskInfo, error)
	DeleteDocuments(identifiers []string, opts *DocumentOptions) (*TaskInfo, error)
	DeleteDocumentsWithContext(ctx context.Context, identifiers []string, opts *DocumentOptions) (*TaskInfo, error)
	DeleteDocumentsByFilter(filter interface{}, opts *DocumentOptions) (*TaskInfo, error)
	DeleteDocumentsByFilterWithContext(ctx context.Context, filter interface{}, opts *DocumentOptions) (*TaskInfo, error)
	DeleteAllDocuments(opts *DocumentOptions) (*TaskInfo, error)
	DeleteAllDocumentsWithContext(ctx context.Context, opts *DocumentOptions) (*TaskInfo, error)
}

// CsvDocumentsQuery holds the options of a CSV write.
type CsvDocumentsQuery struct{ PrimaryKey string }

// UpdateDocumentByFunctionRequest is a request to update documents by a
// function.
type UpdateDocumentByFunctionRequest struct{ Function string }

// IndexManager manages an index.
type IndexManager interface {
	DocumentManager
}

// ServiceManager is the client.
type ServiceManager interface {
	Index(uid string) IndexManager
}

// New returns a client.
func New(host string) ServiceManager { return nil }

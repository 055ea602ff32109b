// Package mongo is a stub of go.mongodb.org/mongo-driver@v1.17.10 for analyzer tests: signatures mirror the real API.
//
// Generated from the real package's type information; bodies return zero values.
package mongo

import (
	"context"
	"errors"
	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/mongo/options"
	"go.mongodb.org/mongo-driver/mongo/readpref"
)

type Client struct {
}

func (c *Client) Database(name string, opts ...*options.DatabaseOptions) *Database { return nil }

func (c *Client) Disconnect(ctx context.Context) error { return nil }

func (c *Client) Ping(ctx context.Context, rp *readpref.ReadPref) error { return nil }

func Connect(ctx context.Context, opts ...*options.ClientOptions) (*Client, error) { return nil, nil }

func NewClient(opts ...*options.ClientOptions) (*Client, error) { return nil, nil }

type Database struct {
}

func (db *Database) Collection(name string, opts ...*options.CollectionOptions) *Collection {
	return nil
}

func (db *Database) Name() string { return "" }

type Collection struct {
}

func (coll *Collection) Name() string { return "" }

func (coll *Collection) InsertOne(ctx context.Context, document interface{}, opts ...*options.InsertOneOptions) (*InsertOneResult, error) {
	return nil, nil
}

func (coll *Collection) InsertMany(ctx context.Context, documents []interface{}, opts ...*options.InsertManyOptions) (*InsertManyResult, error) {
	return nil, nil
}

func (coll *Collection) UpdateOne(ctx context.Context, filter interface{}, update interface{}, opts ...*options.UpdateOptions) (*UpdateResult, error) {
	return nil, nil
}

func (coll *Collection) UpdateMany(ctx context.Context, filter interface{}, update interface{}, opts ...*options.UpdateOptions) (*UpdateResult, error) {
	return nil, nil
}

func (coll *Collection) UpdateByID(ctx context.Context, id interface{}, update interface{}, opts ...*options.UpdateOptions) (*UpdateResult, error) {
	return nil, nil
}

func (coll *Collection) ReplaceOne(ctx context.Context, filter interface{}, replacement interface{}, opts ...*options.ReplaceOptions) (*UpdateResult, error) {
	return nil, nil
}

func (coll *Collection) FindOneAndUpdate(ctx context.Context, filter interface{}, update interface{}, opts ...*options.FindOneAndUpdateOptions) *SingleResult {
	return nil
}

func (coll *Collection) FindOneAndReplace(ctx context.Context, filter interface{}, replacement interface{}, opts ...*options.FindOneAndReplaceOptions) *SingleResult {
	return nil
}

func (coll *Collection) FindOne(ctx context.Context, filter interface{}, opts ...*options.FindOneOptions) *SingleResult {
	return nil
}

func (coll *Collection) Find(ctx context.Context, filter interface{}, opts ...*options.FindOptions) (cur *Cursor, err error) {
	return nil, nil
}

func (coll *Collection) DeleteOne(ctx context.Context, filter interface{}, opts ...*options.DeleteOptions) (*DeleteResult, error) {
	return nil, nil
}

func (coll *Collection) DeleteMany(ctx context.Context, filter interface{}, opts ...*options.DeleteOptions) (*DeleteResult, error) {
	return nil, nil
}

func (coll *Collection) CountDocuments(ctx context.Context, filter interface{}, opts ...*options.CountOptions) (int64, error) {
	return 0, nil
}

func (coll *Collection) BulkWrite(ctx context.Context, models []WriteModel, opts ...*options.BulkWriteOptions) (*BulkWriteResult, error) {
	return nil, nil
}

type WriteModel interface {
	writeModel()
}

type BulkWriteResult struct {
	InsertedCount int64
	MatchedCount  int64
	ModifiedCount int64
	DeletedCount  int64
	UpsertedCount int64
	UpsertedIDs   map[int64]interface{}
}

type InsertOneModel struct {
	Document interface{}
}

func (iom *InsertOneModel) SetDocument(doc interface{}) *InsertOneModel { return nil }

func (_ *InsertOneModel) writeModel() {}

func NewInsertOneModel() *InsertOneModel { return nil }

type UpdateOneModel struct {
	Upsert *bool
	Filter interface{}
	Update interface{}
}

func (_ *UpdateOneModel) writeModel() {}

func (uom *UpdateOneModel) SetFilter(filter interface{}) *UpdateOneModel { return nil }

func (uom *UpdateOneModel) SetUpdate(update interface{}) *UpdateOneModel { return nil }

func (uom *UpdateOneModel) SetUpsert(upsert bool) *UpdateOneModel { return nil }

func NewUpdateOneModel() *UpdateOneModel { return nil }

type InsertOneResult struct {
	InsertedID interface{}
}

type InsertManyResult struct {
	InsertedIDs []interface{}
}

type UpdateResult struct {
	MatchedCount  int64
	ModifiedCount int64
	UpsertedCount int64
	UpsertedID    interface{}
}

type DeleteResult struct {
	DeletedCount int64 `bson:"n"`
}

type SingleResult struct {
}

func (sr *SingleResult) Decode(v interface{}) error { return nil }

func (sr *SingleResult) Err() error { return nil }

func (sr *SingleResult) Raw() (bson.Raw, error) { return nil, nil }

type Cursor struct {
}

func (c *Cursor) Next(ctx context.Context) bool { return false }

func (c *Cursor) Decode(val interface{}) error { return nil }

func (c *Cursor) All(ctx context.Context, results interface{}) error { return nil }

func (c *Cursor) Close(ctx context.Context) error { return nil }

func (c *Cursor) Err() error { return nil }

func IsDuplicateKeyError(err error) bool { return false }

func IsTimeout(err error) bool { return false }

var ErrNoDocuments = errors.New("mongo: no documents in result")

type WriteException struct {
	WriteConcernError *WriteConcernError
	WriteErrors       WriteErrors
	Labels            []string
	Raw               bson.Raw
}

func (mwe WriteException) Error() string { return "" }

func (mwe WriteException) HasErrorCode(code int) bool { return false }

func (mwe WriteException) HasErrorCodeWithMessage(code int, message string) bool { return false }

func (mwe WriteException) HasErrorLabel(label string) bool { return false }

func (mwe WriteException) HasErrorMessage(message string) bool { return false }

func (mwe WriteException) serverError() {}

type WriteError struct {
	Index   int
	Code    int
	Message string
	Details bson.Raw
	Raw     bson.Raw
}

func (we WriteError) Error() string { return "" }

func (we WriteError) HasErrorCode(code int) bool { return false }

func (we WriteError) HasErrorCodeWithMessage(code int, message string) bool { return false }

func (we WriteError) HasErrorLabel(string) bool { return false }

func (we WriteError) HasErrorMessage(message string) bool { return false }

func (we WriteError) serverError() {}

type LabeledError interface {
	error
	HasErrorLabel(string) bool
}

type WriteErrors []WriteError

func (we WriteErrors) Error() string { return "" }

type WriteConcernError struct {
	Name    string
	Code    int
	Message string
	Details bson.Raw
	Raw     bson.Raw
}

func (wce WriteConcernError) Error() string { return "" }

type ServerError interface {
	LabeledError
	HasErrorCode(int) bool
	HasErrorCodeWithMessage(int, string) bool
	HasErrorMessage(string) bool
	serverError()
}

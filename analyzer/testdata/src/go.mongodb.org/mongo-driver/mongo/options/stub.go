// Package options is a stub of go.mongodb.org/mongo-driver@v1.17.10 for analyzer tests: signatures mirror the real API.
//
// Generated from the real package's type information; bodies return zero values.
package options

type ClientOptions struct {
}

func (c *ClientOptions) ApplyURI(uri string) *ClientOptions { return nil }

func Client() *ClientOptions { return nil }

type DatabaseOptions struct {
}

type CollectionOptions struct {
}

type InsertOneOptions struct {
}

func InsertOne() *InsertOneOptions { return nil }

type InsertManyOptions struct {
}

func InsertMany() *InsertManyOptions { return nil }

type UpdateOptions struct {
	Upsert *bool
}

func (uo *UpdateOptions) SetUpsert(b bool) *UpdateOptions { return nil }

func Update() *UpdateOptions { return nil }

type ReplaceOptions struct {
	Upsert *bool
}

func (ro *ReplaceOptions) SetUpsert(b bool) *ReplaceOptions { return nil }

func Replace() *ReplaceOptions { return nil }

type FindOneAndUpdateOptions struct {
	ReturnDocument *ReturnDocument
	Upsert         *bool
}

func (f *FindOneAndUpdateOptions) SetUpsert(b bool) *FindOneAndUpdateOptions { return nil }

func (f *FindOneAndUpdateOptions) SetReturnDocument(rd ReturnDocument) *FindOneAndUpdateOptions {
	return nil
}

func FindOneAndUpdate() *FindOneAndUpdateOptions { return nil }

type FindOneAndReplaceOptions struct {
}

type ReturnDocument int8

const Before ReturnDocument = 0

const After ReturnDocument = 1

type FindOneOptions struct {
}

func FindOne() *FindOneOptions { return nil }

type FindOptions struct {
}

func Find() *FindOptions { return nil }

type DeleteOptions struct {
}

type CountOptions struct {
}

type BulkWriteOptions struct {
}

func BulkWrite() *BulkWriteOptions { return nil }

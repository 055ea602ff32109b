// Package postgrest is a stub of github.com/supabase-community/postgrest-go@v0.0.11 for analyzer tests: signatures mirror the real API.
//
// A subset: the client's From, the query builder's statements, a few
// filters and the Execute methods. Checked against the real package's
// source; bodies return zero values (the real ones send HTTP requests to
// a PostgREST server).
package postgrest

// countType is the integer type returned from execute functions when a count
// is requested.
type countType = int64

// Client is the PostgREST client.
type Client struct{}

// NewClient constructs a new client given a URL to a PostgREST instance.
func NewClient(rawURL, schema string, headers map[string]string) *Client { return &Client{} }

// From sets the table to query from.
func (c *Client) From(table string) *QueryBuilder { return &QueryBuilder{} }

// Rpc executes a Postgres function (a.k.a., Remote Prodedure Call), given the
// function name and, optionally, a body, returning the result as a string.
func (c *Client) Rpc(name string, count string, rpcBody interface{}) string { return "" }

// QueryBuilder describes a query to be executed.
type QueryBuilder struct{}

// ExecuteString runs the PostgREST query, returning the result as a JSON string.
func (q *QueryBuilder) ExecuteString() (string, countType, error) { return "", 0, nil }

// Execute runs the PostgREST query, returning the result as a byte slice.
func (q *QueryBuilder) Execute() ([]byte, countType, error) { return nil, 0, nil }

// ExecuteTo runs the PostgREST query, encoding the result to the supplied interface.
func (q *QueryBuilder) ExecuteTo(to interface{}) (countType, error) { return 0, nil }

// Select performs vertical filtering.
func (q *QueryBuilder) Select(columns, count string, head bool) *FilterBuilder {
	return &FilterBuilder{}
}

// Insert performs an insertion into the table.
func (q *QueryBuilder) Insert(value interface{}, upsert bool, onConflict, returning, count string) *FilterBuilder {
	return &FilterBuilder{}
}

// Upsert performs an upsert into the table.
func (q *QueryBuilder) Upsert(value interface{}, onConflict, returning, count string) *FilterBuilder {
	return &FilterBuilder{}
}

// Delete performs a deletion from the table.
func (q *QueryBuilder) Delete(returning, count string) *FilterBuilder { return &FilterBuilder{} }

// Update performs an update on the table.
func (q *QueryBuilder) Update(value interface{}, returning, count string) *FilterBuilder {
	return &FilterBuilder{}
}

// FilterBuilder describes a filter for a query.
type FilterBuilder struct{}

// ExecuteString runs the PostgREST query, returning the result as a JSON string.
func (f *FilterBuilder) ExecuteString() (string, countType, error) { return "", 0, nil }

// Execute runs the PostgREST query, returning the result as a byte slice.
func (f *FilterBuilder) Execute() ([]byte, countType, error) { return nil, 0, nil }

// ExecuteTo runs the PostgREST query, encoding the result to the supplied interface.
func (f *FilterBuilder) ExecuteTo(to interface{}) (countType, error) { return 0, nil }

// Eq filters rows whose column equals value.
func (f *FilterBuilder) Eq(column, value string) *FilterBuilder { return f }

// Single retrieves only one row from the result.
func (f *FilterBuilder) Single() *FilterBuilder { return f }

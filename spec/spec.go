package spec

import (
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// Version is the only spec version this package reads.
const Version = 1

// Effect kinds: how a consumer's side effect is made atomic with its dedup
// record.
const (
	// EffectSQL: the effect runs in the same SQL transaction as the dedup row.
	EffectSQL = "sql"
	// EffectRedis: the effect's commands are queued in the same MULTI/EXEC as
	// the dedup record.
	EffectRedis = "redis"
	// EffectExternal: the effect cannot share a transaction (an HTTP call); it
	// runs under a lease.
	EffectExternal = "external"
)

// Stores for the claims of external effects.
const (
	StoreSQL   = "sql"
	StoreRedis = "redis"
)

// Delivery modes of external effects.
const (
	// DeliveryAtLeastOnce: an expired lease is taken over and the effect may
	// run again.
	DeliveryAtLeastOnce = "at-least-once"
	// DeliveryAtMostOnce: an expired lease makes the key uncertain; the effect
	// never runs a second time without an operator.
	DeliveryAtMostOnce = "at-most-once"
)

// What an error from an external effect does to its key.
const (
	// OnErrorRelease deletes the claim, so a redelivery runs the effect again.
	OnErrorRelease = "release"
	// OnErrorKeep marks the key failed for good.
	OnErrorKeep = "keep"
)

// SQL client packages the generated code is written against (sql_package).
const (
	SQLPackageDatabaseSQL = "database/sql"
	SQLPackagePgx         = "pgx/v5"
)

// SQL dialects of the generated migrations (dialect).
const (
	DialectPostgres = "postgres"
	DialectMySQL    = "mysql"
	DialectSQLite   = "sqlite"
)

// Migration file formats (migrations.format).
const (
	// FormatGolangMigrate writes NNNN_name.up.sql and NNNN_name.down.sql.
	FormatGolangMigrate = "golang-migrate"
	// FormatGoose writes one annotated NNNN_name.sql file.
	FormatGoose = "goose"
	// FormatPlain writes plain SQL files, for any other tool or by hand.
	FormatPlain = "plain"
)

// Message field types (the values of message.fields).
const (
	TypeString  = "string"
	TypeInt     = "int"
	TypeInt32   = "int32"
	TypeInt64   = "int64"
	TypeUint32  = "uint32"
	TypeUint64  = "uint64"
	TypeBool    = "bool"
	TypeFloat64 = "float64"
	TypeTime    = "time"  // time.Time, RFC 3339 in JSON
	TypeBytes   = "bytes" // []byte, base64 in JSON
	TypeUUID    = "uuid"  // a string holding a canonical (lowercase) UUID
)

// The shortest durations a spec may set, which the guard runtime requires
// too (guard.NewConfig): a retention shorter than a minute (168ns, a typo
// for 168h) would forget every key at once, and a lease shorter than a
// second would be taken over while its effect runs.
const (
	MinRetention = time.Minute
	MinLease     = time.Second
)

// Defaults applied by Parse to settings the spec leaves out.
const (
	DefaultOutput            = "."
	DefaultSQLPackage        = SQLPackageDatabaseSQL
	DefaultTable             = "idem_keys"
	DefaultMigrationsDir     = "./migrations/idem"
	DefaultMigrationsFormat  = FormatGolangMigrate
	DefaultMigrationsVersion = 1
	DefaultRetention         = 168 * time.Hour

	// The defaults below apply to consumers with effect external only;
	// transactional consumers leave these settings empty.

	DefaultLease    = 30 * time.Second
	DefaultDelivery = DeliveryAtLeastOnce
	DefaultOnError  = OnErrorRelease
	DefaultStore    = StoreSQL
)

// Spec is a parsed, validated idem spec (version 1) with defaults applied.
type Spec struct {
	Version    int           // always 1
	Package    string        // Go package name of the generated code
	Output     string        // folder of the generated Go, slash-separated, relative to Dir (default ".")
	SQLPackage string        // SQLPackageDatabaseSQL (default) or SQLPackagePgx
	Dialect    string        // DialectPostgres, DialectMySQL, DialectSQLite, or "" when no consumer uses SQL
	Table      string        // dedup table (default idem_keys)
	Migrations Migrations    // where and how the dedup-table migrations are written
	Retention  time.Duration // default retention of all consumers (default 168h)
	Consumers  []Consumer    // in spec order; never empty

	File string // the spec's path as given to Load or Parse
	Dir  string // the folder holding the spec (filepath.Dir(File)); Output and Migrations.Dir are relative to it
}

// Migrations says where and how the migrations of the dedup table are written.
type Migrations struct {
	Dir     string // folder, slash-separated, relative to Spec.Dir (default ./migrations/idem)
	Format  string // FormatGolangMigrate (default), FormatGoose or FormatPlain
	Version int    // version number of the first file (default 1)
}

// Consumer is one guarded handler.
type Consumer struct {
	Name    string  // snake_case, unique in the spec; the dedup namespace
	Topic   string  // optional; documentation and example wiring
	Message Message // the message the handler decodes

	// Key lists the JSON names of the business-key fields, in key order.
	Key []string
	// Fingerprint lists the JSON names of the fields compared on a duplicate.
	// Parse fills in every declared field when the spec leaves it out (Resolve
	// does the same for message.type); an explicit empty list is kept empty
	// (not nil) and means "no fingerprint".
	Fingerprint []string

	Effect string // EffectSQL, EffectRedis or EffectExternal

	// Settings of external effects; empty (zero) for the other kinds.
	Store    string        // StoreSQL (default) or StoreRedis: where the claim lives
	Lease    time.Duration // how long a claim blocks duplicates (default 30s)
	Delivery string        // DeliveryAtLeastOnce (default) or DeliveryAtMostOnce
	OnError  string        // OnErrorRelease (default) or OnErrorKeep

	Retention time.Duration // how long outcomes are kept; 0 = Spec.Retention
	HashTag   string        // effect redis only: JSON name of the field whose value is the Redis Cluster hash tag

	Pos Position // position of the consumer's mapping in the spec
}

// Message is the message of a consumer: either declared fields, from which
// the generator writes a struct, or an existing Go type.
type Message struct {
	// Fields are the declared fields, in spec order. For a message.type they
	// are filled by Resolve: every exported JSON field of the struct whose
	// type the key encoding supports, in declaration order.
	Fields []Field
	// Type is the qualified Go type given instead of fields, as written:
	// "github.com/acme/shop/events.OrderCreated". Empty for declared fields.
	Type string
	// Resolved describes Type once Resolve found it; nil before that and
	// for declared fields.
	Resolved *GoType
	// Pos is the position of the value of message.type or message.fields.
	Pos Position
}

// Field returns the field with the given JSON name.
func (m Message) Field(name string) (Field, bool) {
	for _, f := range m.Fields {
		if f.Name == name {
			return f, true
		}
	}
	return Field{}, false
}

// Field is one message field.
type Field struct {
	Name string // JSON name
	// Type is one of the Type* constants. For a field of an existing Go type
	// it is the kind of the field's underlying type: a named type such as
	// `type OrderID string` is TypeString, so generated code must convert.
	Type string
	// GoName is the Go name of the field: GoName(Name) for declared fields,
	// the struct field's name for an existing Go type.
	GoName string
	// GoField is the selector of the field in an existing Go type, relative
	// to the message value ("OrderID", or "Meta.OrderID" for a field promoted
	// from an embedded struct). Empty for declared fields.
	GoField string
	Pos     Position // position of the field's name (or of message.type)
}

// GoType is an existing Go struct type named by message.type, as resolved
// by Resolve.
type GoType struct {
	PkgPath string // import path: "github.com/acme/shop/events"
	PkgName string // package name: "events"
	Name    string // type name: "OrderCreated"
}

// commonInitialisms is golint's list: parts of a snake_case name that GoName
// upper-cases instead of title-casing.
var commonInitialisms = map[string]bool{
	"ACL": true, "API": true, "ASCII": true, "CPU": true, "CSS": true, "DNS": true,
	"EOF": true, "GUID": true, "HTML": true, "HTTP": true, "HTTPS": true, "ID": true,
	"IP": true, "JSON": true, "LHS": true, "QPS": true, "RAM": true, "RHS": true,
	"RPC": true, "SLA": true, "SMTP": true, "SQL": true, "SSH": true, "TCP": true,
	"TLS": true, "TTL": true, "UDP": true, "UI": true, "UID": true, "UUID": true,
	"URI": true, "URL": true, "UTF8": true, "VM": true, "XML": true, "XMPP": true,
	"XSRF": true, "XSS": true,
}

// GoName converts a snake_case name to the exported Go name the generator
// uses: each part separated by "_" is title-cased, except golint's common
// initialisms (ID, URL, HTTP, JSON, SQL, UUID, …), which are upper-cased.
// Empty parts are dropped, so "a_b" and "a__b" both give "AB" (Parse reports
// such collisions). Examples: order_id → OrderID, sku → Sku, send_sms →
// SendSms, user_api_url → UserAPIURL.
func GoName(snake string) string {
	var b strings.Builder
	for part := range strings.SplitSeq(snake, "_") {
		if part == "" {
			continue
		}
		if u := strings.ToUpper(part); commonInitialisms[u] {
			b.WriteString(u)
			continue
		}
		r, size := utf8.DecodeRuneInString(part)
		b.WriteRune(unicode.ToUpper(r))
		b.WriteString(part[size:])
	}
	return b.String()
}

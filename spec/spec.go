package spec

import (
	"fmt"
	"go/token"
	"strconv"
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

// Partitioning of the dedup table (migrations.partition).
const (
	// PartitionNone keeps the dedup table in one table (the default).
	PartitionNone = "none"
	// PartitionDaily partitions it by day of expiry, so that purging drops
	// whole partitions (PostgreSQL only; see guard.WithDailyPartitions).
	PartitionDaily = "daily"
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
	DefaultKeyVersion        = 1

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
	// Partition is PartitionDaily for a dedup table partitioned by day of
	// expiry (PostgreSQL; guard.PartitionedTableSQL), or PartitionNone
	// (default; also the empty string).
	Partition string
}

// Consumer is one guarded handler.
type Consumer struct {
	Name    string  // snake_case, unique in the spec; with KeyVersion, the dedup namespace
	Topic   string  // optional; documentation and example wiring
	Message Message // the message the handler decodes

	// KeyVersion is the version of the consumer's keys (key_version, at
	// least 1; Parse sets 1 when the spec leaves it out, and 0 counts as 1).
	// A new version is a new namespace: see Namespace.
	KeyVersion int

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
	// Positions of the values of key, fingerprint and hash_tag; zero when
	// the spec leaves the setting out.
	KeyPos, FingerprintPos, HashTagPos Position
}

// Namespace returns the consumer's namespace: the name of its dedup
// records (the consumer column of the dedup table, the generated
// <Name>Consumer constant). It is the name for key version 1 and
// name@v<N> for version N ≥ 2, so that keys of two versions never meet.
func (c *Consumer) Namespace() string {
	if c.KeyVersion <= 1 {
		return c.Name
	}
	return c.Name + "@v" + strconv.Itoa(c.KeyVersion)
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
	// GoType is, for a field of an existing Go type, its Go type as the key
	// identity records it: qualified by package name, without spaces
	// ("events.OrderID", "string", "time.Time"). Empty for declared fields.
	GoType string
	Pos    Position // position of the field's name (or of message.type)
}

// GoType is an existing Go struct type named by message.type, as resolved
// by Resolve.
type GoType struct {
	PkgPath string // import path: "github.com/acme/shop/events"
	PkgName string // package name: "events"
	Name    string // type name: "OrderCreated"
}

// commonInitialisms is golint's list: words of a name that GoName
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

// GoName converts a name, a consumer's snake_case name or a message field's
// JSON name, to the exported Go name the generator gives it. It is the one
// rule of the generated names:
//
//  1. the name is split into words at "_", "-" and ".", and where the case
//     changes: before an upper-case letter that follows a lower-case letter
//     or a digit (orderId → order Id), and before the last upper-case letter
//     of a run that a lower-case letter follows (HTTPServer → HTTP Server);
//     digits stay in the word they follow (sha256Sum → sha256 Sum);
//  2. each word is title-cased (its first letter upper-case, the rest lower)
//     except golint's common initialisms (ID, URL, HTTP, JSON, SQL, UUID, …),
//     which are upper-cased;
//  3. the words are joined.
//
// Examples: order_id, order-id, orderId, order.id and ORDER_ID all give
// OrderID; sku → Sku; send_sms → SendSms; user_api_url → UserAPIURL;
// HTTPServer → HTTPServer; _id → ID. Empty words are dropped, so a_b and
// a__b both give AB, and "_" gives "". A result that is empty or does not
// start with a letter (2fa → 2fa) is no Go name: Parse reports it, and two
// fields of one message with the same Go name, at the field.
func GoName(name string) string {
	var b strings.Builder
	for _, w := range words(name) {
		if u := strings.ToUpper(w); commonInitialisms[u] {
			b.WriteString(u)
			continue
		}
		r, size := utf8.DecodeRuneInString(w)
		b.WriteRune(unicode.ToUpper(r))
		b.WriteString(strings.ToLower(w[size:]))
	}
	return b.String()
}

// words splits a name as GoName's first step does.
func words(name string) []string {
	var out []string
	for part := range strings.FieldsFuncSeq(name, func(r rune) bool { return r == '_' || r == '-' || r == '.' }) {
		runes := []rune(part)
		start := 0
		for i := 1; i < len(runes); i++ {
			prev, cur := runes[i-1], runes[i]
			next := rune(0)
			if i+1 < len(runes) {
				next = runes[i+1]
			}
			switch {
			case unicode.IsUpper(cur) && (unicode.IsLower(prev) || unicode.IsDigit(prev)),
				unicode.IsUpper(cur) && unicode.IsUpper(prev) && unicode.IsLower(next):
				out = append(out, string(runes[start:i]))
				start = i
			}
		}
		out = append(out, string(runes[start:]))
	}
	return out
}

// goNameProblem says why name has no Go name, or "".
func goNameProblem(name string) string {
	g := GoName(name)
	switch {
	case g == "":
		return fmt.Sprintf("%q has no Go name: it has no letters or digits", name)
	case !token.IsIdentifier(g) || !unicode.IsLetter([]rune(g)[0]):
		return fmt.Sprintf("%q has no Go name: %s would start with a digit; rename the field (or use message.type)", name, g)
	}
	return ""
}

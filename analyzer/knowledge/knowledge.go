// Package knowledge is what idemlint knows about client libraries — brokers,
// SQL drivers and ORMs, Redis, HTTP, mail, the idem runtime, telemetry — kept
// as data, apart from the engine that walks a program.
//
// Every entry names a function, method or type by its qualified name, the
// way go/types prints it:
//
//	net/http.Post                                      a function
//	(*database/sql.DB).ExecContext                     a method (pointer or not does not matter)
//	(github.com/IBM/sarama.ConsumerGroupSession).MarkMessage   an interface method
//	(github.com/redis/go-redis/v9.*).IncrBy            a method of any type of the package
//	go.uber.org/zap/...                                every function of a package and its subpackages
//
// and says what a call means to a message handler (its Role), with the
// arguments it is about named by parameter name ("query", "autoAck",
// "apply") or by position ("#1", receiver excluded). Adding a client is
// adding entries here and a stub of its API under the analyzer's testdata;
// a team adds its own functions with a rules file (package rules).
package knowledge

import (
	"fmt"
	"go/types"
	"strconv"
	"strings"
)

// Role is what a call means to a handler.
type Role uint8

// The roles.
const (
	Effect         Role = iota + 1 // a write or a call out; Mode says how it is classified
	Publish                        // publishes to a broker: an effect only with -publish
	Ack                            // acknowledges the message (or commits its offset)
	Nack                           // negative acknowledgement: redelivery; with Arg, the requeue flag: false drops the message unless dead-lettered (DeadLetters)
	Fetch                          // returns a message (or messages): a message source
	AutoAckConsume                 // starts a consumer; Arg is its autoAck bool
	AutoAckRead                    // reads and commits at once when the consumer auto-commits (AutoCommit)
	Subscribe                      // registers Arg as a callback acked on return unless ManualOption is given
	GuardInside                    // runs its callback Arg only after claiming Key (guard Do/Run, adapters)
	Claim                          // guard Claim: returns a lease whose Outcome decides
	Outcome                        // (*guard.Lease).Outcome
	SetNX                          // SET NX: bool result, true = fresh
	SetArgs                        // SET with SetArgs: NX when Arg holds "NX"
	RedisDel                       // deletes keys: a SET NX key deleted on the success path is a lock
	RedisLookup                    // a read of a key: check-then-act when it decides a branch
	RedisTx                        // TxPipelined/Watch: Arg is a callback that queues a MULTI
	Wait                           // waits for goroutines (or for a client's background work: a bulk indexer's Close)
	Background                     // hands an effect to the client's own background workers (a bulk indexer's Add): it happens after the call returns
	UniqueTest                     // tests an error for a unique violation
	Prepare                        // prepares a statement: Arg is the query
	NewRequest                     // builds an HTTP request: Arg is the method
	RowsAffected                   // rows affected by an Exec
	Scan                           // Scan of a QueryRow, Decode of a FindOne: fills its arguments from the row; its error tells a missing row
	RedisMark                      // a Redis write that records a key (SET, SADD, HSET …)
	Register                       // registers Arg as a message handler (a mux, a task server)
	AtMostOnce                     // registers Arg as the callback of a subscription the broker never delivers twice (core NATS)
	ExclusiveQueue                 // declares a queue that dies with its connection when Arg (a bool) is true: what is consumed from it is never redelivered after a crash
	Dedup                          // a function whose result is a dedup decision (rules file, -dedup)
	Telemetry                      // logging, metrics, tracing, error reporting: never a business effect
	Ignore                         // nothing to a handler: not an effect, not a failing step (rules file)
	Decode                         // decodes or validates: its failure is a poison message, not a lost effect
	Benign                         // classifies an error on purpose (errors.Is, guard.Permanent)
	HeaderSet                      // sets a request header: Arg is the name, Key the value
	NoReturn                       // never returns (os.Exit, log.Fatal)
	FreshValue                     // returns a value new on every call (uuid.New, time.Now)
	RandRead                       // fills its argument with random bytes
	ClockMethod                    // a method of the clock's value that keeps its resolution (UnixNano)
	Serialize                      // encodes a value to bytes for a store or the wire (json.Marshal, gob, protobuf)
	Deserialize                    // decodes bytes back into a value (json.Unmarshal …): with Serialize, the mark of a persistent queue
	RowWrite                       // writes the row Arg (a model value) without being an effect (an ORM update, save): the columns its chain or value names (state checks)
	RowLookup                      // reads one document or row into Arg (or, with no Arg, into what its result's Scan is given): the row, whose fields carry its state (state checks)
	Reply                          // reads a command's reply (go-redis Val, Result, Err): what it returns, by its signature, is the command's value and error
	Collection                     // returns the handle of the collection named by Arg (MongoDB's Database.Collection)
	Model                          // names the model (and so the table) of a builder chain by its argument Arg (gorm's Model)
	Columns                        // names the columns a builder chain writes, in Arg and the arguments after it (xorm's Cols, gorm's Select)
	KVWrite                        // writes a key of a key-value store by overwrite or compare-and-set (a NATS KV Put): no effect, but work a lost message loses
	Commit                         // commits the SQL transaction it is called on: what was written on it stays; a transaction never committed is rolled back
	CompleteTx                     // completes (acks) a job in the SQL transaction Arg: the ack commits or rolls back with what was written on it (River's JobCompleteTx)
	ContextValue                   // returns a context that carries the value Arg, from the context Key (context.WithValue): a transaction handed to repositories that way is followed
)

// consumes reports whether r is a role of a broker's consumer side.
func (r Role) consumes() bool {
	switch r {
	case Fetch, AutoAckConsume, AutoAckRead, Subscribe, Register, AtMostOnce:
		return true
	}
	return false
}

var roleNames = map[Role]string{
	Effect: "effect", Publish: "publish", Ack: "ack", Nack: "nack", Fetch: "fetch",
	AutoAckConsume: "auto-ack consume", AutoAckRead: "auto-commit read", Subscribe: "subscribe",
	GuardInside: "guard", Claim: "claim", Outcome: "outcome", SetNX: "set nx", SetArgs: "set args",
	RedisDel: "redis del", RedisLookup: "redis lookup", RedisTx: "redis tx", Wait: "wait", Background: "background",
	UniqueTest: "unique test", Prepare: "prepare", NewRequest: "new request", RowsAffected: "rows affected",
	Scan: "scan", RedisMark: "redis mark", Register: "register", AtMostOnce: "at-most-once", ExclusiveQueue: "exclusive queue", Dedup: "dedup", Telemetry: "telemetry",
	Ignore: "ignore", Decode: "decode", Benign: "benign", HeaderSet: "header set", NoReturn: "no return",
	ContextValue: "context value", FreshValue: "fresh value", RandRead: "rand read", ClockMethod: "clock method",
	Serialize: "serialize", Deserialize: "deserialize", RowLookup: "row lookup", RowWrite: "row write",
	Reply: "reply", Collection: "collection", Model: "model", Columns: "columns", KVWrite: "kv write", Commit: "commit", CompleteTx: "complete tx",
}

// String names the role.
func (r Role) String() string {
	if n, ok := roleNames[r]; ok {
		return n
	}
	return "role(" + strconv.Itoa(int(r)) + ")"
}

// Mode says how an Effect is classified.
type Mode uint8

// The modes.
const (
	Always         Mode = iota // always a non-idempotent effect
	Insert                     // an insert: its duplicate-key error tells a repeat (MongoDB's InsertOne)
	SQLExec                    // SQL text in Arg: classified
	SQLQuery                   // SQL text in Arg: an effect only when the text writes
	SQLStmt                    // a prepared statement: text from its Prepare call
	SQLBuilt                   // a builder's run method (PostgREST's Execute): the statement its receiver's chain builds (QueryBuilders), classified as SQLExec's text
	GormCreate                 // an ORM create: an insert unless its clauses say otherwise (ORM)
	GormUpdate                 // an ORM update: accumulating when an expression refers to its column
	MongoUpdate                // update document in Arg: accumulating operators ($inc, $push …)
	HTTPDo                     // request in Arg: a POST without an Idempotency-Key header
	HTTPPost                   // a POST with no way to set a header
	RedisCommand               // a Redis command named by the string in Arg (redigo's Do): classified by RedisCommands
	RPCMethod                  // a remote call to the full method in Arg ("/pkg.Service/Method"): an effect unless its name reads like a read or an overwrite (ReadVerbs, OverwriteVerbs)
	RequestSubject             // a request-reply on the subject in Arg (NATS Request): a remote call when a word of the subject is a write verb (warehouse.1.reservation.create), else a publish
)

// Kind is the class of an effect, used in messages and to decide whether an
// effect can share a transaction with a dedup record.
type Kind uint8

// The kinds.
const (
	SQL Kind = iota + 1
	Redis
	Mongo
	HTTP
	SMTP
	PublishKind
	Custom
	RPC
	Document // a document store's write (Firestore)
)

// String describes the kind for messages.
func (k Kind) String() string {
	switch k {
	case SQL:
		return "SQL write"
	case Redis:
		return "Redis write"
	case Mongo:
		return "MongoDB write"
	case HTTP:
		return "HTTP call"
	case SMTP:
		return "email"
	case PublishKind:
		return "publish"
	case RPC:
		return "RPC call"
	case Document:
		return "document write"
	}
	return "effect"
}

// Transactional reports whether effects of this kind can share a
// transaction with a dedup record of the same kind.
func (k Kind) Transactional() bool { return k == SQL || k == Redis }

// Rule is one entry: a function, method or package and its role.
type Rule struct {
	Name string // qualified name (see the package doc)
	Role Role
	Mode Mode   // Effect: how it is classified
	Kind Kind   // Effect: what it writes
	Arg  string // the parameter the role is about: a name, "#N" (position, receiver excluded), "recv", or ""
	Key  string // the parameter holding the dedup key, as Arg
	// Into and Cols, for an SQL Effect that names its table by arguments
	// (pgx's CopyFrom(ctx, tableName, columnNames, rows)): the parameters
	// (as Arg) holding the table's name and the columns written, read
	// where the call gives constant strings.
	Into, Cols string
	Client     string // the client library, for messages
	// Fresh is the Role of a Dedup rule's result: "fresh" (a true bool or a
	// nil error means the key is new, the default) or "duplicate".
	Fresh string
	// WhenZero names a parameter (as Arg) the rule holds for only when
	// the call gives it the constant 0: an MQTT subscription at QoS 0 is
	// at-most-once, one at QoS 1 or 2 is redelivered.
	WhenZero string
	// ManualOption, for Subscribe: the option whose presence among the
	// call's options means the handler acks by itself (nats.ManualAck).
	ManualOption string
	// CommitsAlways, for Register: the consumer acks a handler's message
	// whatever the handler returns (dp-kafka's RegisterHandler): a failure
	// the handler returns is lost all the same.
	CommitsAlways bool
	// AutoCommit, for AutoAckRead: how to tell from the consumer's
	// constructor whether reads commit by themselves.
	AutoCommit *AutoCommit
	// Pos is where a rule from a rules file was written ("file:line:col").
	Pos string
	// Learned: found in the program's code (a wrapper of a client's, see
	// the analyzer), not catalogued: its package stays an unknown one.
	Learned bool

	pkg, recv, name string // parsed Name; recv "*" any type; name "..." every function
	sub             bool   // Name ended in /...: subpackages too
}

// AutoCommit describes how a consumer's constructor decides whether reads
// commit by themselves.
type AutoCommit struct {
	Ctor string // the constructor's name (NewReader, NewClient, NewConsumer)
	// GroupField: a field of the constructor's config struct; reads commit
	// when it is set to anything but "" (kafka-go's GroupID). A reader that
	// cannot be traced to its constructor counts as committing.
	GroupField string
	// ManualOptions: options (functions called among the constructor's
	// arguments) that turn automatic commits off; GroupOptions: options
	// that make a consumer group, without which nothing is committed.
	ManualOptions, GroupOptions []string
	// ManualKeys: config map keys that turn automatic commits off
	// (confluent's enable.auto.commit). Set, the constructor is traced.
	ManualKeys []string
	// Always: every read commits, whatever the constructor (a wrapper whose
	// own reader commits as it reads).
	Always bool
}

// Message is a broker message type.
type Message struct {
	Type   string // qualified type name: github.com/rabbitmq/amqp091-go.Delivery
	Client string
	// ReturnAck: handlers of this message are acked by returning nil (asynq,
	// watermill router handlers, RocketMQ push consumers).
	ReturnAck bool
	// Offsets: acks are offsets, cumulative per partition (Kafka): acking
	// a later message acks every earlier one, so a failed message the
	// handler goes past without stopping is lost.
	Offsets bool
	// Learned: found in the program's code (a wrapper's message type), not
	// catalogued: its package stays an unknown one.
	Learned bool
}

// TypeRole is what a named type is to the engine.
type TypeRole uint8

// The type roles.
const (
	TxType     TypeRole = iota + 1 // an SQL transaction
	PoolType                       // a pool or client: every statement is its own transaction
	ORMDB                          // an ORM handle: a transaction only when made by Begin or handed to a Transaction callback
	HeaderType                     // an HTTP header map
	StmtType                       // a prepared SQL statement
)

// Type is a named type and its role.
type Type struct {
	Name string // qualified: database/sql.Tx
	Role TypeRole
}

// Sentinel classes: what comparing an error with a sentinel tells.
const (
	NoRows = "norows" // the row or key does not exist
	DupKey = "dupkey" // a unique violation
)

// ORM describes the query builder of an ORM (gorm), whose creates and
// updates are classified by the calls that built them.
type ORM struct {
	Pkg       string // the builder's package
	ClausePkg string // the package of its clause types
	Clauses   string // the method that adds clauses
	Where     string // the method that adds a condition
	Expr      string // the function that makes an SQL expression
	Begin     string // the method that starts a transaction
	// Transaction: the method that runs its callback in a transaction,
	// rolled back when the callback returns an error (gorm's Transaction).
	Transaction string
	// Conflict clause: its type, the field that makes a create a dedup
	// insert, and the fields that make it an overwriting upsert.
	Conflict, DoNothing string
	Upsert              []string
	// Insert clause: its type and the field holding a modifier (IGNORE).
	Insert, Modifier string
	// For a builder that takes the conflict clause as text (bun's
	// On("CONFLICT (id) DO NOTHING")), the method that takes it; the
	// method that makes the insert an INSERT IGNORE; the method that names
	// the row (its argument is the key of a dedup insert).
	OnText, Ignore, Model string
	// The fields of the builder a finished chain reports through: its
	// error and the rows it affected (gorm's Error, RowsAffected).
	ErrorField, RowsField string
}

// MongoOps lists the update operators of a document store.
type MongoOps struct {
	Accumulating []string // $inc, $push …: a repeat changes the value again
	Setting      []string // $set, $unset …: a repeat leaves the same value
}

// Base is the whole of the data: what Default is built from.
type Base struct {
	Rules     []Rule
	Messages  []Message
	Types     []Type
	Sentinels map[string]string // qualified variable -> NoRows or DupKey
	// PerDelivery: fields of a delivery that change on every redelivery of
	// one message ("github.com/rabbitmq/amqp091-go.Delivery.DeliveryTag").
	PerDelivery []string
	// UniqueCodes: error codes of unique violations, as strings (23505) or
	// integers (1062).
	UniqueCodes []string
	ORMs        []ORM
	Mongo       MongoOps
	// PublishTables: words that make a table an outbox or a queue; an
	// insert into one publishes a message (an effect only with -publish).
	PublishTables []string
	// BookkeepingTables: patterns (path.Match, on the lowercased name
	// without its schema) of tables that record what happened rather than
	// being the business state: audit trails, logs of events or of status
	// changes. A write to one is no business effect (as a log line is not)
	// and its failure loses nothing a redelivery must redo.
	BookkeepingTables []string
	// BookkeepingColumns: patterns (path.Match, on the lowercased column)
	// of columns that record how a row's thing is doing rather than what
	// it is: health, a heartbeat, when it was last checked or touched. An
	// UPDATE that sets only such columns (UPDATE connections SET health =
	// $1, last_check_at = $2, updated_at = NOW()) is bookkeeping too.
	BookkeepingColumns []string
	// RedisCommands: Redis commands (upper case) that a client naming its
	// command by a string (redigo) runs as an effect (a repeat changes the
	// value again) or publishes with.
	RedisCommands RedisCommands
	// DeadLetters: strings whose presence in a program (a queue argument)
	// means it declares a dead-letter exchange: a Nack whose requeue Arg
	// is false then dead-letters the message instead of dropping it.
	DeadLetters []string
	// SQLShapes: the methods, by name, of a user's interface shaped like
	// database/sql's or pgx's (sqlc's DBTX): ctx, a query string, variadic
	// arguments. A call of one runs that SQL; the Mode says how it is read.
	SQLShapes map[string]Mode
	// RPCOptions: the types of a generated RPC client's trailing variadic
	// options (grpc.CallOption, aws-sdk-go's request.Option). A call of a
	// dependency's method whose last parameter is ...T, or of an interface
	// method of that shape with no implementation in the program, calls the
	// remote method of its name.
	RPCOptions []string
	// SDKPackages: package path prefixes of generated remote-service SDKs
	// (the AWS services of aws-sdk-go and aws-sdk-go-v2). Their code is not
	// analysed: a client method ending in ...func(*Options), Options being a
	// type of the client's own package (aws-sdk-go-v2), or in one of
	// RPCOptions (aws-sdk-go's request.Option) is a remote call.
	SDKPackages []string
	// Computations: package path prefixes of model-inference SDKs (LLM
	// completions, embeddings, classification). A call computes an answer
	// and changes nothing a redelivery could repeat: no effect, though its
	// failure is a failing step. Their code is not analysed.
	Computations []string
	// QueryBuilders: SQL builders whose rendered text (Build) is a
	// statement of the builder's kind.
	QueryBuilders []QueryBuilder
	// EventShapes: the event structs a serverless platform decodes an
	// event into before it calls an exported function of the program by
	// its deployed name, with no registration in the code (Cloud
	// Functions' background functions: func F(ctx, m PubSubMessage)
	// error, PubSubMessage{Data []byte}).
	EventShapes []EventShape
	// GeneratedQueries: the query and create builders an ORM generates
	// into the user's module (ent's UserQuery, UserCreate), known by their
	// shape since their package is the user's.
	GeneratedQueries []GeneratedQuery
	// ReadVerbs: name prefixes of remote methods that only read (GetUser,
	// ListOrders); OverwriteVerbs: of those whose repeat leaves the same
	// state, as an HTTP PUT or DELETE (SetState, DeleteOrder). Another
	// remote method is an effect.
	ReadVerbs, OverwriteVerbs []string
	// ComputeVerbs: name prefixes of functions that only compute from what
	// they are given, sending it to a model or a service (EmbedChunks,
	// TranslateText, ClassifyTicket): read as ReadVerbs are, so an HTTP POST
	// they make is a query, not an effect.
	ComputeVerbs []string
	// ComputeEndpoints: ends of URL paths of model inference APIs that
	// only compute from what they are sent (OpenAI's /v1/embeddings and
	// /v1/chat/completions, Gemini's :generateContent, Ollama's
	// /api/generate): an HTTP POST to one is a query, not an effect.
	ComputeEndpoints []string
	// CredentialVerbs: first words of functions that log in
	// (Login, SignIn, Authenticate); CredentialWords: words of the names of
	// functions that get a credential (RefreshAccessToken, postToken,
	// AccessTokenFor) unless their first word is one of
	// CredentialWriteVerbs (SaveToken, RevokeToken, SendToken). An HTTP
	// POST such a function makes asks for a credential and changes nothing
	// a repeat could double.
	CredentialVerbs, CredentialWords, CredentialWriteVerbs []string
	// KeyFields: names of request fields that carry an idempotency key
	// (a gRPC request's IdempotencyKey): the service drops a repeat that
	// sends the same key. Compared without case, "_" and "-".
	KeyFields []string
	// KeyHeaders: HTTP headers that carry an idempotency key
	// (Idempotency-Key): a provider drops a repeated request that sends
	// the same one, or a webhook's event id (the receiver drops a delivery
	// it has seen). Compared in canonical form; an entry starting with "*"
	// matches the end of the name ("*-Event-Id").
	KeyHeaders []string
}

// QueryBuilder describes a SQL builder type: the text its Build methods
// return is read as the statement Stmt (or the one a Verbs method names)
// on the table the Verbs method is given, accumulating when a method of
// Accumulate is called on the builder (an UPDATE … SET n = n + 1).
type QueryBuilder struct {
	Type       string            // the builder: github.com/huandu/go-sqlbuilder.UpdateBuilder
	Stmt       string            // the statement's start: "UPDATE", "INSERT INTO", "DELETE FROM", "SELECT * FROM"
	Build      []string          // methods that render the text: Build
	Verbs      map[string]string // methods that name the table (first argument) → the statement's start
	Accumulate []string          // methods that make an update accumulate: Incr, Add
	Suffix     []string          // methods whose text (first argument) ends the statement: squirrel's Suffix("ON CONFLICT (id) DO NOTHING")
	Options    []string          // methods whose texts follow the statement's verb: squirrel's Options("IGNORE")
	Chain      []string          // the other types of the chain, whose methods lead to Type: PostgREST's QueryBuilder (From(t).Insert(v, …) → FilterBuilder)
	From       []string          // methods whose first argument names the table when the verbs name none: PostgREST's From
	Upserts    map[string]int    // verbs that write an upsert: the index of the bool argument that makes one (-1: always), PostgREST's Upsert and Insert(v, true, …)
}

// EventShape describes a program's struct that a platform decodes an
// event into: its name (compared without case) and a []byte field of that
// name holding the payload. A function of the shape's client is acked by
// returning nil.
type EventShape struct {
	Name   string // PubSubMessage
	Field  string // Data
	Client string // cloud functions
}

// GeneratedQuery describes an ORM's generated query builders: a struct
// named <Entity><Suffix> whose Predicates field is a slice of functions of
// one *Selector. Its Lookups methods run the query; the entity's package
// (imported by the builder's, named as the entity in lower case) declares
// the table as the constant TableConst. Its create builders hand the graph
// layer a CreateSpec, made by SpecCtor from the table (its first
// argument) or as a literal with the table in the field SpecTable.
type GeneratedQuery struct {
	Suffix     string            // Query
	Predicates string            // predicates
	Selector   string            // entgo.io/ent/dialect/sql.Selector
	Lookups    map[string]Lookup // Only, Exist, Count … → what the method returns
	TableConst string            // Table
	CreateSpec string            // entgo.io/ent/dialect/sql/sqlgraph.CreateSpec
	SpecCtor   string            // NewCreateSpec
	SpecTable  string            // Table
}

// Lookup is what a generated query's terminal method returns.
type Lookup string

// The lookups of a generated query.
const (
	LookupRow    Lookup = "row"    // the row, or a not-found error (Only, First)
	LookupID     Lookup = "id"     // its id, or a not-found error (OnlyID)
	LookupExists Lookup = "exists" // whether a row exists (Exist)
	LookupCount  Lookup = "count"  // how many rows match (Count)
)

// RedisCommands classifies Redis commands by name.
type RedisCommands struct {
	Effects []string // INCR, RPUSH …
	Publish []string // PUBLISH, XADD …
}

// parseName splits a qualified name into package path, receiver type and
// function name.
func parseName(s string) (pkg, recv, name string, sub bool, err error) {
	if rest, ok := strings.CutPrefix(s, "("); ok {
		i := strings.Index(rest, ")")
		if i < 0 || !strings.HasPrefix(rest[i:], ").") {
			return "", "", "", false, fmt.Errorf("%q: want (pkg.Type).Method", s)
		}
		qual, meth := strings.TrimPrefix(rest[:i], "*"), rest[i+2:]
		dot := strings.LastIndex(qual, ".")
		if dot <= 0 || dot == len(qual)-1 || meth == "" || !ident(meth) {
			return "", "", "", false, fmt.Errorf("%q: want (pkg.Type).Method", s)
		}
		recv = qual[dot+1:]
		if recv != "*" && !ident(recv) {
			return "", "", "", false, fmt.Errorf("%q: %q is not a type name", s, recv)
		}
		return qual[:dot], recv, meth, false, nil
	}
	if p, ok := strings.CutSuffix(s, "/..."); ok {
		if p == "" {
			return "", "", "", false, fmt.Errorf("%q: want a package path before /...", s)
		}
		return p, "", "...", true, nil
	}
	dot := strings.LastIndex(s, ".")
	slash := strings.LastIndex(s, "/")
	if dot <= slash || dot == len(s)-1 {
		// a bare package path: every function of the package
		if s == "" || strings.ContainsAny(s, " ()") {
			return "", "", "", false, fmt.Errorf("%q: want pkg.Func, (pkg.Type).Method or a package path", s)
		}
		return s, "", "...", false, nil
	}
	if !ident(s[dot+1:]) {
		return "", "", "", false, fmt.Errorf("%q: %q is not a function name", s, s[dot+1:])
	}
	return s[:dot], "", s[dot+1:], false, nil
}

// CheckName reports what is wrong with a qualified name, nil if nothing: a
// function, a method, or (when packages is true) a whole package.
func CheckName(name string, packages bool) error {
	_, _, fn, _, err := parseName(name)
	if err != nil {
		return err
	}
	if fn == "..." && !packages {
		return fmt.Errorf("%q: want pkg.Func or (pkg.Type).Method, not a package", name)
	}
	return nil
}

func ident(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		if r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && r >= '0' && r <= '9' || r > 127 {
			continue
		}
		return false
	}
	return true
}

// Package returns the import path the rule is about.
func (r *Rule) Package() string { return r.pkg }

// Recv returns the receiver type name of a method rule ("*" for any type of
// the package), "" for a function or a package.
func (r *Rule) Recv() string { return r.recv }

// Func returns the function or method name, "..." for a package rule.
func (r *Rule) Func() string { return r.name }

// WholePackage reports whether the rule covers every function of its
// package (and, for a name ending in /..., of its subpackages).
func (r *Rule) WholePackage() bool { return r.name == "..." }

// Param returns the index (receiver excluded) of the parameter spec names
// in fn's signature: a parameter name, "#N", or "recv" (-1, the receiver);
// -2 when spec is empty or names no parameter.
func Param(fn *types.Func, spec string) int {
	switch spec {
	case "":
		return -2
	case "recv":
		return -1
	}
	if n, ok := strings.CutPrefix(spec, "#"); ok {
		i, err := strconv.Atoi(n)
		if err != nil || i < 0 {
			return -2
		}
		return i
	}
	sig, ok := fn.Origin().Type().(*types.Signature)
	if !ok {
		return -2
	}
	for i := 0; i < sig.Params().Len(); i++ {
		if sig.Params().At(i).Name() == spec {
			return i
		}
	}
	return -2
}

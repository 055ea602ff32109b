package analyzer

import (
	"go/types"
	"strings"
)

// The catalog: what idemlint knows about client libraries, kept as data.
//
// A rule names a function or method by import path, receiver type name and
// method name, and gives it a role. Interface methods (sarama's
// ConsumerGroupSession, jetstream.Msg, go-redis's Cmdable) are matched by the
// interface that declares them, never by static callee, so calls through the
// interface and through a concrete type both match. A receiver of "*" matches
// any type of the package (go-redis declares its commands on an unexported
// cmdable type and on several interfaces).

// role is what a catalogued call means to a handler.
type role uint8

const (
	roleEffect         role = iota + 1 // a write or a call out; mode says how to classify it
	rolePublish                        // publish/produce: an effect only with -publish
	roleAck                            // acknowledges the message (or commits its offset)
	roleNack                           // negative acknowledgement: redelivery
	roleFetch                          // returns a message (or messages): a message source
	roleAutoAckConsume                 // starts a consumer; arg is the autoAck bool argument
	roleAutoAckRead                    // reads and commits at once (kafka-go ReadMessage with a GroupID)
	roleSubscribe                      // registers arg as a callback that is acked on return unless ManualAck
	roleGuardInside                    // runs its callback arg only after claiming key (guard Do/Run)
	roleClaim                          // guard Claim: returns a lease whose Outcome decides
	roleOutcome                        // (*guard.Lease).Outcome
	roleSetNX                          // SET NX: bool result, true = fresh
	roleSetArgs                        // SET with SetArgs: NX when Mode is "NX"
	roleRedisDel                       // deletes keys: a SET NX key deleted on the success path is a lock
	roleRedisLookup                    // a read of a key: check-then-act when it decides a branch
	roleRedisTx                        // TxPipelined/Watch: arg is a callback that queues a MULTI
	roleWait                           // waits for goroutines
	roleUniqueTest                     // tests an error for a unique violation
	rolePrepare                        // prepares a statement: arg is the query
	roleNewRequest                     // builds an HTTP request: arg is the method
	roleRowsAffected                   // rows affected by an Exec
	roleScan                           // Scan of a QueryRow
	roleRedisMark                      // a Redis write that records a key (SET, SADD, HSET …)
)

// mode says how an effect rule is classified.
type mode uint8

const (
	modeAlways      mode = iota // always a non-idempotent effect
	modeSQLExec                 // SQL text in arg: classified (sqlclass.go)
	modeSQLQuery                // SQL text in arg: an effect only when the text writes
	modeSQLStmt                 // prepared statement: text from the Prepare call
	modeGormCreate              // gorm Create: an insert unless OnConflict{DoNothing|UpdateAll}
	modeGormUpdate              // gorm Update/UpdateColumn(s): accumulating when a gorm.Expr refers to its column
	modeMongoUpdate             // update document in arg: accumulating operators ($inc, $push, $mul …)
	modeHTTPDo                  // request in arg: POST/PATCH without an Idempotency-Key header
	modeHTTPPost                // http.Post, Client.Post, PostForm: no way to set a header
)

// effectKind is the class of an effect, used in messages and for IDEM006.
type effectKind uint8

const (
	kindSQL effectKind = iota + 1
	kindRedis
	kindMongo
	kindHTTP
	kindSMTP
	kindPublish
	kindCustom
)

func (k effectKind) String() string {
	switch k {
	case kindSQL:
		return "SQL write"
	case kindRedis:
		return "Redis write"
	case kindMongo:
		return "MongoDB write"
	case kindHTTP:
		return "HTTP call"
	case kindSMTP:
		return "email"
	case kindPublish:
		return "publish"
	}
	return "effect"
}

// store reports whether two effects of this kind can share a transaction
// with a dedup record of the same kind.
func (k effectKind) transactional() bool { return k == kindSQL || k == kindRedis }

type rule struct {
	pkg, recv, name string
	role            role
	mode            mode
	kind            effectKind
	arg             int // the argument the role is about (query, callback, message, autoAck…); -1 receiver
	key             int // the key argument of a dedup check; -1 none
	client          string
}

// catalog indexes rules by (pkg, recv, name).
type catalog struct {
	rules    map[string][]*rule
	messages map[string]string // "pkg.Type" -> client
	paths    map[string]bool   // every import path the catalog knows
	names    map[string]bool   // every function, method or type name
	// returnAck: message types whose handlers ack by returning nil (asynq,
	// watermill router handlers, rocketmq ConsumeSuccess).
	returnAck map[string]bool
}

func ruleKey(pkg, recv, name string) string { return pkg + "\x00" + recv + "\x00" + name }

func (c *catalog) add(rs ...*rule) {
	for _, r := range rs {
		k := ruleKey(r.pkg, r.recv, r.name)
		c.rules[k] = append(c.rules[k], r)
		c.paths[r.pkg] = true
		c.names[r.name] = true
	}
}

func (c *catalog) message(client, pkg string, types ...string) {
	for _, t := range types {
		c.messages[pkg+"."+t] = client
		c.paths[pkg] = true
		c.names[t] = true
	}
}

// normPath strips a vendor prefix from an import path.
func normPath(p string) string {
	if i := strings.LastIndex(p, "/vendor/"); i >= 0 {
		return p[i+len("/vendor/"):]
	}
	return strings.TrimPrefix(p, "vendor/")
}

// funcKey returns the package path and receiver type name of fn ("" for a
// function).
func funcKey(fn *types.Func) (pkg, recv string) {
	if fn.Pkg() == nil {
		return "", ""
	}
	pkg = normPath(fn.Pkg().Path())
	sig, _ := fn.Type().(*types.Signature)
	if sig != nil && sig.Recv() != nil {
		t := types.Unalias(sig.Recv().Type())
		if p, ok := t.(*types.Pointer); ok {
			t = types.Unalias(p.Elem())
		}
		if n, ok := t.(*types.Named); ok {
			recv = n.Obj().Name()
		} else {
			recv = "?"
		}
	}
	return pkg, recv
}

// lookup returns the rules of fn.
func (c *catalog) lookup(fn *types.Func) []*rule {
	if fn == nil {
		return nil
	}
	fn = fn.Origin()
	if !c.names[fn.Name()] {
		return nil
	}
	pkg, recv := funcKey(fn)
	if !c.paths[pkg] {
		return nil
	}
	rs := c.rules[ruleKey(pkg, recv, fn.Name())]
	if recv != "" {
		rs = append(rs[:len(rs):len(rs)], c.rules[ruleKey(pkg, "*", fn.Name())]...)
	}
	return rs
}

func (c *catalog) find(fn *types.Func, r role) *rule {
	for _, x := range c.lookup(fn) {
		if x.role == r {
			return x
		}
	}
	return nil
}

// messageClient returns the client of t when t (or what it points to, or the
// element of a slice or channel of it) is a known message type.
func (c *catalog) messageClient(t types.Type) string {
	for range 3 {
		switch u := types.Unalias(t).(type) {
		case *types.Pointer:
			t = u.Elem()
			continue
		case *types.Slice:
			t = u.Elem()
			continue
		case *types.Chan:
			t = u.Elem()
			continue
		case *types.Named:
			obj := u.Obj()
			if obj.Pkg() == nil {
				return ""
			}
			return c.messages[normPath(obj.Pkg().Path())+"."+obj.Name()]
		}
		return ""
	}
	return ""
}

// Import paths of the clients. Only these strings are in the catalog; the
// stubs under testdata/src use the same paths.
const (
	pAMQP        = "github.com/rabbitmq/amqp091-go"
	pStreadway   = "github.com/streadway/amqp"
	pSarama      = "github.com/IBM/sarama"
	pShopify     = "github.com/Shopify/sarama"
	pKafkaGo     = "github.com/segmentio/kafka-go"
	pFranz       = "github.com/twmb/franz-go/pkg/kgo"
	pConfluent   = "github.com/confluentinc/confluent-kafka-go/v2/kafka"
	pConfluentV1 = "github.com/confluentinc/confluent-kafka-go/kafka"
	pNATS        = "github.com/nats-io/nats.go"
	pJetStream   = "github.com/nats-io/nats.go/jetstream"
	pWatermill   = "github.com/ThreeDotsLabs/watermill/message"
	pPubSub      = "cloud.google.com/go/pubsub"
	pPubSubV2    = "cloud.google.com/go/pubsub/v2"
	pPubSubInt   = "cloud.google.com/go/internal/pubsub" // Message is an alias of this in v1 and v2
	pSQS         = "github.com/aws/aws-sdk-go-v2/service/sqs"
	pSQSTypes    = "github.com/aws/aws-sdk-go-v2/service/sqs/types"
	pRedis       = "github.com/redis/go-redis/v9"
	pRedisV8     = "github.com/go-redis/redis/v8"
	pAsynq       = "github.com/hibiken/asynq"
	pRocket      = "github.com/apache/rocketmq-client-go/v2"
	pRocketPrim  = "github.com/apache/rocketmq-client-go/v2/primitive"
	pRocketCons  = "github.com/apache/rocketmq-client-go/v2/consumer"
	pPgx         = "github.com/jackc/pgx/v5"
	pPgxPool     = "github.com/jackc/pgx/v5/pgxpool"
	pPgconn      = "github.com/jackc/pgx/v5/pgconn"
	pPgxV4       = "github.com/jackc/pgx/v4"
	pPgxPoolV4   = "github.com/jackc/pgx/v4/pgxpool"
	pSqlx        = "github.com/jmoiron/sqlx"
	pGorm        = "gorm.io/gorm"
	pGormClause  = "gorm.io/gorm/clause"
	pMongo       = "go.mongodb.org/mongo-driver/mongo"
	pMongoV2     = "go.mongodb.org/mongo-driver/v2/mongo"
	pSQL         = "database/sql"
	pHTTP        = "net/http"
	pSMTP        = "net/smtp"
	pGuard       = "github.com/idemkit/idem/guard"
	pPgxGuard    = "github.com/idemkit/idem/guard/pgxguard"
	pRedisGuard  = "github.com/idemkit/idem/guard/redisguard"
	pJSGuard     = "github.com/idemkit/idem/guard/jetstreamguard"
	pAMQPGuard   = "github.com/idemkit/idem/guard/amqpguard"
	pKafkaGuard  = "github.com/idemkit/idem/guard/kafkaguard"
	pWMGuard     = "github.com/idemkit/idem/guard/watermillguard"
	pErrgroup    = "golang.org/x/sync/errgroup"
	pSync        = "sync"
	pMySQL       = "github.com/go-sql-driver/mysql"
)

// defaultCatalog is built once; it is read-only afterwards.
var defaultCatalog = buildCatalog()

func buildCatalog() *catalog {
	c := &catalog{
		rules:     map[string][]*rule{},
		messages:  map[string]string{},
		paths:     map[string]bool{},
		names:     map[string]bool{},
		returnAck: map[string]bool{},
	}
	R := func(pkg, recv, name string, ro role, arg int) *rule {
		return &rule{pkg: pkg, recv: recv, name: name, role: ro, arg: arg, key: -1}
	}
	eff := func(pkg, recv, name string, k effectKind, m mode, arg int) *rule {
		return &rule{pkg: pkg, recv: recv, name: name, role: roleEffect, kind: k, mode: m, arg: arg, key: -1}
	}
	pub := func(pkg, recv string, names ...string) {
		for _, n := range names {
			c.add(&rule{pkg: pkg, recv: recv, name: n, role: rolePublish, kind: kindPublish, arg: -1, key: -1})
		}
	}

	// --- RabbitMQ: amqp091-go and streadway/amqp -------------------------
	for _, p := range []string{pAMQP, pStreadway} {
		c.message("amqp", p, "Delivery")
		c.add(
			R(p, "Delivery", "Ack", roleAck, -1),
			R(p, "Channel", "Ack", roleAck, -1),
			R(p, "Acknowledger", "Ack", roleAck, -1),
			R(p, "Delivery", "Nack", roleNack, -1),
			R(p, "Delivery", "Reject", roleNack, -1),
			R(p, "Channel", "Nack", roleNack, -1),
			R(p, "Channel", "Reject", roleNack, -1),
			R(p, "Channel", "Consume", roleAutoAckConsume, 2),
		)
		pub(p, "Channel", "Publish")
	}
	// amqp091-go only.
	c.add(R(pAMQP, "Channel", "ConsumeWithContext", roleAutoAckConsume, 3))
	pub(pAMQP, "Channel", "PublishWithContext", "PublishWithDeferredConfirm", "PublishWithDeferredConfirmWithContext")

	// --- Kafka: sarama (IBM, formerly Shopify) ----------------------------
	for _, p := range []string{pSarama, pShopify} {
		c.message("sarama", p, "ConsumerMessage")
		c.add(
			R(p, "ConsumerGroupSession", "MarkMessage", roleAck, 0),
			R(p, "ConsumerGroupSession", "MarkOffset", roleAck, -1),
			R(p, "ConsumerGroupClaim", "Messages", roleFetch, -1),
			R(p, "PartitionConsumer", "Messages", roleFetch, -1),
		)
		pub(p, "SyncProducer", "SendMessage", "SendMessages")
	}

	// --- Kafka: segmentio/kafka-go ----------------------------------------
	c.message("kafka-go", pKafkaGo, "Message")
	c.add(
		R(pKafkaGo, "Reader", "FetchMessage", roleFetch, -1),
		R(pKafkaGo, "Reader", "ReadMessage", roleFetch, -1),
		R(pKafkaGo, "Reader", "ReadMessage", roleAutoAckRead, -1),
		R(pKafkaGo, "Reader", "CommitMessages", roleAck, 1),
	)
	pub(pKafkaGo, "Writer", "WriteMessages")

	// --- Kafka: twmb/franz-go ----------------------------------------------
	c.message("franz-go", pFranz, "Record")
	c.add(
		R(pFranz, "Client", "PollFetches", roleFetch, -1),
		R(pFranz, "Client", "PollRecords", roleFetch, -1),
		R(pFranz, "Client", "PollFetches", roleAutoAckRead, -1),
		R(pFranz, "Client", "PollRecords", roleAutoAckRead, -1),
		R(pFranz, "Client", "CommitRecords", roleAck, 1),
		R(pFranz, "Client", "MarkCommitRecords", roleAck, 0),
		R(pFranz, "Client", "CommitUncommittedOffsets", roleAck, -1),
		R(pFranz, "Client", "CommitMarkedOffsets", roleAck, -1),
	)
	pub(pFranz, "Client", "Produce", "ProduceSync", "TryProduce")

	// --- Kafka: confluent-kafka-go -----------------------------------------
	for _, p := range []string{pConfluent, pConfluentV1} {
		c.message("confluent-kafka-go", p, "Message")
		c.add(
			R(p, "Consumer", "ReadMessage", roleFetch, -1),
			R(p, "Consumer", "Poll", roleFetch, -1),
			R(p, "Consumer", "ReadMessage", roleAutoAckRead, -1),
			R(p, "Consumer", "Poll", roleAutoAckRead, -1),
			R(p, "Consumer", "CommitMessage", roleAck, 0),
			R(p, "Consumer", "StoreMessage", roleAck, 0),
			R(p, "Consumer", "Commit", roleAck, -1),
			R(p, "Consumer", "CommitOffsets", roleAck, -1),
		)
		pub(p, "Producer", "Produce")
	}

	// --- NATS: nats.go (core and legacy JetStream) ------------------------
	c.message("nats", pNATS, "Msg")
	c.add(
		R(pNATS, "Msg", "Ack", roleAck, -1),
		R(pNATS, "Msg", "AckSync", roleAck, -1),
		R(pNATS, "Msg", "Nak", roleNack, -1),
		R(pNATS, "Msg", "NakWithDelay", roleNack, -1),
		R(pNATS, "Msg", "Term", roleNack, -1),
		R(pNATS, "Subscription", "Fetch", roleFetch, -1),
		R(pNATS, "Subscription", "FetchBatch", roleFetch, -1),
		R(pNATS, "Subscription", "NextMsg", roleFetch, -1),
		R(pNATS, "Subscription", "NextMsgWithContext", roleFetch, -1),
		R(pNATS, "JetStream", "Subscribe", roleSubscribe, 1),
		R(pNATS, "JetStream", "QueueSubscribe", roleSubscribe, 2),
		R(pNATS, "JetStreamContext", "Subscribe", roleSubscribe, 1),
		R(pNATS, "JetStreamContext", "QueueSubscribe", roleSubscribe, 2),
	)
	pub(pNATS, "Conn", "Publish", "PublishMsg", "Request", "RequestMsg")
	pub(pNATS, "JetStream", "Publish", "PublishMsg", "PublishAsync", "PublishMsgAsync")
	pub(pNATS, "JetStreamContext", "Publish", "PublishMsg", "PublishAsync", "PublishMsgAsync")

	// --- NATS: the jetstream package --------------------------------------
	c.message("jetstream", pJetStream, "Msg")
	c.add(
		R(pJetStream, "Msg", "Ack", roleAck, -1),
		R(pJetStream, "Msg", "DoubleAck", roleAck, -1),
		R(pJetStream, "Msg", "Nak", roleNack, -1),
		R(pJetStream, "Msg", "NakWithDelay", roleNack, -1),
		R(pJetStream, "Msg", "Term", roleNack, -1),
		R(pJetStream, "Msg", "TermWithReason", roleNack, -1),
		R(pJetStream, "Consumer", "Next", roleFetch, -1),
		R(pJetStream, "Consumer", "Fetch", roleFetch, -1),
		R(pJetStream, "Consumer", "FetchNoWait", roleFetch, -1),
		R(pJetStream, "Consumer", "FetchBytes", roleFetch, -1),
		R(pJetStream, "MessagesContext", "Next", roleFetch, -1),
		R(pJetStream, "MessageBatch", "Messages", roleFetch, -1),
	)
	pub(pJetStream, "*", "Publish", "PublishMsg", "PublishAsync", "PublishMsgAsync")

	// --- Watermill ----------------------------------------------------------
	c.message("watermill", pWatermill, "Message")
	c.returnAck[pWatermill] = true
	c.add(
		R(pWatermill, "Message", "Ack", roleAck, -1),
		R(pWatermill, "Message", "Nack", roleNack, -1),
		R(pWatermill, "Subscriber", "Subscribe", roleFetch, -1),
	)
	pub(pWatermill, "Publisher", "Publish")

	// --- Google Cloud Pub/Sub (v1 and v2 share the internal Message) ------
	for _, p := range []string{pPubSubInt, pPubSub, pPubSubV2} {
		c.message("pubsub", p, "Message")
		c.add(
			R(p, "Message", "Ack", roleAck, -1),
			R(p, "Message", "AckWithResult", roleAck, -1),
			R(p, "Message", "Nack", roleNack, -1),
			R(p, "Message", "NackWithResult", roleNack, -1),
		)
	}
	pub(pPubSub, "Topic", "Publish")
	pub(pPubSubV2, "Publisher", "Publish")

	// --- AWS SQS (aws-sdk-go-v2) -----------------------------------------
	c.message("sqs", pSQSTypes, "Message")
	c.add(
		R(pSQS, "Client", "ReceiveMessage", roleFetch, -1),
		R(pSQS, "Client", "DeleteMessage", roleAck, -1),
		R(pSQS, "Client", "DeleteMessageBatch", roleAck, -1),
		R(pSQS, "Client", "ChangeMessageVisibility", roleNack, -1),
	)
	pub(pSQS, "Client", "SendMessage", "SendMessageBatch")

	// --- Redis (go-redis v9 and v8): streams, effects, dedup checks -------
	for _, p := range []string{pRedis, pRedisV8} {
		c.message("redis", p, "XMessage")
		c.add(
			R(p, "*", "XReadGroup", roleFetch, -1),
			R(p, "*", "XAutoClaim", roleFetch, -1),
			R(p, "*", "XClaim", roleFetch, -1),
			R(p, "*", "XAck", roleAck, -1),
			R(p, "*", "XAckDel", roleAck, -1),
		)
		// Non-idempotent commands: a repeat changes the value again.
		// SADD, ZADD, SET, HSET, SETBIT, PFADD are idempotent (a repeat
		// leaves the same value) and are not effects.
		for _, n := range []string{
			"Incr", "IncrBy", "IncrByFloat", "Decr", "DecrBy",
			"HIncrBy", "HIncrByFloat", "ZIncrBy",
			"LPush", "RPush", "LPushX", "RPushX", "LInsert", "LInsertBefore", "LInsertAfter",
			"XAdd", "Append", "RPopLPush", "LMove", "BLMove", "SMove",
			"JSONNumIncrBy", "JSONArrAppend", "TSAdd", "TSIncrBy", "TSDecrBy",
		} {
			c.add(eff(p, "*", n, kindRedis, modeAlways, -1))
		}
		c.add(
			&rule{pkg: p, recv: "*", name: "SetNX", role: roleSetNX, arg: -1, key: 1},
			&rule{pkg: p, recv: "*", name: "HSetNX", role: roleSetNX, arg: -1, key: 1},
			&rule{pkg: p, recv: "*", name: "SetArgs", role: roleSetArgs, arg: 3, key: 1},
			&rule{pkg: p, recv: "*", name: "Del", role: roleRedisDel, arg: -1, key: 1},
			&rule{pkg: p, recv: "*", name: "Unlink", role: roleRedisDel, arg: -1, key: 1},
			&rule{pkg: p, recv: "*", name: "HDel", role: roleRedisDel, arg: -1, key: 1},
			&rule{pkg: p, recv: "*", name: "Exists", role: roleRedisLookup, arg: -1, key: 1},
			&rule{pkg: p, recv: "*", name: "Get", role: roleRedisLookup, arg: -1, key: 1},
			&rule{pkg: p, recv: "*", name: "SIsMember", role: roleRedisLookup, arg: -1, key: 1},
			&rule{pkg: p, recv: "*", name: "HExists", role: roleRedisLookup, arg: -1, key: 1},
			&rule{pkg: p, recv: "*", name: "HGet", role: roleRedisLookup, arg: -1, key: 1},
			R(p, "*", "Set", roleRedisMark, -1),
			R(p, "*", "SetEx", roleRedisMark, -1),
			R(p, "*", "SAdd", roleRedisMark, -1),
			R(p, "*", "HSet", roleRedisMark, -1),
			R(p, "*", "MSet", roleRedisMark, -1),
			R(p, "*", "Expire", roleRedisMark, -1),
			R(p, "*", "TxPipelined", roleRedisTx, 1),
			R(p, "*", "Watch", roleRedisTx, 1),
		)
		pub(p, "*", "Publish", "SPublish")
	}

	// --- asynq ---------------------------------------------------------------
	c.message("asynq", pAsynq, "Task")
	c.returnAck[pAsynq] = true
	pub(pAsynq, "Client", "Enqueue", "EnqueueContext")

	// --- RocketMQ ------------------------------------------------------------
	c.message("rocketmq", pRocketPrim, "MessageExt")
	c.returnAck[pRocketPrim] = true
	pub(pRocket, "Producer", "SendSync", "SendAsync", "SendOneWay")

	// --- SQL: database/sql ----------------------------------------------------
	for _, recv := range []string{"DB", "Tx", "Conn"} {
		c.add(
			eff(pSQL, recv, "ExecContext", kindSQL, modeSQLExec, 1),
			eff(pSQL, recv, "QueryContext", kindSQL, modeSQLQuery, 1),
			eff(pSQL, recv, "QueryRowContext", kindSQL, modeSQLQuery, 1),
			R(pSQL, recv, "PrepareContext", rolePrepare, 1),
		)
		if recv == "Conn" {
			continue // a Conn has only the Context methods
		}
		c.add(
			eff(pSQL, recv, "Exec", kindSQL, modeSQLExec, 0),
			eff(pSQL, recv, "Query", kindSQL, modeSQLQuery, 0),
			eff(pSQL, recv, "QueryRow", kindSQL, modeSQLQuery, 0),
			R(pSQL, recv, "Prepare", rolePrepare, 0),
		)
	}
	c.add(
		eff(pSQL, "Stmt", "Exec", kindSQL, modeSQLStmt, -1),
		eff(pSQL, "Stmt", "ExecContext", kindSQL, modeSQLStmt, -1),
		R(pSQL, "Result", "RowsAffected", roleRowsAffected, -1),
		R(pSQL, "Row", "Scan", roleScan, -1),
		R(pSQL, "Rows", "Scan", roleScan, -1),
		R(pSQL, "Tx", "Stmt", rolePrepare, -1),
	)

	// --- pgx v5 and v4 -----------------------------------------------------------
	for _, set := range [][2]string{{pPgx, pPgxPool}, {pPgxV4, pPgxPoolV4}} {
		pg, pool := set[0], set[1]
		for _, x := range [][2]string{{pg, "Conn"}, {pg, "Tx"}, {pool, "Pool"}, {pool, "Conn"}, {pool, "Tx"}} {
			c.add(
				eff(x[0], x[1], "Exec", kindSQL, modeSQLExec, 1),
				eff(x[0], x[1], "Query", kindSQL, modeSQLQuery, 1),
				eff(x[0], x[1], "QueryRow", kindSQL, modeSQLQuery, 1),
				eff(x[0], x[1], "CopyFrom", kindSQL, modeAlways, -1),
			)
		}
		c.add(
			eff(pg, "Batch", "Queue", kindSQL, modeSQLExec, 0),
			R(pg, "Row", "Scan", roleScan, -1),
			R(pg, "Rows", "Scan", roleScan, -1),
		)
	}
	c.add(R(pPgconn, "CommandTag", "RowsAffected", roleRowsAffected, -1))

	// --- sqlx (its promoted database/sql methods match database/sql) --------
	for _, recv := range []string{"DB", "Tx"} {
		c.add(
			eff(pSqlx, recv, "NamedExec", kindSQL, modeSQLExec, 0),
			eff(pSqlx, recv, "NamedExecContext", kindSQL, modeSQLExec, 1),
			eff(pSqlx, recv, "MustExec", kindSQL, modeSQLExec, 0),
			eff(pSqlx, recv, "MustExecContext", kindSQL, modeSQLExec, 1),
			eff(pSqlx, recv, "NamedQuery", kindSQL, modeSQLQuery, 0),
			eff(pSqlx, recv, "QueryRowx", kindSQL, modeSQLQuery, 0),
			eff(pSqlx, recv, "QueryRowxContext", kindSQL, modeSQLQuery, 1),
		)
	}
	c.add(
		eff(pSqlx, "", "NamedExec", kindSQL, modeSQLExec, 1),
		eff(pSqlx, "", "NamedExecContext", kindSQL, modeSQLExec, 2),
	)

	// --- gorm ------------------------------------------------------------------
	c.add(
		eff(pGorm, "DB", "Create", kindSQL, modeGormCreate, 0),
		eff(pGorm, "DB", "CreateInBatches", kindSQL, modeGormCreate, 0),
		eff(pGorm, "DB", "Update", kindSQL, modeGormUpdate, 1),
		eff(pGorm, "DB", "UpdateColumn", kindSQL, modeGormUpdate, 1),
		eff(pGorm, "DB", "Updates", kindSQL, modeGormUpdate, 0),
		eff(pGorm, "DB", "UpdateColumns", kindSQL, modeGormUpdate, 0),
		eff(pGorm, "DB", "Exec", kindSQL, modeSQLExec, 0),
		eff(pGorm, "DB", "Raw", kindSQL, modeSQLQuery, 0),
	)

	// --- MongoDB -----------------------------------------------------------------
	for _, p := range []string{pMongo, pMongoV2} {
		c.add(
			eff(p, "Collection", "InsertOne", kindMongo, modeAlways, -1),
			eff(p, "Collection", "InsertMany", kindMongo, modeAlways, -1),
			eff(p, "Collection", "BulkWrite", kindMongo, modeAlways, -1),
			eff(p, "Collection", "UpdateOne", kindMongo, modeMongoUpdate, 2),
			eff(p, "Collection", "UpdateMany", kindMongo, modeMongoUpdate, 2),
			eff(p, "Collection", "UpdateByID", kindMongo, modeMongoUpdate, 2),
			eff(p, "Collection", "FindOneAndUpdate", kindMongo, modeMongoUpdate, 2),
			R(p, "", "IsDuplicateKeyError", roleUniqueTest, 0),
		)
	}

	// --- net/http and net/smtp ------------------------------------------------
	c.add(
		eff(pHTTP, "Client", "Do", kindHTTP, modeHTTPDo, 0),
		eff(pHTTP, "Client", "Post", kindHTTP, modeHTTPPost, -1),
		eff(pHTTP, "Client", "PostForm", kindHTTP, modeHTTPPost, -1),
		eff(pHTTP, "", "Post", kindHTTP, modeHTTPPost, -1),
		eff(pHTTP, "", "PostForm", kindHTTP, modeHTTPPost, -1),
		R(pHTTP, "", "NewRequest", roleNewRequest, 0),
		R(pHTTP, "", "NewRequestWithContext", roleNewRequest, 1),
		eff(pSMTP, "", "SendMail", kindSMTP, modeAlways, -1),
		eff(pSMTP, "Client", "Data", kindSMTP, modeAlways, -1),
	)

	// --- the idem runtime ---------------------------------------------------------
	// Do(ctx, consumer, key, fp, apply) and Run(ctx, consumer, key, fp, apply)
	// run apply only for a fresh key; Claim returns a lease whose Outcome
	// decides.
	for _, x := range [][2]string{{pGuard, "SQLStore"}, {pGuard, "SQLEngine"}, {pGuard, "Store"}, {pPgxGuard, "Store"}, {pRedisGuard, "Store"}} {
		if x != [2]string{pGuard, "Store"} { // the Store interface has no Do: its transaction type differs per store
			c.add(&rule{pkg: x[0], recv: x[1], name: "Do", role: roleGuardInside, arg: 4, key: 2})
		}
		c.add(
			&rule{pkg: x[0], recv: x[1], name: "Run", role: roleGuardInside, arg: 4, key: 2},
			&rule{pkg: x[0], recv: x[1], name: "Claim", role: roleClaim, arg: -1, key: 2},
		)
	}
	c.add(
		&rule{pkg: pGuard, name: "RunLease", role: roleGuardInside, arg: 2, key: -1},
		// A guard.Handler (a generated handler behind the interface) called
		// directly: guarded work whose error must not be acked away.
		&rule{pkg: pGuard, recv: "Handler", name: "Handle", role: roleGuardInside, arg: -1, key: -1},
		&rule{pkg: pGuard, recv: "HandlerFunc", name: "Handle", role: roleGuardInside, arg: -1, key: -1},
		R(pGuard, "Lease", "Outcome", roleOutcome, -1),
	)

	// The broker adapters take a guard.Handler (a generated handler, or a
	// guard.HandlerFunc whose body calls the guard) and ack by its answer:
	// the handler they are given is guarded, as a Do callback is. The key is
	// inside the handler, so the rule has none. watermillguard.Middleware
	// takes no handler (it maps the errors of handlers wrapped elsewhere) and
	// is not a rule.
	c.add(
		&rule{pkg: pJSGuard, name: "Handle", role: roleGuardInside, arg: 2, key: -1},
		&rule{pkg: pJSGuard, name: "Consume", role: roleGuardInside, arg: 2, key: -1},
		&rule{pkg: pJSGuard, name: "Handler", role: roleGuardInside, arg: 0, key: -1},
		&rule{pkg: pAMQPGuard, name: "Handle", role: roleGuardInside, arg: 2, key: -1},
		&rule{pkg: pAMQPGuard, name: "Consume", role: roleGuardInside, arg: 3, key: -1},
		&rule{pkg: pKafkaGuard, name: "Consume", role: roleGuardInside, arg: 2, key: -1},
		&rule{pkg: pWMGuard, name: "Handler", role: roleGuardInside, arg: 0, key: -1},
	)

	// --- waiting for goroutines ---------------------------------------------------
	c.add(
		R(pSync, "WaitGroup", "Wait", roleWait, -1),
		R(pErrgroup, "Group", "Wait", roleWait, -1),
	)
	return c
}

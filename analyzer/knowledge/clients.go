package knowledge

import "strings"

// The data. Path templates in braces ({amqp}) stand for every import path of
// a client that has moved or forked (streadway/amqp and amqp091-go, Shopify
// and IBM sarama, go-redis v8 and v9, pgx v4 and v5, go-micro v4 and v5,
// machinery v1 and v2 and Dragonfly's fork, the two gomail paths); Default
// expands them.

var paths = map[string][]string{
	"amqp":      {"github.com/rabbitmq/amqp091-go", "github.com/streadway/amqp"},
	"sarama":    {"github.com/IBM/sarama", "github.com/Shopify/sarama"},
	"confluent": {"github.com/confluentinc/confluent-kafka-go/v2/kafka", "github.com/confluentinc/confluent-kafka-go/kafka"},
	"pubsub":    {"cloud.google.com/go/internal/pubsub", "cloud.google.com/go/pubsub", "cloud.google.com/go/pubsub/v2"},
	"redis":     {"github.com/redis/go-redis/v9", "github.com/go-redis/redis/v8"},
	"pgx":       {"github.com/jackc/pgx/v5", "github.com/jackc/pgx/v4"},
	"pgxpool":   {"github.com/jackc/pgx/v5/pgxpool", "github.com/jackc/pgx/v4/pgxpool"},
	"mongo":     {"go.mongodb.org/mongo-driver/mongo", "go.mongodb.org/mongo-driver/v2/mongo"},
	"gomicro":   {"go-micro.dev/v4", "go-micro.dev/v5"},
	"machinery": {"github.com/RichardKnop/machinery/v2", "github.com/RichardKnop/machinery/v1", "github.com/dragonflyoss/machinery/v1"},
	"gomail":    {"gopkg.in/gomail.v2", "github.com/go-gomail/gomail"},
	"dpkafka":   {"github.com/ONSdigital/dp-kafka/v5", "github.com/ONSdigital/dp-kafka/v4", "github.com/ONSdigital/dp-kafka/v3"},
	"dpkafkaif": {"github.com/ONSdigital/dp-kafka/v5/interfaces", "github.com/ONSdigital/dp-kafka/v4/interfaces", "github.com/ONSdigital/dp-kafka/v3/interfaces"},
	"esutil":    {"github.com/elastic/go-elasticsearch/v8/esutil", "github.com/elastic/go-elasticsearch/v7/esutil", "github.com/elastic/go-elasticsearch/v9/esutil"},
	"esapi":     {"github.com/elastic/go-elasticsearch/v8/esapi", "github.com/elastic/go-elasticsearch/v7/esapi", "github.com/elastic/go-elasticsearch/v9/esapi"},
}

var base = Base{
	Messages: []Message{
		{Type: "{amqp}.Delivery", Client: "amqp"},
		{Type: "{sarama}.ConsumerMessage", Client: "sarama", Offsets: true},
		{Type: "github.com/segmentio/kafka-go.Message", Client: "kafka-go", Offsets: true},
		{Type: "github.com/twmb/franz-go/pkg/kgo.Record", Client: "franz-go", Offsets: true},
		{Type: "{confluent}.Message", Client: "confluent-kafka-go", Offsets: true},
		// dp-kafka (the UK Office for National Statistics' sarama wrapper):
		// v2 hands messages on a channel, v3 on also to registered handlers.
		{Type: "github.com/ONSdigital/dp-kafka/v2.Message", Client: "dp-kafka", Offsets: true},
		{Type: "{dpkafka}.Message", Client: "dp-kafka", Offsets: true},
		{Type: "{dpkafkaif}.Message", Client: "dp-kafka", Offsets: true},
		{Type: "github.com/nats-io/nats.go.Msg", Client: "nats"},
		{Type: "github.com/nats-io/nats.go/jetstream.Msg", Client: "jetstream"},
		{Type: "github.com/ThreeDotsLabs/watermill/message.Message", Client: "watermill", ReturnAck: true},
		{Type: "{pubsub}.Message", Client: "pubsub"},
		{Type: "github.com/aws/aws-sdk-go-v2/service/sqs/types.Message", Client: "sqs"},
		{Type: "{redis}.XMessage", Client: "redis"},
		{Type: "github.com/hibiken/asynq.Task", Client: "asynq", ReturnAck: true},
		{Type: "github.com/gocraft/work.Job", Client: "gocraftwork", ReturnAck: true},
		{Type: "github.com/apache/rocketmq-client-go/v2/primitive.MessageExt", Client: "rocketmq", ReturnAck: true},
		// NSQ: a Handler returning nil FINs the message, an error REQs it.
		{Type: "github.com/nsqio/go-nsq.Message", Client: "nsq", ReturnAck: true},
		{Type: "github.com/apache/pulsar-client-go/pulsar.Message", Client: "pulsar"},
		{Type: "github.com/apache/pulsar-client-go/pulsar.ConsumerMessage", Client: "pulsar"}, // what Consumer.Chan delivers
		{Type: "gocloud.dev/pubsub.Message", Client: "gocloud pubsub"},
		// River: Work(ctx, *river.Job[T]) returning nil completes the job. An
		// instantiation is matched by its generic type's name (Job).
		{Type: "github.com/riverqueue/river.Job", Client: "river", ReturnAck: true},
		// go-micro: a broker subscription acks a handler's nil return unless
		// DisableAutoAck is given.
		{Type: "{gomicro}/broker.Event", Client: "go-micro", ReturnAck: true},
		// Dapr: a topic handler's nil error is SUCCESS; (true, err) is RETRY.
		{Type: "github.com/dapr/go-sdk/service/common.TopicEvent", Client: "dapr", ReturnAck: true},
		{Type: "github.com/Azure/azure-sdk-for-go/sdk/messaging/azservicebus.ReceivedMessage", Client: "azservicebus"},
		{Type: "github.com/aws/aws-sdk-go/service/sqs.Message", Client: "sqs"},
		// NYTimes/gizmo: a Subscriber's Start channel of messages (SQS,
		// Google Pub/Sub, Kafka behind one interface); Done acks.
		{Type: "github.com/NYTimes/gizmo/pubsub.SubscriberMessage", Client: "gizmo"},
		// AWS Lambda's queue and stream triggers (aws-lambda-go): a handler's
		// error makes the batch (or, with a batch item failure response, the
		// failed records) come again; nil deletes it or moves the shard on.
		{Type: "github.com/aws/aws-lambda-go/events.SQSEvent", Client: "lambda", ReturnAck: true},
		{Type: "github.com/aws/aws-lambda-go/events.SQSMessage", Client: "lambda", ReturnAck: true},
		{Type: "github.com/aws/aws-lambda-go/events.SNSEvent", Client: "lambda", ReturnAck: true},
		{Type: "github.com/aws/aws-lambda-go/events.KinesisEvent", Client: "lambda", ReturnAck: true},
		{Type: "github.com/aws/aws-lambda-go/events.DynamoDBEvent", Client: "lambda", ReturnAck: true},
		{Type: "github.com/aws/aws-lambda-go/events.KafkaEvent", Client: "lambda", ReturnAck: true},
		// NATS Streaming (STAN, deprecated for JetStream, still in use): a
		// message is redelivered after AckWait unless acked, which the
		// client does when the callback returns (SetManualAckMode: Ack).
		{Type: "github.com/nats-io/stan.go.Msg", Client: "nats streaming"},
		// cheshir/go-mq: a RabbitMQ client whose handlers get a Message
		// to Ack, Nack or Reject (auto-ack off by default).
		{Type: "github.com/cheshir/go-mq/v2.Message", Client: "go-mq"},
		{Type: "github.com/cheshir/go-mq.Message", Client: "go-mq"},
		{Type: "github.com/eclipse/paho.mqtt.golang.Message", Client: "mqtt"},
		{Type: "github.com/eclipse/paho.golang/paho.PublishReceived", Client: "mqtt"},
		{Type: "github.com/eclipse/paho.golang/autopaho.PublishReceived", Client: "mqtt"},
		{Type: "github.com/slack-go/slack/socketmode.Event", Client: "slack socket mode"},
	},

	Rules: concat(brokers, redis, sqlRules, httpRules, rpcRules, notifyRules, idemRules, stdRules, telemetry),

	Types: []Type{
		{"database/sql.Tx", TxType}, {"{pgx}.Tx", TxType}, {"github.com/jmoiron/sqlx.Tx", TxType},
		{"database/sql.DB", PoolType}, {"database/sql.Conn", PoolType}, {"{pgxpool}.Pool", PoolType},
		{"github.com/jackc/pgx/v5.Conn", PoolType}, {"github.com/jmoiron/sqlx.DB", PoolType},
		{"gorm.io/gorm.DB", ORMDB}, {"github.com/jinzhu/gorm.DB", ORMDB},
		{"net/http.Header", HeaderType},
		{"database/sql.Stmt", StmtType}, {"github.com/jmoiron/sqlx.Stmt", StmtType}, {"github.com/jmoiron/sqlx.NamedStmt", StmtType},
	},

	Sentinels: map[string]string{
		"database/sql.ErrNoRows":                          NoRows,
		"{pgx}.ErrNoRows":                                 NoRows,
		`{redis}/internal/proto.RedisError("redis: nil")`: NoRows, // redis.Nil is a constant of that type
		"{mongo}.ErrNoDocuments":                          NoRows,
		"gorm.io/gorm.ErrRecordNotFound":                  NoRows,
		"gorm.io/gorm.ErrDuplicatedKey":                   DupKey,
		"github.com/jinzhu/gorm.ErrRecordNotFound":        NoRows,
		"github.com/jackc/pgerrcode.UniqueViolation":      DupKey,
	},

	PerDelivery: []string{
		"github.com/nats-io/nats.go/jetstream.SequencePair.Consumer", "github.com/nats-io/nats.go.SequencePair.Consumer",
		"github.com/nats-io/nats.go/jetstream.MsgMetadata.NumDelivered", "github.com/nats-io/nats.go.MsgMetadata.NumDelivered",
		"{amqp}.Delivery.DeliveryTag",
		"github.com/nsqio/go-nsq.Message.Attempts",
		"github.com/riverqueue/river/rivertype.JobRow.Attempt",
		"github.com/Azure/azure-sdk-for-go/sdk/messaging/azservicebus.ReceivedMessage.DeliveryCount",
		"github.com/Azure/azure-sdk-for-go/sdk/messaging/azservicebus.ReceivedMessage.LockToken",
		"github.com/aws/aws-sdk-go/service/sqs.Message.ReceiptHandle",
	},

	// PostgreSQL 23505, MySQL 1062 (and 1586), SQLite's extended
	// SQLITE_CONSTRAINT_UNIQUE 2067 and SQLITE_CONSTRAINT_PRIMARYKEY 1555.
	UniqueCodes: []string{`"23505"`, "1062", "1586", "2067", "1555"},

	ORMs: []ORM{{
		Pkg: "gorm.io/gorm", ClausePkg: "gorm.io/gorm/clause",
		Clauses: "Clauses", Where: "Where", Expr: "Expr", Begin: "Begin", Transaction: "Transaction",
		Conflict: "OnConflict", DoNothing: "DoNothing", Upsert: []string{"UpdateAll", "DoUpdates"},
		Insert: "Insert", Modifier: "Modifier",
		ErrorField: "Error", RowsField: "RowsAffected",
	}, {
		// gorm v1: no clause package; upserts are Set("gorm:insert_option", …).
		Pkg: "github.com/jinzhu/gorm", Where: "Where", Expr: "Expr", Begin: "Begin", Transaction: "Transaction",
		ErrorField: "Error", RowsField: "RowsAffected",
	}, {
		Pkg:    "github.com/uptrace/bun",
		OnText: "On", Ignore: "Ignore", Model: "Model",
	}},

	PublishTables: []string{"outbox", "queue"},
	BookkeepingTables: []string{
		"audit*", "*_audit*", "*_log", "*_logs", "*_status", "*_statuses", "metrics", "*_metrics", "metric_*",
	},
	BookkeepingColumns: []string{
		"health", "health_*", "*_health", "heartbeat*", "*_heartbeat*", "last_check*", "last_health*",
		"last_seen*", "last_error*", "updated_at", "*_checked_at",
	},
	// RabbitMQ's queue argument naming a dead-letter exchange.
	DeadLetters: []string{"x-dead-letter-exchange"},
	// database/sql's and pgx's statement methods, for interfaces of their
	// shape (sqlc's DBTX).
	SQLShapes: map[string]Mode{
		"ExecContext": SQLExec, "QueryContext": SQLQuery, "QueryRowContext": SQLQuery,
		"Exec": SQLExec, "Query": SQLQuery, "QueryRow": SQLQuery,
		"QueryxContext": SQLQuery, "QueryRowxContext": SQLQuery, // sqlx-shaped
	},
	// Cloud Functions background functions with a Pub/Sub trigger.
	EventShapes: []EventShape{{Name: "PubSubMessage", Field: "Data", Client: "cloud functions"}},
	// ent: per entity, UserQuery with Where(predicate.User…) and its
	// terminal methods; UserCreate saving through sqlgraph.CreateNode.
	GeneratedQueries: []GeneratedQuery{{
		Suffix: "Query", Predicates: "predicates", Selector: "entgo.io/ent/dialect/sql.Selector",
		Lookups: map[string]Lookup{
			"Only": LookupRow, "OnlyX": LookupRow, "First": LookupRow, "FirstX": LookupRow,
			"OnlyID": LookupID, "OnlyIDX": LookupID, "FirstID": LookupID, "FirstIDX": LookupID,
			"Exist": LookupExists, "ExistX": LookupExists, "Count": LookupCount, "CountX": LookupCount,
		},
		TableConst: "Table", CreateSpec: "entgo.io/ent/dialect/sql/sqlgraph.CreateSpec", SpecCtor: "NewCreateSpec", SpecTable: "Table",
	}},
	// SQL builders: huandu/go-sqlbuilder, Masterminds/squirrel.
	QueryBuilders: append([]QueryBuilder{
		{Type: "github.com/huandu/go-sqlbuilder.UpdateBuilder", Stmt: "UPDATE", Build: []string{"Build", "BuildWithFlavor"},
			Verbs: map[string]string{"Update": "UPDATE"}, Accumulate: []string{"Incr", "Decr", "Add", "Sub", "Mul", "Div"}},
		{Type: "github.com/huandu/go-sqlbuilder.InsertBuilder", Stmt: "INSERT INTO", Build: []string{"Build", "BuildWithFlavor"},
			Verbs: map[string]string{"InsertInto": "INSERT INTO", "InsertIgnoreInto": "INSERT IGNORE INTO", "ReplaceInto": "REPLACE INTO"}},
		{Type: "github.com/huandu/go-sqlbuilder.DeleteBuilder", Stmt: "DELETE FROM", Build: []string{"Build", "BuildWithFlavor"},
			Verbs: map[string]string{"DeleteFrom": "DELETE FROM"}},
		{Type: "github.com/huandu/go-sqlbuilder.SelectBuilder", Stmt: "SELECT * FROM", Build: []string{"Build", "BuildWithFlavor"},
			Verbs: map[string]string{"From": "SELECT * FROM"}},
		// Masterminds/squirrel: Insert("t")…ToSql(). Set(col, Expr("n + 1"))
		// is not read: a squirrel update is taken as one that assigns.
		{Type: "github.com/Masterminds/squirrel.InsertBuilder", Stmt: "INSERT INTO", Build: []string{"ToSql"},
			Verbs: map[string]string{"Insert": "INSERT INTO", "Into": "INSERT INTO"}, Suffix: []string{"Suffix"}, Options: []string{"Options"}},
		{Type: "github.com/Masterminds/squirrel.UpdateBuilder", Stmt: "UPDATE", Build: []string{"ToSql"},
			Verbs: map[string]string{"Update": "UPDATE", "Table": "UPDATE"}, Suffix: []string{"Suffix"}},
		{Type: "github.com/Masterminds/squirrel.DeleteBuilder", Stmt: "DELETE FROM", Build: []string{"ToSql"},
			Verbs: map[string]string{"Delete": "DELETE FROM", "From": "DELETE FROM"}},
		{Type: "github.com/Masterminds/squirrel.SelectBuilder", Stmt: "SELECT * FROM", Build: []string{"ToSql"},
			Verbs: map[string]string{"From": "SELECT * FROM"}},
	}, postgrestBuilders()...),
	// gRPC: a generated client's methods end in ...grpc.CallOption; AWS
	// service clients' in ...request.Option (aws-sdk-go) or
	// ...func(*Options) (aws-sdk-go-v2: StartJobRun, UpdateItem,
	// PublishBatch…). A name read with ReadVerbs and OverwriteVerbs tells a
	// read or an overwrite (S3 PutObject, DynamoDB PutItem) from an effect.
	RPCOptions:  []string{"google.golang.org/grpc.CallOption", "github.com/aws/aws-sdk-go/aws/request.Option"},
	SDKPackages: []string{"github.com/aws/aws-sdk-go-v2/service/", "github.com/aws/aws-sdk-go/service/"},
	// Model inference: Google's Gen AI SDK (Gemini, Vertex AI) and its
	// predecessor, OpenAI's SDK and the community go-openai, Anthropic's.
	Computations: []string{"google.golang.org/genai", "github.com/google/generative-ai-go/genai",
		"github.com/openai/openai-go", "github.com/sashabaranov/go-openai", "github.com/anthropics/anthropic-sdk-go"},
	ReadVerbs: []string{"Get", "List", "Find", "Search", "Query", "Describe", "Fetch", "Read", "Count", "Exists",
		"Lookup", "Check", "Validate", "Verify", "Watch", "Is", "Has", "Ping", "Health", "Estimate", "Preview", "Calculate",
		"Head", "Scan", "BatchGet", "Select", "Download", "Receive", "Assume", "Decrypt", "Encrypt", "Presign", "Next"},
	OverwriteVerbs: []string{"Put", "Set", "Upsert", "Replace", "Delete", "Remove", "Tag", "Untag", "Upload", "Copy", "BatchWrite"},
	// Model and document services called over plain HTTP (an embedding
	// provider, an LLM extraction, machine translation, OCR).
	ComputeVerbs: []string{"Embed", "Translate", "Caption", "Classify", "Summarize", "Summarise", "Transcribe",
		"Extract", "Predict", "Infer", "Parse", "Tokenize", "Detect", "Recognize", "Moderate", "Rerank",
		"Analyze", "Analyse", "Render"},
	ComputeEndpoints: []string{"/embeddings", "/chat/completions", "/completions", ":generateContent", ":streamGenerateContent",
		":embedContent", ":batchEmbedContents", "/api/embeddings", "/api/embed", "/api/generate", "/api/chat", "/moderations", "/rerank"},
	CredentialVerbs: []string{"login", "logon", "signin", "authenticate", "reauthenticate", "relogin"},
	CredentialWords: []string{"Token"},
	CredentialWriteVerbs: []string{"send", "revoke", "delete", "remove", "save", "store", "register", "create",
		"invalidate", "set", "update", "add", "insert", "persist", "write", "push", "notify", "email", "mail", "sms"},
	KeyFields: []string{"IdempotencyKey", "IdempotentKey", "IdempotenceKey", "IdemKey", "IdempotencyID",
		"IdempotencyToken", "DedupKey", "DedupeKey", "DeduplicationKey", "DeduplicationID"},
	// A webhook's event id: the receiver drops a delivery it has seen
	// (Standard Webhooks' webhook-id, Svix, GitHub's X-GitHub-Delivery, a
	// service's own X-Acme-Event-Id).
	KeyHeaders: []string{"Idempotency-Key", "X-Idempotency-Key", "Webhook-Id", "Svix-Id",
		"*-Event-Id", "*-Delivery", "*-Delivery-Id", "*-Webhook-Id"},
	// The commands behind go-redis's effect methods, for clients that name
	// the command by a string.
	RedisCommands: RedisCommands{
		Effects: []string{"INCR", "INCRBY", "INCRBYFLOAT", "DECR", "DECRBY", "HINCRBY", "HINCRBYFLOAT", "ZINCRBY",
			"LPUSH", "RPUSH", "LPUSHX", "RPUSHX", "LINSERT", "APPEND", "RPOPLPUSH", "LMOVE", "BLMOVE", "SMOVE",
			"JSON.NUMINCRBY", "JSON.ARRAPPEND", "TS.ADD", "TS.INCRBY", "TS.DECRBY"},
		Publish: []string{"PUBLISH", "SPUBLISH", "XADD"},
	},

	Mongo: MongoOps{
		Accumulating: []string{"$inc", "$push", "$mul", "$pushAll", "$bit", "$currentDate"},
		Setting:      []string{"$set", "$unset", "$addToSet", "$pull", "$pullAll", "$max", "$min", "$setOnInsert", "$rename"},
	},
}

func concat(sets ...[]Rule) []Rule {
	var out []Rule
	for _, s := range sets {
		out = append(out, s...)
	}
	return out
}

// each returns one rule per name, with the role and client given.
// goMQ returns the rules of cheshir/go-mq at package path p, whose queue
// type is mq (v2's MessageQueue struct, v1's MQ interface): a handler
// registered for a named consumer gets each message and settles it.
func goMQ(p, mq string) []Rule {
	return concat(
		[]Rule{
			{Name: "(" + p + ".Message).Ack", Role: Ack, Client: "go-mq"},
			{Name: "(" + p + ".Message).Nack", Role: Nack, Arg: "requeue", Client: "go-mq"},
			{Name: "(" + p + ".Message).Reject", Role: Nack, Arg: "requeue", Client: "go-mq"},
			{Name: "(" + p + "." + mq + ").SetConsumerHandler", Role: Register, Arg: "handler", Client: "go-mq"},
			{Name: "(" + p + ".Consumer).Consume", Role: Register, Arg: "handler", Client: "go-mq"},
		},
		each(Publish, "go-mq", p+".SyncProducer", "Produce"),
		each(Publish, "go-mq", p+".AsyncProducer", "Produce"),
	)
}

func each(role Role, client, recv string, names ...string) []Rule {
	out := make([]Rule, 0, len(names))
	for _, n := range names {
		out = append(out, Rule{Name: "(" + recv + ")." + n, Role: role, Client: client})
	}
	return out
}

// kvRequests returns a KVWrite rule for the Do method of each request
// type.
func kvRequests(client, pkg string, types ...string) []Rule {
	var out []Rule
	for _, t := range types {
		out = append(out, each(KVWrite, client, pkg+"."+t, "Do")...)
	}
	return out
}

// meilisearchWrites are the document writes of a Meilisearch index (its
// DocumentManager).
var meilisearchWrites = []string{
	"AddDocuments", "AddDocumentsWithContext", "AddDocumentsInBatches", "AddDocumentsInBatchesWithContext",
	"AddDocumentsCsv", "AddDocumentsCsvWithContext", "AddDocumentsCsvInBatches", "AddDocumentsCsvInBatchesWithContext",
	"AddDocumentsCsvFromReader", "AddDocumentsCsvFromReaderWithContext", "AddDocumentsCsvFromReaderInBatches", "AddDocumentsCsvFromReaderInBatchesWithContext",
	"AddDocumentsNdjson", "AddDocumentsNdjsonWithContext", "AddDocumentsNdjsonInBatches", "AddDocumentsNdjsonInBatchesWithContext",
	"AddDocumentsNdjsonFromReader", "AddDocumentsNdjsonFromReaderWithContext", "AddDocumentsNdjsonFromReaderInBatches", "AddDocumentsNdjsonFromReaderInBatchesWithContext",
	"UpdateDocuments", "UpdateDocumentsWithContext", "UpdateDocumentsInBatches", "UpdateDocumentsInBatchesWithContext",
	"UpdateDocumentsCsv", "UpdateDocumentsCsvWithContext", "UpdateDocumentsCsvInBatches", "UpdateDocumentsCsvInBatchesWithContext",
	"UpdateDocumentsNdjson", "UpdateDocumentsNdjsonWithContext", "UpdateDocumentsNdjsonInBatches", "UpdateDocumentsNdjsonInBatchesWithContext",
	"DeleteDocument", "DeleteDocumentWithContext", "DeleteDocuments", "DeleteDocumentsWithContext",
	"DeleteDocumentsByFilter", "DeleteDocumentsByFilterWithContext", "DeleteAllDocuments", "DeleteAllDocumentsWithContext",
}

// effects returns one Always effect of kind k per name.
func effects(k Kind, recv string, names ...string) []Rule {
	out := each(Effect, "", recv, names...)
	for i := range out {
		out[i].Kind = k
	}
	return out
}

var brokers = concat(
	// --- RabbitMQ: amqp091-go and streadway/amqp ---------------------------
	[]Rule{
		{Name: "({amqp}.Delivery).Ack", Role: Ack},
		{Name: "({amqp}.Channel).Ack", Role: Ack},
		{Name: "({amqp}.Acknowledger).Ack", Role: Ack},
		{Name: "({amqp}.Delivery).Nack", Role: Nack, Arg: "requeue"},
		{Name: "({amqp}.Delivery).Reject", Role: Nack, Arg: "requeue"},
		{Name: "({amqp}.Channel).Nack", Role: Nack, Arg: "requeue"},
		{Name: "({amqp}.Channel).Reject", Role: Nack, Arg: "requeue"},
		// Key: the queue consumed (for exclusive queues).
		{Name: "({amqp}.Channel).Consume", Role: AutoAckConsume, Arg: "autoAck", Key: "queue"},
		{Name: "({amqp}.Channel).QueueDeclare", Role: ExclusiveQueue, Arg: "exclusive"},
		{Name: "({amqp}.Channel).Publish", Role: Publish},
		{Name: "(github.com/rabbitmq/amqp091-go.Channel).ConsumeWithContext", Role: AutoAckConsume, Arg: "autoAck", Key: "queue"},
	},
	each(Publish, "amqp", "github.com/rabbitmq/amqp091-go.Channel", "PublishWithContext", "PublishWithDeferredConfirm", "PublishWithDeferredConfirmWithContext"),

	// --- RabbitMQ: cheshir/go-mq (v1 and v2) ---------------------------------
	goMQ("github.com/cheshir/go-mq/v2", "MessageQueue"),
	goMQ("github.com/cheshir/go-mq", "MQ"),

	// --- Kafka: sarama (IBM, formerly Shopify) ------------------------------
	[]Rule{
		{Name: "({sarama}.ConsumerGroupSession).MarkMessage", Role: Ack, Arg: "msg"},
		{Name: "({sarama}.ConsumerGroupSession).MarkOffset", Role: Ack},
		{Name: "({sarama}.ConsumerGroupClaim).Messages", Role: Fetch},
		{Name: "({sarama}.PartitionConsumer).Messages", Role: Fetch},
	},
	each(Publish, "sarama", "{sarama}.SyncProducer", "SendMessage", "SendMessages"),

	// --- Kafka: bsm/sarama-cluster (a group consumer over Shopify/sarama) ---
	[]Rule{
		{Name: "(github.com/bsm/sarama-cluster.Consumer).Messages", Role: Fetch},
		{Name: "(github.com/bsm/sarama-cluster.Consumer).MarkOffset", Role: Ack, Arg: "msg"},
		{Name: "(github.com/bsm/sarama-cluster.Consumer).MarkPartitionOffset", Role: Ack},
		{Name: "(github.com/bsm/sarama-cluster.Consumer).MarkOffsets", Role: Ack},
		{Name: "(github.com/bsm/sarama-cluster.PartitionConsumer).MarkOffset", Role: Ack},
	},

	// --- Kafka: segmentio/kafka-go --------------------------------------------
	[]Rule{
		{Name: "(github.com/segmentio/kafka-go.Reader).FetchMessage", Role: Fetch},
		{Name: "(github.com/segmentio/kafka-go.Reader).ReadMessage", Role: Fetch},
		{Name: "(github.com/segmentio/kafka-go.Reader).ReadMessage", Role: AutoAckRead,
			AutoCommit: &AutoCommit{Ctor: "NewReader", GroupField: "GroupID"}},
		{Name: "(github.com/segmentio/kafka-go.Reader).CommitMessages", Role: Ack, Arg: "msgs"},
		{Name: "(github.com/segmentio/kafka-go.Writer).WriteMessages", Role: Publish},
	},

	// --- Kafka: twmb/franz-go -------------------------------------------------
	func() []Rule {
		ac := &AutoCommit{Ctor: "NewClient", ManualOptions: []string{"DisableAutoCommit", "AutoCommitMarks"}, GroupOptions: []string{"ConsumerGroup"}}
		const c = "github.com/twmb/franz-go/pkg/kgo.Client"
		return concat([]Rule{
			{Name: "(" + c + ").PollFetches", Role: Fetch},
			{Name: "(" + c + ").PollRecords", Role: Fetch},
			{Name: "(" + c + ").PollFetches", Role: AutoAckRead, AutoCommit: ac},
			{Name: "(" + c + ").PollRecords", Role: AutoAckRead, AutoCommit: ac},
			{Name: "(" + c + ").CommitRecords", Role: Ack, Arg: "rs"},
			{Name: "(" + c + ").MarkCommitRecords", Role: Ack, Arg: "rs"},
			{Name: "(" + c + ").CommitUncommittedOffsets", Role: Ack},
			{Name: "(" + c + ").CommitMarkedOffsets", Role: Ack},
			// ProduceSync's results: their error is the publish's.
			{Name: "(github.com/twmb/franz-go/pkg/kgo.ProduceResults).FirstErr", Role: Reply},
			{Name: "(github.com/twmb/franz-go/pkg/kgo.ProduceResults).First", Role: Reply},
		}, each(Publish, "franz-go", c, "Produce", "ProduceSync", "TryProduce"))
	}(),

	// --- Kafka: confluent-kafka-go --------------------------------------------
	func() []Rule {
		ac := &AutoCommit{Ctor: "NewConsumer", ManualKeys: []string{"enable.auto.commit", "enable.auto.offset.store"}}
		const c = "{confluent}.Consumer"
		return []Rule{
			{Name: "(" + c + ").ReadMessage", Role: Fetch},
			{Name: "(" + c + ").Poll", Role: Fetch},
			{Name: "(" + c + ").ReadMessage", Role: AutoAckRead, AutoCommit: ac},
			{Name: "(" + c + ").Poll", Role: AutoAckRead, AutoCommit: ac},
			{Name: "(" + c + ").CommitMessage", Role: Ack, Arg: "m"},
			{Name: "(" + c + ").StoreMessage", Role: Ack, Arg: "m"},
			{Name: "(" + c + ").Commit", Role: Ack},
			{Name: "(" + c + ").CommitOffsets", Role: Ack},
			{Name: "({confluent}.Producer).Produce", Role: Publish},
		}
	}(),

	// --- NATS: nats.go (core and legacy JetStream) ----------------------------
	each(Ack, "nats", "github.com/nats-io/nats.go.Msg", "Ack", "AckSync"),
	each(Nack, "nats", "github.com/nats-io/nats.go.Msg", "Nak", "NakWithDelay", "Term"),
	each(Fetch, "nats", "github.com/nats-io/nats.go.Subscription", "Fetch", "FetchBatch", "NextMsg", "NextMsgWithContext"),
	[]Rule{
		{Name: "(github.com/nats-io/nats.go.JetStream).Subscribe", Role: Subscribe, Arg: "cb", ManualOption: "ManualAck"},
		{Name: "(github.com/nats-io/nats.go.JetStream).QueueSubscribe", Role: Subscribe, Arg: "cb", ManualOption: "ManualAck"},
		{Name: "(github.com/nats-io/nats.go.JetStreamContext).Subscribe", Role: Subscribe, Arg: "cb", ManualOption: "ManualAck"},
		{Name: "(github.com/nats-io/nats.go.JetStreamContext).QueueSubscribe", Role: Subscribe, Arg: "cb", ManualOption: "ManualAck"},
	},
	// A core NATS subscription (not JetStream) has no acks and no
	// redelivery: its handlers see a message once, or never.
	[]Rule{
		{Name: "(github.com/nats-io/nats.go.Conn).Subscribe", Role: AtMostOnce, Arg: "cb", Client: "nats"},
		{Name: "(github.com/nats-io/nats.go.Conn).QueueSubscribe", Role: AtMostOnce, Arg: "cb", Client: "nats"},
	},
	each(Publish, "nats", "github.com/nats-io/nats.go.Conn", "Publish", "PublishMsg"),
	// A request-reply is a call to the service that answers: an effect when
	// its subject names a write (orders.create), a publish otherwise.
	[]Rule{
		{Name: "(github.com/nats-io/nats.go.Conn).Request", Role: Effect, Kind: RPC, Mode: RequestSubject, Arg: "subj", Client: "nats"},
		{Name: "(github.com/nats-io/nats.go.Conn).RequestWithContext", Role: Effect, Kind: RPC, Mode: RequestSubject, Arg: "subj", Client: "nats"},
		{Name: "(github.com/nats-io/nats.go.Conn).RequestMsg", Role: Publish, Client: "nats"},
	},
	each(Publish, "nats", "github.com/nats-io/nats.go.JetStream", "Publish", "PublishMsg", "PublishAsync", "PublishMsgAsync"),
	each(Publish, "nats", "github.com/nats-io/nats.go.JetStreamContext", "Publish", "PublishMsg", "PublishAsync", "PublishMsgAsync"),

	// --- NATS: the jetstream package ------------------------------------------
	each(Ack, "jetstream", "github.com/nats-io/nats.go/jetstream.Msg", "Ack", "DoubleAck"),
	each(Ack, "gizmo", "github.com/NYTimes/gizmo/pubsub.SubscriberMessage", "Done"),
	each(Nack, "jetstream", "github.com/nats-io/nats.go/jetstream.Msg", "Nak", "NakWithDelay", "Term", "TermWithReason"),
	each(Fetch, "jetstream", "github.com/nats-io/nats.go/jetstream.Consumer", "Next", "Fetch", "FetchNoWait", "FetchBytes"),
	each(Fetch, "jetstream", "github.com/nats-io/nats.go/jetstream.MessagesContext", "Next"),
	each(Fetch, "jetstream", "github.com/nats-io/nats.go/jetstream.MessageBatch", "Messages"),
	each(Publish, "jetstream", "github.com/nats-io/nats.go/jetstream.*", "Publish", "PublishMsg", "PublishAsync", "PublishMsgAsync"),
	// A KV bucket's writes: by key, an overwrite or a compare-and-set, so
	// no effect a redelivery repeats, but work a lost message loses.
	each(KVWrite, "jetstream", "github.com/nats-io/nats.go/jetstream.KeyValue", "Put", "PutString", "Create", "Update", "Delete", "Purge"),
	each(KVWrite, "nats", "github.com/nats-io/nats.go.KeyValue", "Put", "PutString", "Create", "Update", "Delete", "Purge"),
	// A Meilisearch index's documents: added or replaced (or merged, or
	// deleted) by their primary key, so no effect a redelivery repeats, but
	// work a lost message loses. UpdateDocumentsByFunction runs a script
	// that may accumulate: not listed.
	each(KVWrite, "meilisearch", "github.com/meilisearch/meilisearch-go.DocumentManager", meilisearchWrites...),
	// Firestore: Add makes a document with a new id on every call; a
	// document's Create, Set, Update and Delete write it by its path
	// (an Update by firestore.Increment adds again; not told apart).
	effects(Document, "cloud.google.com/go/firestore.CollectionRef", "Add"),
	each(KVWrite, "firestore", "cloud.google.com/go/firestore.DocumentRef", "Create", "Set", "Update", "Delete"),
	each(KVWrite, "firestore", "cloud.google.com/go/firestore.Transaction", "Create", "Set", "Update", "Delete"),
	// Elasticsearch's document requests: indexed, updated or deleted by
	// their id (an IndexRequest without DocumentID makes a new document
	// each time; the catalog does not tell them apart).
	kvRequests("elasticsearch", "{esapi}", "IndexRequest", "CreateRequest", "UpdateRequest", "DeleteRequest"),
	// Its reads: a row looked up (no state: an entry has no fields), a
	// step whose failure a redelivery may not meet again.
	each(RowLookup, "jetstream", "github.com/nats-io/nats.go/jetstream.KeyValue", "Get", "GetRevision"),
	each(RowLookup, "nats", "github.com/nats-io/nats.go.KeyValue", "Get", "GetRevision"),

	// --- NATS Streaming (stan.go) ------------------------------------------------------
	[]Rule{
		{Name: "(github.com/nats-io/stan.go.Conn).Subscribe", Role: Register, Arg: "cb", Client: "nats streaming"},
		{Name: "(github.com/nats-io/stan.go.Conn).QueueSubscribe", Role: Register, Arg: "cb", Client: "nats streaming"},
	},
	each(Ack, "nats streaming", "github.com/nats-io/stan.go.Msg", "Ack"),
	each(Publish, "nats streaming", "github.com/nats-io/stan.go.Conn", "Publish", "PublishAsync"),

	// --- Watermill ----------------------------------------------------------------
	[]Rule{
		{Name: "(github.com/ThreeDotsLabs/watermill/message.Message).Ack", Role: Ack},
		{Name: "(github.com/ThreeDotsLabs/watermill/message.Message).Nack", Role: Nack},
		{Name: "(github.com/ThreeDotsLabs/watermill/message.Subscriber).Subscribe", Role: Fetch},
		{Name: "(github.com/ThreeDotsLabs/watermill/message.Publisher).Publish", Role: Publish},
	},

	// --- Google Cloud Pub/Sub (v1 and v2 share the internal Message) ----------
	each(Ack, "pubsub", "{pubsub}.Message", "Ack", "AckWithResult"),
	each(Nack, "pubsub", "{pubsub}.Message", "Nack", "NackWithResult"),
	[]Rule{
		{Name: "(cloud.google.com/go/pubsub.Topic).Publish", Role: Publish},
		{Name: "(cloud.google.com/go/pubsub/v2.Publisher).Publish", Role: Publish},
	},

	// --- dp-kafka: Commit (and Mark, which a later commit carries) acks; a
	// registered handler's message is committed whatever it returns, unless
	// its error says otherwise (a Commiter). Producers send to Kafka.
	each(Ack, "dp-kafka", "github.com/ONSdigital/dp-kafka/v2.Message", "Commit", "CommitAndRelease", "Mark"),
	each(Ack, "dp-kafka", "{dpkafkaif}.Message", "Commit", "CommitAndRelease", "Mark"),
	func() []Rule {
		var out []Rule
		for _, t := range []string{"{dpkafka}.ConsumerGroup", "{dpkafka}.IConsumerGroup"} {
			out = append(out,
				Rule{Name: "(" + t + ").RegisterHandler", Role: Register, Arg: "h", Client: "dp-kafka", CommitsAlways: true},
				Rule{Name: "(" + t + ").RegisterBatchHandler", Role: Register, Arg: "batchHandler", Client: "dp-kafka", CommitsAlways: true})
		}
		return out
	}(),
	func() []Rule {
		var out []Rule
		for _, t := range []string{"v5.Producer", "v5.IProducer", "v4.Producer", "v4.IProducer"} {
			out = append(out, each(Publish, "dp-kafka", "github.com/ONSdigital/dp-kafka/"+t, "Send", "SendJSON", "SendBytes")...)
		}
		return out
	}(),

	// --- AWS SQS (aws-sdk-go-v2) --------------------------------------------------
	[]Rule{
		{Name: "(github.com/aws/aws-sdk-go-v2/service/sqs.Client).ReceiveMessage", Role: Fetch},
		{Name: "(github.com/aws/aws-sdk-go-v2/service/sqs.Client).DeleteMessage", Role: Ack},
		{Name: "(github.com/aws/aws-sdk-go-v2/service/sqs.Client).DeleteMessageBatch", Role: Ack},
		{Name: "(github.com/aws/aws-sdk-go-v2/service/sqs.Client).ChangeMessageVisibility", Role: Nack},
	},
	each(Publish, "sqs", "github.com/aws/aws-sdk-go-v2/service/sqs.Client", "SendMessage", "SendMessageBatch"),
	// River's inserts enqueue jobs, as asynq's Enqueue does.
	each(Publish, "river", "github.com/riverqueue/river.Client", "Insert", "InsertTx", "InsertMany", "InsertManyTx",
		"InsertManyFast", "InsertManyFastTx"),

	// --- asynq and RocketMQ ---------------------------------------------------------
	each(Publish, "asynq", "github.com/hibiken/asynq.Client", "Enqueue", "EnqueueContext"),

	// --- gocraft/work (Redis job queue): a job function returning nil is
	// done, an error retries it (MaxFails, then the dead set) -------------
	[]Rule{
		{Name: "(github.com/gocraft/work.WorkerPool).Job", Role: Register, Arg: "fn"},
		{Name: "(github.com/gocraft/work.WorkerPool).JobWithOptions", Role: Register, Arg: "fn"},
	},
	each(Publish, "gocraftwork", "github.com/gocraft/work.Enqueuer", "Enqueue", "EnqueueIn", "EnqueueUnique", "EnqueueUniqueIn"),
	[]Rule{
		{Name: "(github.com/hibiken/asynq.ServeMux).HandleFunc", Role: Register, Arg: "handler"},
		{Name: "(github.com/hibiken/asynq.ServeMux).Handle", Role: Register, Arg: "handler"},
	},
	each(Publish, "rocketmq", "github.com/apache/rocketmq-client-go/v2.Producer", "SendSync", "SendAsync", "SendOneWay"),

	// --- NSQ (go-nsq) -----------------------------------------------------------------
	each(Ack, "nsq", "github.com/nsqio/go-nsq.Message", "Finish"),
	each(Nack, "nsq", "github.com/nsqio/go-nsq.Message", "Requeue", "RequeueWithoutBackoff"),
	[]Rule{
		{Name: "(github.com/nsqio/go-nsq.Consumer).AddHandler", Role: Register, Arg: "handler", Client: "nsq"},
		{Name: "(github.com/nsqio/go-nsq.Consumer).AddConcurrentHandlers", Role: Register, Arg: "handler", Client: "nsq"},
	},
	each(Publish, "nsq", "github.com/nsqio/go-nsq.Producer", "Publish", "MultiPublish", "DeferredPublish"),

	// --- MQTT: eclipse/paho.mqtt.golang (3.1.1) and eclipse/paho.golang (5) ------------
	// A QoS 1 PUBLISH is sent again until the client's PUBACK, which both
	// clients send when the callback returns unless acks are manual
	// (SetAutoAckDisabled, EnableManualAcknowledgment: then Ack).
	[]Rule{
		{Name: "(github.com/eclipse/paho.mqtt.golang.Client).Subscribe", Role: Register, Arg: "callback", Client: "mqtt"},
		{Name: "(github.com/eclipse/paho.mqtt.golang.Client).Subscribe", Role: AtMostOnce, Arg: "callback", WhenZero: "qos", Client: "mqtt"},
		{Name: "(github.com/eclipse/paho.mqtt.golang.Client).SubscribeMultiple", Role: Register, Arg: "callback", Client: "mqtt"},
		{Name: "(github.com/eclipse/paho.mqtt.golang.Client).AddRoute", Role: Register, Arg: "callback", Client: "mqtt"},
		{Name: "(github.com/eclipse/paho.mqtt.golang.ClientOptions).SetDefaultPublishHandler", Role: Register, Arg: "defaultHandler", Client: "mqtt"},
		{Name: "(github.com/eclipse/paho.golang/paho.StandardRouter).RegisterHandler", Role: Register, Arg: "h", Client: "mqtt"},
		{Name: "(github.com/eclipse/paho.golang/paho.Client).AddOnPublishReceived", Role: Register, Arg: "f", Client: "mqtt"},
		{Name: "(github.com/eclipse/paho.golang/autopaho.ConnectionManager).AddOnPublishReceived", Role: Register, Arg: "f", Client: "mqtt"},
		{Name: "(github.com/eclipse/paho.golang/paho.Client).Ack", Role: Ack, Arg: "pb", Client: "mqtt"},
	},
	each(Ack, "mqtt", "github.com/eclipse/paho.mqtt.golang.Message", "Ack"),
	each(Publish, "mqtt", "github.com/eclipse/paho.mqtt.golang.Client", "Publish"),
	each(Publish, "mqtt", "github.com/eclipse/paho.golang/paho.Client", "Publish"),
	each(Publish, "mqtt", "github.com/eclipse/paho.golang/autopaho.ConnectionManager", "Publish"),

	// --- Slack socket mode: events arrive on Client.Events and are sent
	// again unless acked (Ack) within three seconds.
	[]Rule{
		{Name: "(github.com/slack-go/slack/socketmode.Client).Ack", Role: Ack, Client: "slack socket mode"},
		{Name: "(github.com/slack-go/slack/socketmode.Client).AckCtx", Role: Ack, Client: "slack socket mode"},
	},
	func() []Rule {
		var out []Rule
		for _, n := range []string{"Handle", "HandleEvents", "HandleSlashCommand", "HandleDefault"} {
			out = append(out, Rule{Name: "(github.com/slack-go/slack/socketmode.SocketmodeHandler)." + n, Role: Register, Arg: "f", Client: "slack socket mode"})
		}
		return out
	}(),

	// --- Apache Pulsar ------------------------------------------------------------------
	each(Fetch, "pulsar", "github.com/apache/pulsar-client-go/pulsar.Consumer", "Receive", "Chan"),
	each(Ack, "pulsar", "github.com/apache/pulsar-client-go/pulsar.Consumer", "Ack", "AckID", "AckIDList", "AckCumulative", "AckIDCumulative"),
	each(Nack, "pulsar", "github.com/apache/pulsar-client-go/pulsar.Consumer", "Nack", "NackID", "ReconsumeLater"),
	each(Publish, "pulsar", "github.com/apache/pulsar-client-go/pulsar.Producer", "Send", "SendAsync"),

	// --- Go CDK pub/sub (gocloud.dev) ---------------------------------------------------
	each(Fetch, "gocloud pubsub", "gocloud.dev/pubsub.Subscription", "Receive"),
	each(Ack, "gocloud pubsub", "gocloud.dev/pubsub.Message", "Ack"),
	each(Nack, "gocloud pubsub", "gocloud.dev/pubsub.Message", "Nack"),
	each(Publish, "gocloud pubsub", "gocloud.dev/pubsub.Topic", "Send"),

	// --- Job queues and frameworks whose handlers take no broker message --------------
	// (a decoded event, a task's arguments, a key and a value): the
	// registration call is what makes its argument a handler. go-queue's kq
	// commits a message whatever its handler returns (ForceCommit, true by
	// default; when false it skips the commit, and the next message's
	// commit covers the failed offset).
	[]Rule{
		{Name: "github.com/riverqueue/river.WorkFunc", Role: Register, Arg: "f", Client: "river"},
		// River's transactional completion: the job is completed by the
		// transaction that holds the work's writes, so a retry finds either
		// nothing committed or the job done.
		{Name: "github.com/riverqueue/river.JobCompleteTx", Role: CompleteTx, Arg: "tx", Client: "river"},
		{Name: "({machinery}.Server).RegisterTask", Role: Register, Arg: "taskFunc", Client: "machinery"},
		{Name: "({machinery}.Server).RegisterTasks", Role: Register, Arg: "namedTaskFuncs", Client: "machinery"},
		{Name: "github.com/zeromicro/go-queue/kq.MustNewQueue", Role: Register, Arg: "handler", Client: "go-queue", CommitsAlways: true},
		{Name: "github.com/zeromicro/go-queue/kq.NewQueue", Role: Register, Arg: "handler", Client: "go-queue", CommitsAlways: true},
		{Name: "github.com/zeromicro/go-queue/kq.WithHandle", Role: Register, Arg: "handle", Client: "go-queue", CommitsAlways: true},
		{Name: "{gomicro}.RegisterSubscriber", Role: Register, Arg: "h", Client: "go-micro"},
		{Name: "{gomicro}/broker.Subscribe", Role: Register, Arg: "handler", Client: "go-micro"},
		{Name: "({gomicro}/broker.Broker).Subscribe", Role: Register, Arg: "h", Client: "go-micro"},
		{Name: "({gomicro}/broker.Event).Ack", Role: Ack, Client: "go-micro"},
		{Name: "github.com/ThreeDotsLabs/watermill/components/cqrs.NewEventHandler", Role: Register, Arg: "handleFunc", Client: "watermill"},
		{Name: "github.com/ThreeDotsLabs/watermill/components/cqrs.NewCommandHandler", Role: Register, Arg: "handleFunc", Client: "watermill"},
		{Name: "github.com/ThreeDotsLabs/watermill/components/cqrs.NewGroupEventHandler", Role: Register, Arg: "handleFunc", Client: "watermill"},
		{Name: "(github.com/dapr/go-sdk/service/common.Service).AddTopicEventHandler", Role: Register, Arg: "fn", Client: "dapr"},
	},
	each(Publish, "go-queue", "github.com/zeromicro/go-queue/kq.Pusher", "Push", "PushWithKey", "KPush"),
	[]Rule{
		{Name: "{gomicro}/broker.Publish", Role: Publish, Client: "go-micro"},
		{Name: "({gomicro}/broker.Broker).Publish", Role: Publish, Client: "go-micro"},
		{Name: "(github.com/ThreeDotsLabs/watermill/components/cqrs.EventBus).Publish", Role: Publish, Client: "watermill"},
		{Name: "(github.com/ThreeDotsLabs/watermill/components/cqrs.CommandBus).Send", Role: Publish, Client: "watermill"},
	},

	// --- Azure Service Bus ----------------------------------------------------------------
	each(Fetch, "azservicebus", "github.com/Azure/azure-sdk-for-go/sdk/messaging/azservicebus.Receiver", "ReceiveMessages"),
	each(Ack, "azservicebus", "github.com/Azure/azure-sdk-for-go/sdk/messaging/azservicebus.Receiver", "CompleteMessage"),
	each(Nack, "azservicebus", "github.com/Azure/azure-sdk-for-go/sdk/messaging/azservicebus.Receiver", "AbandonMessage", "DeadLetterMessage"),
	each(Publish, "azservicebus", "github.com/Azure/azure-sdk-for-go/sdk/messaging/azservicebus.Sender", "SendMessage"),

	// --- AWS SQS (aws-sdk-go v1, and its sqsiface interface) -----------------------------
	func() []Rule {
		var out []Rule
		for _, t := range []string{"github.com/aws/aws-sdk-go/service/sqs.SQS", "github.com/aws/aws-sdk-go/service/sqs/sqsiface.SQSAPI"} {
			out = concat(out,
				each(Fetch, "sqs", t, "ReceiveMessage", "ReceiveMessageWithContext"),
				each(Ack, "sqs", t, "DeleteMessage", "DeleteMessageWithContext"),
				each(Nack, "sqs", t, "ChangeMessageVisibility", "ChangeMessageVisibilityWithContext"),
				each(Publish, "sqs", t, "SendMessage", "SendMessageWithContext"))
		}
		return out
	}(),
)

var redis = concat(
	[]Rule{
		{Name: "({redis}.*).XReadGroup", Role: Fetch},
		{Name: "({redis}.*).XAutoClaim", Role: Fetch},
		{Name: "({redis}.*).XClaim", Role: Fetch},
		{Name: "({redis}.*).XAck", Role: Ack},
		{Name: "({redis}.*).XAckDel", Role: Ack},
		// A list as a queue: a pop returns the next job (blocking, or
		// polled until the list is empty), a blocking move hands it over
		// and keeps it in a processing list until the worker removes it
		// (a reliable queue). The non-blocking RPOPLPUSH and LMOVE, which
		// rotate lists as often as they take jobs, stay effects.
		{Name: "({redis}.*).BRPop", Role: Fetch},
		{Name: "({redis}.*).BLPop", Role: Fetch},
		{Name: "({redis}.*).RPop", Role: Fetch},
		{Name: "({redis}.*).LPop", Role: Fetch},
		{Name: "({redis}.*).BRPopLPush", Role: Fetch},
		{Name: "({redis}.*).BLMove", Role: Fetch},
		{Name: "(github.com/redis/go-redis/v9.*).BLMPop", Role: Fetch}, // v8 has no BLMPOP
		// A pop removes the job from the list as it returns it: the
		// list forgets the job before the worker's effect, and a crash
		// or a failure only logged loses it (an auto-ack read). The
		// blocking moves keep it in a processing list until the worker
		// removes it.
		{Name: "({redis}.*).BRPop", Role: AutoAckRead, AutoCommit: &AutoCommit{Always: true}},
		{Name: "({redis}.*).BLPop", Role: AutoAckRead, AutoCommit: &AutoCommit{Always: true}},
		{Name: "({redis}.*).RPop", Role: AutoAckRead, AutoCommit: &AutoCommit{Always: true}},
		{Name: "({redis}.*).LPop", Role: AutoAckRead, AutoCommit: &AutoCommit{Always: true}},
		{Name: "(github.com/redis/go-redis/v9.*).BLMPop", Role: AutoAckRead, AutoCommit: &AutoCommit{Always: true}},
	},
	// Non-idempotent commands: a repeat changes the value again. SADD, ZADD,
	// SET, HSET, SETBIT, PFADD are idempotent (a repeat leaves the same
	// value) and are not effects.
	effects(Redis, "{redis}.*",
		"Incr", "IncrBy", "IncrByFloat", "Decr", "DecrBy",
		"HIncrBy", "HIncrByFloat", "ZIncrBy",
		"LPush", "RPush", "LPushX", "RPushX", "LInsert", "LInsertBefore", "LInsertAfter",
		"Append", "RPopLPush", "LMove", "SMove",
		"JSONNumIncrBy", "JSONArrAppend", "TSAdd", "TSIncrBy", "TSDecrBy"),
	[]Rule{
		{Name: "({redis}.*).SetNX", Role: SetNX, Key: "key"},
		{Name: "({redis}.*).HSetNX", Role: SetNX, Key: "key"},
		{Name: "({redis}.*).SetArgs", Role: SetArgs, Arg: "a", Key: "key"},
		{Name: "({redis}.*).Del", Role: RedisDel, Key: "#1"},
		{Name: "({redis}.*).Unlink", Role: RedisDel, Key: "#1"},
		{Name: "({redis}.*).HDel", Role: RedisDel, Key: "key"},
		{Name: "({redis}.*).SRem", Role: RedisDel, Key: "key"},
		{Name: "({redis}.*).ZRem", Role: RedisDel, Key: "key"},
		{Name: "({redis}.*).LRem", Role: RedisDel, Key: "key"},
		{Name: "({redis}.*).Exists", Role: RedisLookup, Key: "#1"},
		{Name: "({redis}.*).Get", Role: RedisLookup, Key: "key"},
		{Name: "({redis}.*).SIsMember", Role: RedisLookup, Key: "key"},
		{Name: "({redis}.*).HExists", Role: RedisLookup, Key: "key"},
		{Name: "({redis}.*).HGet", Role: RedisLookup, Key: "key"},
		{Name: "({redis}.*).TxPipelined", Role: RedisTx, Arg: "fn"},
		{Name: "({redis}.*).Watch", Role: RedisTx, Arg: "fn"},
		// A command's reply: its value, its error, or both.
		{Name: "({redis}.*).Val", Role: Reply},
		{Name: "({redis}.*).Result", Role: Reply},
		{Name: "({redis}.*).Err", Role: Reply},
	},
	each(RedisMark, "redis", "{redis}.*", "Set", "SetEx", "SAdd", "HSet", "HMSet", "MSet", "ZAdd", "Expire"),
	// XADD appends a message to a stream: publishing, like PUBLISH (the
	// stream's consumers deduplicate), not a write of the handler's own.
	each(Publish, "redis", "{redis}.*", "Publish", "SPublish", "XAdd"),
	// go-zero's core/stores/redis: one method per command (and a …Ctx
	// twin), its reply returned directly ((bool, error) for SETNX).
	func() []Rule {
		const z = "github.com/zeromicro/go-zero/core/stores/redis.Redis"
		ctx := func(names ...string) []string {
			var out []string
			for _, n := range names {
				out = append(out, n, n+"Ctx")
			}
			return out
		}
		out := concat(
			effects(Redis, z, ctx("Incr", "Incrby", "Decr", "Decrby", "Hincrby", "Zincrby", "Lpush", "Rpush")...),
			each(RedisMark, "redis", z, ctx("Set", "Setex", "Sadd", "Hset", "Hmset", "Expire")...))
		for _, n := range ctx("Setnx", "SetnxEx") {
			out = append(out, Rule{Name: "(" + z + ")." + n, Role: SetNX, Key: "key"})
		}
		for _, n := range ctx("Del") {
			out = append(out, Rule{Name: "(" + z + ")." + n, Role: RedisDel, Key: "keys"})
		}
		for _, n := range ctx("Hdel") {
			out = append(out, Rule{Name: "(" + z + ")." + n, Role: RedisDel, Key: "key"})
		}
		return out
	}(),
	// redigo names the command by a string: classified by RedisCommands.
	func() []Rule {
		var out []Rule
		for _, p := range []string{"github.com/gomodule/redigo/redis", "github.com/garyburd/redigo/redis"} {
			out = append(out,
				Rule{Name: "(" + p + ".Conn).Do", Role: Effect, Mode: RedisCommand, Kind: Redis, Arg: "commandName"},
				Rule{Name: "(" + p + ".Conn).Send", Role: Effect, Mode: RedisCommand, Kind: Redis, Arg: "commandName"})
		}
		out = append(out,
			Rule{Name: "(github.com/gomodule/redigo/redis.ConnWithContext).DoContext", Role: Effect, Mode: RedisCommand, Kind: Redis, Arg: "commandName"},
			Rule{Name: "github.com/gomodule/redigo/redis.DoContext", Role: Effect, Mode: RedisCommand, Kind: Redis, Arg: "cmd"})
		return out
	}(),
)

// sql returns an SQL effect rule.
// PostgREST's Go clients (supabase-go's From hands out their QueryBuilder),
// under the module's old path and the community's: From(t) names the
// table, Insert, Upsert, Update, Delete or Select the statement, Execute
// runs it. Insert(v, true, …) and Upsert are upserts (merge-duplicates).
var postgrestPaths = []string{"github.com/supabase/postgrest-go", "github.com/supabase-community/postgrest-go"}

func postgrestBuilders() []QueryBuilder {
	var out []QueryBuilder
	for _, p := range postgrestPaths {
		out = append(out, QueryBuilder{Type: p + ".FilterBuilder", Chain: []string{p + ".QueryBuilder"},
			Build: []string{"Execute", "ExecuteTo", "ExecuteString"}, From: []string{"From"},
			Verbs:   map[string]string{"Insert": "INSERT INTO", "Upsert": "INSERT INTO", "Update": "UPDATE", "Delete": "DELETE FROM", "Select": "SELECT * FROM"},
			Upserts: map[string]int{"Insert": 1, "Upsert": -1}})
	}
	return out
}

func postgrestRules() []Rule {
	var out []Rule
	for _, p := range postgrestPaths {
		for _, t := range []string{"FilterBuilder", "QueryBuilder"} {
			for _, m := range []string{"Execute", "ExecuteTo", "ExecuteString"} {
				out = append(out, sql("("+p+"."+t+")."+m, SQLBuilt, ""))
			}
		}
	}
	return out
}

func sql(name string, m Mode, arg string) Rule {
	return Rule{Name: name, Role: Effect, Mode: m, Kind: SQL, Arg: arg}
}

var sqlRules = concat(
	// --- xorm: inserts and accumulating updates (Incr, Decr) are effects;
	// Update sets columns to values and Delete removes: a repeat changes
	// nothing.
	func() []Rule {
		var out []Rule
		for _, recv := range []string{"Engine", "Session"} {
			for _, n := range []string{"Insert", "InsertOne", "InsertMulti", "Incr", "Decr"} {
				if recv == "Engine" && n == "InsertMulti" {
					continue
				}
				out = append(out, Rule{Name: "(xorm.io/xorm." + recv + ")." + n, Role: Effect, Kind: SQL})
			}
		}
		return out
	}(),
	// Get(&bean) reads a row (for state checks); Update(bean) and gorm's
	// Save write one, the columns Cols names or the fields set.
	[]Rule{
		{Name: "(xorm.io/xorm.Engine).Get", Role: RowLookup, Arg: "beans"},
		{Name: "(xorm.io/xorm.Session).Get", Role: RowLookup, Arg: "beans"},
		{Name: "(xorm.io/xorm.Engine).Update", Role: RowWrite, Arg: "bean"},
		{Name: "(xorm.io/xorm.Session).Update", Role: RowWrite, Arg: "bean"},
		{Name: "(xorm.io/xorm.Engine).Cols", Role: Columns, Arg: "columns"},
		{Name: "(xorm.io/xorm.Session).Cols", Role: Columns, Arg: "columns"},
		{Name: "(xorm.io/xorm.Engine).MustCols", Role: Columns, Arg: "columns"},
		{Name: "(xorm.io/xorm.Session).MustCols", Role: Columns, Arg: "columns"},
	},
	// --- database/sql ---------------------------------------------------------------
	func() []Rule {
		var out []Rule
		for _, recv := range []string{"DB", "Tx", "Conn"} {
			t := "(database/sql." + recv + ")."
			out = append(out,
				sql(t+"ExecContext", SQLExec, "query"),
				sql(t+"QueryContext", SQLQuery, "query"),
				sql(t+"QueryRowContext", SQLQuery, "query"),
				Rule{Name: t + "PrepareContext", Role: Prepare, Arg: "query"})
			if recv == "Conn" {
				continue // a Conn has only the Context methods
			}
			out = append(out,
				sql(t+"Exec", SQLExec, "query"),
				sql(t+"Query", SQLQuery, "query"),
				sql(t+"QueryRow", SQLQuery, "query"),
				Rule{Name: t + "Prepare", Role: Prepare, Arg: "query"})
		}
		return out
	}(),
	[]Rule{
		sql("(database/sql.Stmt).Exec", SQLStmt, ""),
		sql("(database/sql.Stmt).ExecContext", SQLStmt, ""),
		{Name: "(database/sql.Result).RowsAffected", Role: RowsAffected},
		{Name: "(database/sql.Row).Scan", Role: Scan},
		{Name: "(database/sql.Rows).Scan", Role: Scan},
		{Name: "(database/sql.Tx).Stmt", Role: Prepare}, // Tx.Stmt(stmt): the query of stmt
		{Name: "(database/sql.Tx).Commit", Role: Commit},
		{Name: "({pgx}.Tx).Commit", Role: Commit},
		{Name: "({pgxpool}.Tx).Commit", Role: Commit},
	},

	// --- pgx v5 and v4 --------------------------------------------------------------
	func() []Rule {
		var out []Rule
		for _, t := range []string{"{pgx}.Conn", "{pgx}.Tx", "{pgxpool}.Pool", "{pgxpool}.Conn", "{pgxpool}.Tx"} {
			out = append(out,
				sql("("+t+").Exec", SQLExec, "sql"),
				sql("("+t+").Query", SQLQuery, "sql"),
				sql("("+t+").QueryRow", SQLQuery, "sql"),
				Rule{Name: "(" + t + ").CopyFrom", Role: Effect, Kind: SQL, Into: "tableName", Cols: "columnNames"})
		}
		return append(out,
			sql("({pgx}.Batch).Queue", SQLExec, "query"),
			Rule{Name: "({pgx}.Row).Scan", Role: Scan},
			Rule{Name: "({pgx}.Rows).Scan", Role: Scan},
			Rule{Name: "(github.com/jackc/pgx/v5/pgconn.CommandTag).RowsAffected", Role: RowsAffected},
			Rule{Name: "(github.com/jackc/pgconn.CommandTag).RowsAffected", Role: RowsAffected}) // pgx v4's
	}(),

	// --- ClickHouse (clickhouse-go v2's native API; its database/sql driver
	// matches database/sql). A batch's rows are sent by Send; the statement
	// is the one PrepareBatch is given, so the prepare stands for the write.
	func() []Rule {
		conn := "(github.com/ClickHouse/clickhouse-go/v2/lib/driver.Conn)."
		return []Rule{
			sql(conn+"Exec", SQLExec, "query"),
			sql(conn+"AsyncInsert", SQLExec, "query"),
			sql(conn+"PrepareBatch", SQLExec, "query"),
			sql(conn+"Query", SQLQuery, "query"),
			sql(conn+"QueryRow", SQLQuery, "query"),
			{Name: "(github.com/ClickHouse/clickhouse-go/v2/lib/driver.Row).Scan", Role: Scan},
			{Name: "(github.com/ClickHouse/clickhouse-go/v2/lib/driver.Rows).Scan", Role: Scan},
		}
	}(),

	// --- sqlx (its promoted database/sql methods match database/sql) ----------------
	func() []Rule {
		var out []Rule
		for _, recv := range []string{"DB", "Tx"} {
			t := "(github.com/jmoiron/sqlx." + recv + ")."
			out = append(out,
				sql(t+"NamedExec", SQLExec, "query"),
				sql(t+"NamedExecContext", SQLExec, "query"),
				sql(t+"MustExec", SQLExec, "query"),
				sql(t+"MustExecContext", SQLExec, "query"),
				sql(t+"NamedQuery", SQLQuery, "query"),
				sql(t+"QueryRowx", SQLQuery, "query"),
				sql(t+"QueryRowxContext", SQLQuery, "query"),
				sql(t+"Queryx", SQLQuery, "query"),
				sql(t+"QueryxContext", SQLQuery, "query"))
		}
		return append(out,
			sql("(github.com/jmoiron/sqlx.DB).NamedQueryContext", SQLQuery, "query"),
			sql("github.com/jmoiron/sqlx.NamedExec", SQLExec, "query"),
			sql("github.com/jmoiron/sqlx.NamedExecContext", SQLExec, "query"),
			Rule{Name: "(github.com/jmoiron/sqlx.Row).Scan", Role: Scan})
	}(),

	// --- gorm (gorm.io/gorm, and v1 at github.com/jinzhu/gorm, whose
	// methods name their parameters differently) ---------------------------------------
	func() []Rule {
		var out []Rule
		for _, g := range []struct{ pkg, attr, dest, conds string }{
			{"gorm.io/gorm", "value", "dest", "conds"},
			{"github.com/jinzhu/gorm", "attrs", "out", "where"},
		} {
			db := "(" + g.pkg + ".DB)."
			out = append(out,
				sql(db+"Create", GormCreate, "value"),
				sql(db+"Update", GormUpdate, g.attr),
				sql(db+"UpdateColumn", GormUpdate, g.attr),
				sql(db+"Updates", GormUpdate, "values"),
				sql(db+"UpdateColumns", GormUpdate, "values"),
				sql(db+"Exec", SQLExec, "sql"),
				sql(db+"Raw", SQLQuery, "sql"),
				// Model(&Invoice{}) names the table of an update; Select the columns.
				Rule{Name: db + "Model", Role: Model, Arg: "value"},
				Rule{Name: db + "Select", Role: Columns, Arg: "query"},
				// Save writes a row: the columns the fields set.
				Rule{Name: db + "Save", Role: RowWrite, Arg: "value"})
			// First(&o, id): o is the row, for state checks.
			for _, n := range []string{"First", "Take", "Last", "Find", "FirstOrInit"} {
				out = append(out, Rule{Name: db + n, Role: RowLookup, Arg: g.dest, Key: g.conds})
			}
		}
		return append(out, sql("(gorm.io/gorm.DB).CreateInBatches", GormCreate, "value"))
	}(),

	// --- MongoDB --------------------------------------------------------------------
	effects(Mongo, "{mongo}.Collection", "BulkWrite"),
	func() []Rule {
		out := []Rule{
			{Name: "({mongo}.Collection).InsertOne", Role: Effect, Kind: Mongo, Mode: Insert},
			{Name: "({mongo}.Collection).InsertMany", Role: Effect, Kind: Mongo, Mode: Insert},
		}
		for _, n := range []string{"UpdateOne", "UpdateMany", "UpdateByID", "FindOneAndUpdate"} {
			out = append(out, Rule{Name: "({mongo}.Collection)." + n, Role: Effect, Kind: Mongo, Mode: MongoUpdate, Arg: "update"})
		}
		// FindOne(…).Decode(&o): o is the document, for state checks.
		out = append(out, Rule{Name: "({mongo}.Collection).FindOne", Role: RowLookup, Key: "filter"},
			Rule{Name: "({mongo}.SingleResult).Decode", Role: Scan},
			Rule{Name: "({mongo}.Database).Collection", Role: Collection, Arg: "name"})
		return append(out, Rule{Name: "{mongo}.IsDuplicateKeyError", Role: UniqueTest, Arg: "err"})
	}(),

	// --- ent: a generated create builder's Save calls sqlgraph with a spec
	// naming the table (updates are not classified; a plain insert: the
	// conflict options of the spec are not read; the generated query
	// builders' reads are recognised by their shape, not listed); bun: an insert query, classified by its chain (On("CONFLICT
	// … DO NOTHING"), Ignore()) as gorm's Create by its clauses.
	[]Rule{
		{Name: "entgo.io/ent/dialect/sql/sqlgraph.CreateNode", Role: Effect, Kind: SQL, Arg: "spec"},
		{Name: "entgo.io/ent/dialect/sql/sqlgraph.BatchCreate", Role: Effect, Kind: SQL},
		sql("(github.com/uptrace/bun.InsertQuery).Exec", GormCreate, ""),
		sql("(github.com/uptrace/bun.InsertQuery).Scan", GormCreate, ""),
	},
	// --- PostgREST (supabase): the statement its builder's chain builds.
	postgrestRules(),
	// --- pop (gobuffalo): Create inserts; Update and Destroy set and remove.
	effects(SQL, "github.com/gobuffalo/pop/v6.Connection", "Create", "ValidateAndCreate"),
)

// gRPC: a unary call; generated clients call Invoke with a constant full
// method name ("/wallet.v1.Wallet/Credit").
var rpcRules = []Rule{
	{Name: "(google.golang.org/grpc.ClientConn).Invoke", Role: Effect, Kind: RPC, Mode: RPCMethod, Arg: "method"},
	{Name: "(google.golang.org/grpc.ClientConnInterface).Invoke", Role: Effect, Kind: RPC, Mode: RPCMethod, Arg: "method"},
}

var httpRules = []Rule{
	{Name: "(net/http.Client).Do", Role: Effect, Kind: HTTP, Mode: HTTPDo, Arg: "req"},
	{Name: "(net/http.Client).Post", Role: Effect, Kind: HTTP, Mode: HTTPPost},
	{Name: "(net/http.Client).PostForm", Role: Effect, Kind: HTTP, Mode: HTTPPost},
	{Name: "net/http.Post", Role: Effect, Kind: HTTP, Mode: HTTPPost},
	{Name: "net/http.PostForm", Role: Effect, Kind: HTTP, Mode: HTTPPost},
	{Name: "net/http.NewRequest", Role: NewRequest, Arg: "method"},
	{Name: "net/http.NewRequestWithContext", Role: NewRequest, Arg: "method"},
	{Name: "(net/http.Header).Set", Role: HeaderSet, Arg: "key", Key: "value"},
	{Name: "(net/http.Header).Add", Role: HeaderSet, Arg: "key", Key: "value"},
	{Name: "net/smtp.SendMail", Role: Effect, Kind: SMTP},
	{Name: "(net/smtp.Client).Data", Role: Effect, Kind: SMTP},
}

// Mail, SMS and push SDKs: each call sends once more on a redelivery.
var notifyRules = concat(
	[]Rule{
		{Name: "github.com/emersion/go-smtp.SendMail", Role: Effect, Kind: SMTP},
		{Name: "github.com/emersion/go-smtp.SendMailTLS", Role: Effect, Kind: SMTP},
		{Name: "{gomail}.Send", Role: Effect, Kind: SMTP},
	},
	effects(SMTP, "github.com/emersion/go-smtp.Client", "Data", "SendMail"),
	effects(SMTP, "{gomail}.Dialer", "DialAndSend"),
	effects(SMTP, "github.com/wneessen/go-mail.Client", "DialAndSend", "DialAndSendWithContext", "Send"),
	effects(SMTP, "github.com/xhit/go-simple-mail/v2.Email", "Send", "SendEnvelopeFrom"),
	effects(SMTP, "github.com/sendgrid/sendgrid-go.Client", "Send", "SendWithContext"),
	effects(SMTP, "github.com/mailgun/mailgun-go/v4.MailgunImpl", "Send"),
	effects(SMTP, "github.com/mailgun/mailgun-go/v4.Mailgun", "Send"),
	effects(SMTP, "github.com/aws/aws-sdk-go-v2/service/sesv2.Client", "SendEmail", "SendBulkEmail"),
	effects(SMTP, "github.com/aws/aws-sdk-go-v2/service/ses.Client", "SendEmail", "SendRawEmail", "SendTemplatedEmail"),
	effects(HTTP, "github.com/twilio/twilio-go/rest/api/v2010.ApiService", "CreateMessage"),
	// go-elasticsearch's bulk indexer: Add queues an action that its
	// workers flush later; Flush and Close wait for them.
	each(Background, "elasticsearch", "{esutil}.BulkIndexer", "Add"),
	each(Wait, "elasticsearch", "{esutil}.BulkIndexer", "Flush", "Close"),
	effects(HTTP, "github.com/slack-go/slack.Client", "PostMessage", "PostMessageContext", "PostEphemeral", "PostEphemeralContext", "SendMessage", "SendMessageContext"),
	effects(HTTP, "github.com/aws/aws-sdk-go-v2/service/sns.Client", "Publish", "PublishBatch"), // an SMS, a push, a topic's subscribers
	// Firebase Cloud Messaging: Client's sends are promoted from an
	// unexported embedded client, hence any type of the package.
	effects(HTTP, "firebase.google.com/go/v4/messaging.*", "Send", "SendEach", "SendEachForMulticast", "SendAll", "SendMulticast"),
)

// The idem runtime: Do(ctx, consumer, key, fp, apply) and Run(…) run apply
// only for a fresh key; Claim returns a lease whose Outcome decides. The
// broker adapters take a guard.Handler (a generated handler, or a
// guard.HandlerFunc whose body calls the guard) and ack by its answer: the
// handler they are given is guarded, as a Do callback is. The key is inside
// the handler, so those rules have none. watermillguard.Middleware takes no
// handler (it maps the errors of handlers wrapped elsewhere) and is not a
// rule. Positions, not names: the adapters are this project's own code.
var idemRules = concat(
	func() []Rule {
		var out []Rule
		for _, t := range []string{"github.com/idemkit/idem/guard.SQLStore", "github.com/idemkit/idem/guard.SQLEngine", "github.com/idemkit/idem/guard.Store",
			"github.com/idemkit/idem/guard/pgxguard.Store", "github.com/idemkit/idem/guard/redisguard.Store"} {
			if t != "github.com/idemkit/idem/guard.Store" { // the Store interface has no Do: its transaction type differs per store
				out = append(out, Rule{Name: "(" + t + ").Do", Role: GuardInside, Arg: "#4", Key: "#2"})
			}
			out = append(out,
				Rule{Name: "(" + t + ").Run", Role: GuardInside, Arg: "#4", Key: "#2"},
				Rule{Name: "(" + t + ").Claim", Role: Claim, Key: "#2"})
		}
		return out
	}(),
	[]Rule{
		{Name: "github.com/idemkit/idem/guard.RunLease", Role: GuardInside, Arg: "#2"},
		// A guard.Handler (a generated handler behind the interface) called
		// directly: guarded work whose error must not be acked away.
		{Name: "(github.com/idemkit/idem/guard.Handler).Handle", Role: GuardInside},
		{Name: "(github.com/idemkit/idem/guard.HandlerFunc).Handle", Role: GuardInside},
		{Name: "(github.com/idemkit/idem/guard.Lease).Outcome", Role: Outcome},
		{Name: "github.com/idemkit/idem/guard.Permanent", Role: Benign},
		{Name: "github.com/idemkit/idem/guard.IsRejected", Role: Benign},
		{Name: "github.com/idemkit/idem/guard.NewOwnerToken", Role: FreshValue},
		{Name: "github.com/idemkit/idem/guard/jetstreamguard.Handle", Role: GuardInside, Arg: "#2"},
		{Name: "github.com/idemkit/idem/guard/jetstreamguard.Consume", Role: GuardInside, Arg: "#2"},
		{Name: "github.com/idemkit/idem/guard/jetstreamguard.Handler", Role: GuardInside, Arg: "#0"},
		{Name: "github.com/idemkit/idem/guard/amqpguard.Handle", Role: GuardInside, Arg: "#2"},
		{Name: "github.com/idemkit/idem/guard/amqpguard.Consume", Role: GuardInside, Arg: "#3"},
		{Name: "github.com/idemkit/idem/guard/kafkaguard.Consume", Role: GuardInside, Arg: "#2"},
		{Name: "github.com/idemkit/idem/guard/watermillguard.Handler", Role: GuardInside, Arg: "#0"},
	},
)

// The standard library and common helpers: waiting, decoding, classifying
// errors, generating fresh values, functions that never return.
var stdRules = concat(
	[]Rule{
		{Name: "(sync.WaitGroup).Wait", Role: Wait},
		{Name: "(golang.org/x/sync/errgroup.Group).Wait", Role: Wait},
		{Name: "errors.Is", Role: Benign},
		{Name: "errors.As", Role: Benign},
		// The item is gone already (sent and deleted by an earlier
		// delivery): skipping it is deliberate, not a lost message.
		{Name: "os.IsNotExist", Role: Benign},
		// A context's error is a shutdown, not a failed step.
		{Name: "(context.Context).Err", Role: Ignore},
		{Name: "context.WithValue", Role: ContextValue, Arg: "val", Key: "parent"},
	},
	// Decoding and validation: a failure is a poison message, acked on purpose.
	func() []Rule {
		var out []Rule
		for _, p := range []string{"encoding/json", "github.com/json-iterator/go", "encoding/xml", "encoding/gob", "encoding/base64", "encoding/hex",
			"strconv", "time", "net/url", "google.golang.org/protobuf/proto", "github.com/golang/protobuf/proto",
			"github.com/vmihailenco/msgpack/v5", "github.com/go-playground/validator/v10", "errors", "fmt", "io"} {
			out = append(out, Rule{Name: p, Role: Decode})
		}
		return out
	}(),
	// Serialization: a package that both encodes and decodes the items it
	// hands from a channel to a registered function is a queue of its own
	// (items stored and read back), not an in-memory worker pool.
	func() []Rule {
		var out []Rule
		codec := func(pkg string, enc, dec []string) {
			for _, n := range enc {
				out = append(out, Rule{Name: qualify(pkg, n), Role: Serialize})
			}
			for _, n := range dec {
				out = append(out, Rule{Name: qualify(pkg, n), Role: Deserialize})
			}
		}
		codec("encoding/json", []string{"Marshal", "MarshalIndent", "(Encoder).Encode"}, []string{"Unmarshal", "(Decoder).Decode"})
		codec("encoding/xml", []string{"Marshal", "(Encoder).Encode"}, []string{"Unmarshal", "(Decoder).Decode"})
		codec("encoding/gob", []string{"(Encoder).Encode"}, []string{"(Decoder).Decode"})
		for _, p := range []string{"google.golang.org/protobuf/proto", "github.com/golang/protobuf/proto",
			"github.com/vmihailenco/msgpack/v5", "github.com/goccy/go-json", "github.com/bytedance/sonic"} {
			codec(p, []string{"Marshal"}, []string{"Unmarshal"})
		}
		codec("github.com/json-iterator/go", []string{"Marshal", "(API).Marshal", "(Encoder).Encode"},
			[]string{"Unmarshal", "(API).Unmarshal", "(Decoder).Decode"})
		return out
	}(),
	// Values new on every call: a key built only from them and constants
	// cannot tell a redelivery from a new message.
	func() []Rule {
		var out []Rule
		for _, n := range []string{"time.Now", "math/rand.Int", "math/rand.Int63", "math/rand.Uint64",
			"math/rand/v2.Int", "math/rand/v2.Uint64", "math/rand/v2.N",
			"github.com/google/uuid.New", "github.com/google/uuid.NewString", "github.com/google/uuid.NewRandom", "github.com/google/uuid.NewV7",
			"github.com/gofrs/uuid.NewV4", "github.com/gofrs/uuid/v5.NewV4",
			"github.com/segmentio/ksuid.New", "github.com/rs/xid.New", "github.com/oklog/ulid/v2.Make", "crypto/rand.Text"} {
			out = append(out, Rule{Name: n, Role: FreshValue})
		}
		for _, n := range []string{"crypto/rand.Read", "math/rand.Read", "(math/rand.Rand).Read", "(math/rand/v2.ChaCha8).Read"} {
			out = append(out, Rule{Name: n, Role: RandRead})
		}
		for _, n := range []string{"UnixNano", "UnixMicro", "UnixMilli", "Unix", "String"} {
			out = append(out, Rule{Name: "(time.Time)." + n, Role: ClockMethod})
		}
		return out
	}(),
	func() []Rule {
		var out []Rule
		for _, n := range []string{"os.Exit", "runtime.Goexit", "log.Fatal", "log.Fatalf", "log.Fatalln",
			"log.Panic", "log.Panicf", "log.Panicln",
			"(log.Logger).Fatal", "(log.Logger).Fatalf", "(log.Logger).Fatalln",
			"(log.Logger).Panic", "(log.Logger).Panicf", "(log.Logger).Panicln",
			"(testing.common).FailNow", "(testing.common).Fatal", "(testing.common).Fatalf",
			"(testing.common).SkipNow", "(testing.common).Skip", "(testing.common).Skipf"} {
			out = append(out, Rule{Name: n, Role: NoReturn})
		}
		return out
	}(),
)

// Telemetry: logging, metrics, tracing and error reporting. Never a
// business effect, never a step whose failure loses a message; a function
// of the program whose calls reach only telemetry is telemetry too.
var telemetry = func() []Rule {
	var out []Rule
	for _, p := range []string{
		"log", "log/slog", "log/syslog", "expvar", "runtime/trace", "runtime/pprof",
		"go.uber.org/zap/...", "github.com/rs/zerolog/...", "github.com/sirupsen/logrus/...",
		"github.com/go-logr/logr/...", "github.com/go-kit/log/...", "github.com/go-kit/kit/log/...",
		"github.com/go-kit/kit/metrics/...", "k8s.io/klog/...", "github.com/golang/glog",
		"github.com/hashicorp/go-hclog", "github.com/inconshreveable/log15/...", "github.com/apex/log/...",
		"github.com/charmbracelet/log", "github.com/labstack/gommon/log", "github.com/phuslu/log",
		"github.com/prometheus/client_golang/...", "github.com/prometheus/client_model/...",
		"go.opentelemetry.io/otel/...", "go.opentelemetry.io/contrib/...", "github.com/opentracing/opentracing-go/...",
		"github.com/uber/jaeger-client-go/...", "github.com/openzipkin/zipkin-go/...",
		"github.com/getsentry/sentry-go/...", "github.com/getsentry/raven-go", "github.com/rollbar/rollbar-go",
		"github.com/bugsnag/bugsnag-go/...", "github.com/airbrake/gobrake/...", "github.com/honeybadger-io/honeybadger-go",
		"github.com/DataDog/datadog-go/...", "gopkg.in/DataDog/dd-trace-go.v1/...", "github.com/DataDog/dd-trace-go/...",
		"github.com/newrelic/go-agent/...", "go.elastic.co/apm/...", "github.com/honeycombio/beeline-go/...",
		"github.com/armon/go-metrics/...", "github.com/hashicorp/go-metrics/...", "github.com/rcrowley/go-metrics",
		"github.com/uber-go/tally/...", "github.com/cactus/go-statsd-client/...", "github.com/alexcesaro/statsd",
		"github.com/smira/go-statsd", "github.com/VictoriaMetrics/metrics", "go.opencensus.io/...",
	} {
		out = append(out, Rule{Name: p, Role: Telemetry})
	}
	return out
}()

// qualify names member n of package pkg: "(T).M" becomes "(pkg.T).M", a
// function F "pkg.F".
func qualify(pkg, n string) string {
	if rest, ok := strings.CutPrefix(n, "("); ok {
		return "(" + pkg + "." + rest
	}
	return pkg + "." + n
}

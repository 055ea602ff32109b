// Package spec reads and validates idem specs: the YAML file (idem.yaml)
// that declares, per message-queue consumer, the message, its business key
// and the kind of side effect, from which idemgen generates guarded handlers
// and the migrations of the dedup table.
//
// docs/spec.md of the repository is the reference for users, with every
// field, its default and its rules, and the API idemgen generates.
//
// [Load] reads a file, [Parse] validates bytes, [Resolve] looks up the Go
// types a spec names. The result is a [Spec]: plain data with every default
// filled in, which the generator consumes. [GoName] is the one naming rule
// shared with the generator.
//
// # Example
//
//	version: 1
//	package: orders
//	output: ./orders
//	dialect: postgres
//	consumers:
//	  - name: deduct_inventory
//	    topic: orders.created
//	    message:
//	      fields:
//	        order_id: string
//	        sku: string
//	        quantity: int64
//	    key: [order_id, sku]
//	    fingerprint: [quantity]
//	    effect: sql
//	  - name: send_sms
//	    message: {fields: {order_id: string, phone: string, template: string}}
//	    key: [order_id, template]
//	    effect: external
//	    store: redis
//	    lease: 30s
//	    delivery: at-least-once
//	    on_error: release
//	  - name: add_points_redis
//	    message: {fields: {order_id: string, user_id: string, points: int64}}
//	    key: [order_id]
//	    effect: redis
//	    hash_tag: user_id
//
// # Top-level settings
//
//   - version (required): the spec format; only 1 exists. It is read first:
//     without it, or with another value, that is the only error reported.
//   - package (required): Go package name of the generated code. Lowercase
//     letters, digits and _, starting with a letter; not a Go keyword.
//   - output: folder of the generated Go, relative to the spec's folder
//     (default "."). Slash-separated names of letters, digits, ., _ and -
//     (no spaces or control characters, at most 1024 characters, no .git);
//     may not be absolute, leave the module (the folder of the nearest
//     go.mod above the spec; without a go.mod, the spec's own folder), be
//     a file, or be or pass through a symbolic link.
//   - sql_package: the SQL client the generated code uses: database/sql
//     (default) or pgx/v5 (which needs dialect postgres).
//   - dialect: postgres, mysql or sqlite. Selects the migrations only; the
//     store passed in at run time decides the rest. Required when a consumer
//     keeps its dedup records in SQL (effect sql, or effect external with
//     store sql) and with pgx/v5.
//   - table: the dedup table (default idem_keys). A SQL identifier: letters,
//     digits and _, not starting with a digit, at most 63 characters, and
//     not a reserved word of PostgreSQL or MySQL (order, user, key, …): the
//     statements name it bare.
//   - migrations: where and how the dedup table's migrations are written.
//     dir: folder, relative and of the same form as output (default
//     ./migrations/idem); format: golang-migrate (default), goose or plain;
//     version: number of the first file, from 1 (default) to
//     999999999999999, which admits timestamps.
//   - retention: how long outcomes are kept, for every consumer that does not
//     set its own (default 168h). A Go duration (15m, 168h, 1h30m) of at
//     least 1m (MinRetention, which the guard runtime requires too): below
//     it, the error suggests the likely unit (168ns: did you mean 168h?).
//   - consumers (required): the guarded handlers, at least one.
//
// # Consumers
//
//   - name (required): snake_case (lowercase letters and digits, words
//     separated by one _), unique, at most 191 characters. It names the
//     generated types and is the consumer's namespace in the dedup table.
//     Consumer deduct_inventory generates DeductInventory (the message, the
//     method of the package's Effects interface and the field of its
//     Handlers), DeductInventoryHandler, DeductInventoryFunc and
//     NewDeductInventoryHandler; names from different consumers that collide
//     (x_handler and x both give XHandler; a_1 and a1 both give A1) are
//     errors, and so are the names of the package-wide API: effects, stores,
//     handlers, new_handlers, service and topics cannot name a consumer.
//     Renaming a consumer starts a new namespace (see Renaming a consumer).
//   - topic: the topic, subject, queue or routing key the consumer reads:
//     documentation and example wiring. Letters, digits and the signs
//     . _ : / * > # + and - (no spaces), at most 512 characters.
//   - message (required): the message the handler decodes: either fields
//     or type (see Messages).
//   - key (required): the business key: one or more message fields, in key
//     order, none repeated, none of type float64 or bytes. The generated
//     IdempotencyKey encodes them in this order. Fields are named by their
//     JSON names here, in fingerprint and in hash_tag: letters, digits, _, -
//     and ., starting with a letter or _, at most 128 characters.
//   - key_version: the version of the consumer's keys, an integer from 1
//     (default). The namespace of the dedup records, the consumer column of
//     the dedup table and the generated <Name>Consumer constant, is the
//     name for version 1 and name@v<N> for N ≥ 2 (at most 191 characters),
//     so keys of two versions never meet. Raise it to change the key (see
//     Key changes).
//   - fingerprint: the fields compared when a key is seen again: a
//     different fingerprint within the retention is a key conflict, not a
//     duplicate. Default: every declared field (for a message.type, every
//     field of a supported type; when the struct has others, list the
//     fingerprint explicitly). An explicit [] turns the comparison off.
//   - effect (required): how the side effect is made atomic with the dedup
//     record. sql: in the same SQL transaction; redis: queued in the same
//     MULTI/EXEC; external: outside any transaction, under a lease (an HTTP
//     call, an email).
//   - retention: this consumer's retention (default: the top-level one).
//   - store, lease, delivery, on_error: for effect external only; an error
//     elsewhere. store: where the claim lives, sql (default) or redis. lease:
//     how long a claim blocks duplicates before it may be taken over (default
//     30s; at least 1s, MinLease, and shorter than the retention). delivery: at-least-once (default; an
//     expired lease is taken over and the call may run again, so pass the
//     lease's key to the provider) or at-most-once (an expired lease makes
//     the key uncertain; the call never runs twice without an operator).
//     on_error: release (default; a retry runs again) or keep (a failed key
//     stays failed). Under at-most-once, release frees only errors wrapped
//     with guard.NotPerformed.
//   - hash_tag: for effect redis only: a message field (of a key type) whose
//     value becomes the Redis Cluster hash tag, so the dedup key and the
//     effect's keys share a slot. A field outside key costs one more round
//     trip: each key is pinned to its first tag (redisguard.PinHashTag), so
//     that another tag is guard.ErrKeyConflict.
//
// # Messages
//
// message.fields declares the message's fields in order, name: type. Names
// are the JSON names, as the producer writes them: letters, digits, _, - and
// ., starting with a letter or _, at most 128 characters (order_id,
// order-id, orderId, order.id, _id). The json tag of the generated struct
// field keeps the name as it is; the field's Go name comes from it by one
// rule, [GoName]'s:
//
//  1. split the name into words at _, - and ., and where the case changes
//     (orderId → order Id, HTTPServer → HTTP Server; digits stay with the
//     word before them);
//  2. title-case each word, except golint's initialisms (ID, URL, HTTP,
//     JSON, SQL, UUID, …), which are upper-cased;
//  3. join the words: order_id, order-id, orderId and order.id all give
//     OrderID, _id gives ID, sku gives Sku.
//
// A name whose Go name is empty (_) or starts with a digit (_2fa) is an
// error, and so are two names with the same Go name (a_b and a__b give AB;
// order_id and orderId give OrderID) and the Go names of the generated
// methods (IdempotencyKey, Fingerprint, UnmarshalJSON, MarshalJSON,
// Validate). The types:
//
//	string, int, int32, int64, uint32, uint64, bool, float64
//	time   time.Time, RFC 3339 in JSON
//	bytes  []byte, base64 in JSON
//	uuid   a string holding a canonical (lowercase) UUID
//
// message.type names an existing Go struct instead, import/path.TypeName
// (an import path the go command accepts), loaded with go/packages from the
// spec's folder (so the spec's go.mod decides what is found). Its fields are
// the JSON fields encoding/json sees: json tags honoured (a tag name
// encoding/json rejects falls back to the Go name, as it does there), "-"
// skipped, untagged embedded structs promoted; a field whose JSON name is
// not of the form above cannot be used. Key,
// fingerprint and hash_tag fields must be among them, with a supported Go
// type: the types above by their underlying type (type OrderID string is a
// string), not a pointer, struct, map, or [16]byte UUID.
//
// YAML anchors, aliases and merge keys (<<) may share settings between
// consumers. A spec is a single YAML document of at most 1 MiB; unknown
// fields and repeated keys are errors at every level. However its aliases
// and merges expand, Parse reads at most 250,000 nodes and reports at most
// 100 errors (and how many more there were). A byte order mark and CRLF line
// ends are fine; NUL bytes and invalid UTF-8 are errors.
//
// # Key changes
//
// A consumer's key identity ([KeyIdentity]) is what its keys mean: the
// namespace, the key fields in order with their types, the key encoding
// (v1), the fingerprint fields with their types and, with one, the
// hash_tag field. The generated handler records it as a constant,
//
//	const DeductInventoryKeyIdentity = "idem-key/1 consumer=deduct_inventory key=order_id:string,sku:string encoding=v1 fingerprint=quantity:int64"
//
// and declares it to the store (guard.WithKeyIdentity), which refuses to
// work for a namespace whose recorded identity differs. Changing the key
// under the same namespace would make every message already handled count
// as new and run its effect again; changing the fingerprint would make its
// redeliveries fail as key conflicts. So idemgen generate and check read the
// identity recorded in the existing generated file and refuse such a change
// at the consumer's key (or fingerprint, hash_tag), saying what changed:
//
//	idem.yaml:8:10: consumers[0].key: the key identity of deduct_inventory changed (key order_id:string,sku:string → order_id:string): messages already handled would count as new and run their effect again; keep the old key, or set key_version: 2 to start a new namespace (…)
//
// A new consumer, or a generated file deleted, records no identity and is
// accepted (the store's check still applies); so is a file of an idemgen
// older than the identity, which records it from then on. To change a key:
//
//  1. Drain the consumer's queue (stop the producers, let the consumer
//     finish), or accept that messages in flight during the switch are
//     handled once more: under the new namespace no old key is known.
//  2. Raise key_version (1 → 2) along with the key change, regenerate and
//     deploy. The handler now writes and reads its records under
//     name@v2; handlers of the old version, still running, keep name.
//  3. The old records are never read again and expire with the retention
//     (Purge removes them); nothing needs migrating.
//
// Lowering key_version goes back to an old namespace, whose records may
// still be within the retention: the store's identity check is then what
// guards it.
//
// # Renaming a consumer
//
// A consumer's name is its namespace, so a renamed consumer is a new one to
// the store: none of the keys its messages had under the old name is known
// under the new, and every message handled before the rename that comes
// again (a redelivery, a resend, a replay) runs its effect once more. There
// is no setting that keeps the old namespace under a new name. So rename
// only a consumer whose queue is drained, or keep the name (its Go names
// follow it; wrap them in your own if they read badly).
//
// idemgen generate removes the handler of the old name (<old>_idem.go, a
// file with idemgen's header in the spec's output folder; never a stub or
// another file) and writes the new one's handler and stub; it says which
// file it removed, that the old stub (<old>_apply.go, whose effect method
// names the old message type, so the package does not build) is yours to
// delete or move into the new stub, and, when a new consumer has the old
// one's key identity, that it is likely the same consumer renamed, with the
// warning above. idemgen check says the same, and keeps reporting an old
// stub that still declares the effect of a consumer no longer in the spec.
// The old records are never read again and expire with the retention.
//
// # Errors
//
// Every problem is reported, not just the first, as an [ErrorList] sorted
// by position; each [Error] names the file, line and column of the
// offending node and the setting's path:
//
//	idem.yaml:14:12: consumers[1].key[0]: field "sku" is not declared in message
//	idem.yaml:9:5: consumers[0].lease: lease applies only to effect: external
//
// YAML syntax errors carry only the line yaml.v3 reports (column 1).
// Resolve's errors are positioned at the consumer's message.type.
//
// # JSON Schema
//
// [Schema] (idem.schema.json in this folder) describes the same format for
// editors (yaml-language-server). It checks every setting and the rules
// between settings that JSON Schema can express: lease, delivery, on_error
// and store only with effect external, hash_tag only with effect redis,
// fields or type, dialect when a consumer uses SQL, pgx/v5 with postgres.
// Only Parse and Resolve catch: repeated consumer names; colliding Go names;
// key, fingerprint and hash_tag fields that are not declared (or are
// float64/bytes in a key); lease not shorter than retention; durations
// below the minimums; reserved words as table names; names whose Go form is
// empty or starts with a digit; paths that leave the module, are files or
// pass through links; names in a folder longer than 255 characters; a
// second YAML document; and everything about message.type beyond its form.
//
// # Specs built by programs
//
// [Spec.Validate] applies the rules of every string and setting to a Spec
// that a program built or edited; the generator calls it, so that no string
// outside its grammar reaches generated code, comments, file names or SQL.
package spec

// Package generator turns a parsed idem spec into the files idemgen writes:
// for each consumer a guarded handler in Go (rewritten on every run) and a
// stub holding its effect (written once, then the user's); for the spec the
// package-wide API (Effects, Stores, Handlers, NewHandlers) and the stub of
// Service, the user's type that implements Effects; and the migrations of
// the dedup table (immutable once written). docs/spec.md of the repository
// describes the spec and the generated API for users.
//
// One pipeline serves every use. Generate computes the files in memory,
// deterministically; Plan compares them with a folder and says what would
// change; Write carries the changes out atomically, writing nothing when any
// check fails; Diff prints the changes as a unified diff in git's form (a/
// on disk, b/ generated), which is what `idemgen check` reports for a stale
// tree.
//
// # The generated Go
//
// Go is built with jennifer, one jen.File per output file, so imports are
// managed (and renamed on collisions) by jennifer and the output is gofmt'ed.
// For a consumer deduct_inventory the file deduct_inventory_idem.go holds:
//
//   - a reference to guard.SupportPackageIsVersion1, so that a runtime too
//     old (or too new) for the generated code fails at compile time;
//   - the constants DeductInventoryConsumer (the namespace of its dedup
//     records: the consumer's name, with @v<N> for key_version N ≥ 2),
//     DeductInventoryKeyIdentity (its spec.KeyIdentity) and
//     DeductInventoryTopic (when the spec names a topic);
//   - the message struct DeductInventory with json tags, unless the spec
//     names an existing Go type (message.type);
//   - IdempotencyKey and Fingerprint methods on it, which encode the business
//     key (guard.KeyBuilder, the v1 key encoding) and the fingerprint
//     (guard.FingerprintBuilder); for an existing Go type, on which no method
//     can be declared, the package-level functions deductInventoryKey and
//     deductInventoryFingerprint;
//   - DeductInventoryFunc, the type of the apply function, whose second
//     parameter depends on the effect: *sql.Tx or pgx.Tx (effect sql),
//     redis.Pipeliner (effect redis), *guard.Lease (effect external);
//   - DeductInventoryHandler with NewDeductInventoryHandler, Handle (decode a
//     JSON body, then HandleMessage) and HandleMessage (key, fingerprint,
//     then the store's Do — or Run for external effects).
//
// The file handlers_idem.go (HandlersFile) holds what the package's
// consumers share:
//
//   - Effects, an interface with one method per consumer, named and typed
//     as the consumer's <Name>Func: DeductInventory(ctx, tx *sql.Tx, m
//     *DeductInventory) error;
//   - Stores, with a field per kind of store the consumers need: SQL
//     (*guard.SQLStore, or *pgxguard.Store with pgx/v5) and Redis
//     (*redisguard.Store);
//   - Handlers, a field per consumer, and NewHandlers(stores, effects,
//     opts...), which builds each with its New<Name>Handler from the store
//     of its kind and the method of effects (a nil effects or store makes
//     the handlers concerned return the error);
//   - Handlers.Topics, the handlers by topic for a broker adapter; a topic
//     several consumers read maps to fanOut, which runs each of them and
//     answers with the error that decides the message's fate (transient,
//     else in progress, else permanent).
//
// A package holds one spec's consumers: these names, and the consumer names
// that would collide with them (effects, stores, handlers, new_handlers,
// service, topics), are errors, and idemgen refuses two specs that write
// into one folder.
//
// Decoding checks presence: a key field (or the hash_tag field) absent from
// the body, or null, is guard.ErrInvalidMessage, while 0 and false are valid
// values; an empty string, the zero time or an invalid UUID in a key field is
// ErrInvalidMessage too; unknown body fields are ignored; uuid fields are put
// in their canonical, lowercase form, which a uuid hash_tag also has. The hash
// tag of a redis effect is the hash_tag field's value as a string
// (redisguard.HashTag), so that the record shares the Redis Cluster slot of
// the effect's keys tagged with it; when the hash_tag field is not a key
// field, redisguard.PinHashTag binds each key to its first tag.
//
// The spec's settings become options that the constructor layers under the
// caller's, so the caller's options win: always the table, the effective
// retention and the key identity (guard.WithKeyIdentity), and for external
// effects the lease, delivery and on_error. They
// are emitted even when they equal guard's defaults, because the store passed
// in may have been built with other options: the handler behaves as its spec
// says, whatever the store's settings, unless the caller passes options.
//
// The stub service_apply.go (ServiceFile) declares Service, an empty struct
// for the user to give the effects' dependencies. The stub
// deduct_inventory_apply.go holds Service's method DeductInventory, with the
// signature of DeductInventoryFunc and a body that returns an error until
// it is filled in (wrapped with guard.NotPerformed for external effects:
// nothing was called). A stub is written when missing and never
// overwritten; to stop it from coming back, keep the file (it may be reduced
// to its package clause). A consumer added to the spec gets its own stub
// file, so the user's stubs are never touched.
//
// # Migrations
//
// The dedup table's DDL comes from guard.CreateTableSQL and guard.DropTableSQL;
// the templates of package templates add the tool's annotations and a header
// with the command that applies them with a version table of their own
// (golang-migrate's x-migrations-table=idem_schema_migrations, goose's
// -table idem_goose_db_version), so they never collide with the application's
// migrations. Migrations are written only when a consumer keeps its records
// in SQL (effect sql, or effect external with store sql). The files, for
// version v and table t in migrations.dir:
//
//	golang-migrate  <v:%06d>_create_<t>.up.sql and .down.sql; on MySQL, whose
//	                driver runs one statement per file, one migration (and
//	                version) per statement
//	goose           <v:%05d>_create_<t>.sql, with -- +goose Up and Down
//	plain           <v:%06d>_create_<t>.sql, the up statements, with the down
//	                statements in a comment
//
// A migration is immutable: Plan refuses to overwrite one whose content
// differs, and refuses a new migration whose version another .sql file in
// the folder already has.
//
// # Key changes
//
// CheckKeyIdentities reads the key identity an existing handler records
// (its constants, parsed with go/parser from what Plan read) and refuses a
// spec that changes it under the same namespace, positioned at the
// consumer's key, fingerprint or hash_tag; see the spec package's Key
// changes.
//
// # Consumers gone from the spec
//
// A generated handler in the spec's output folder that no consumer
// produces any more is an orphan: Plan deletes it (KindDelete), Write
// removes it. Under go generate, which lists a package's files before it
// runs a directive and stops at one that has vanished, WriteAll empties it
// instead when Tree.KeepOrphan says so (KindEmpty: idemgen's header, a
// //go:build ignore constraint, the package clause), and the next run
// deletes it. GoneConsumers says what is left of each gone consumer for the
// user: the handler removed, the stub that still declares its effect (the
// method, or the apply function of an idemgen before Effects), and the new
// consumers with its key identity, its likely new name: a rename is a new
// namespace.
//
// # A tree it does not trust
//
// Plan and Write read and write through package modfs: only regular files
// (at most modfs.MaxFileSize bytes), never through a symbolic link, whether
// the file itself or a folder on its way from the module's root, and never
// outside that root. A file at a generated path that does not start with
// idemgen's header is not idemgen's: Plan reports its update as Foreign,
// without its content, and Diff shows none of it.
package generator

package ops

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"strings"

	"github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5"
	_ "github.com/jackc/pgx/v5/stdlib" // database/sql driver "pgx"
	"github.com/redis/go-redis/v9"
	_ "modernc.org/sqlite" // database/sql driver "sqlite"

	"github.com/idemkit/idem/guard"
	"github.com/idemkit/idem/guard/redisguard"
)

// The kinds of store a DSN names.
const (
	kindPostgres     = "postgres"
	kindMySQL        = "mysql"
	kindSQLite       = "sqlite"
	kindRedis        = "redis"
	kindRedisCluster = "redis-cluster"
)

// target is a parsed --store: which kind of store, how to reach it, and how
// to name it without its password.
type target struct {
	kind  string
	dsn   string   // the database/sql DSN (SQL), or the URL (redis)
	addrs []string // a Redis Cluster's addresses (from a list)
	where string   // the store as messages name it, without secrets
}

// usageError is an error in the command line: exit 2.
type usageError struct{ error }

func usagef(format string, args ...any) error { return usageError{fmt.Errorf(format, args...)} }

// parseStore parses a --store value, dialect being --dialect ("" to tell
// the kind by the value's scheme).
func parseStore(store, dialect string) (target, error) {
	if store == "" {
		return target{}, usagef("no store: pass --store DSN or set IDEM_STORE")
	}
	scheme, rest, hasScheme := strings.Cut(store, "://")
	if !hasScheme && strings.HasPrefix(store, "sqlite:") {
		scheme, rest, hasScheme = "sqlite", strings.TrimPrefix(store, "sqlite:"), true
	}
	if !hasScheme {
		switch dialect {
		case "", kindSQLite:
			return sqliteTarget(store)
		case kindPostgres:
			return postgresTarget(store)
		case kindMySQL:
			return mysqlTarget(store)
		case kindRedis:
			return redisAddrsTarget(store)
		}
		return target{}, usagef("--dialect %q: want postgres, mysql, sqlite or redis", dialect)
	}
	if dialect != "" && !strings.HasPrefix(strings.ToLower(scheme), dialect) {
		return target{}, usagef("--dialect %s does not go with a %s:// store", dialect, scheme)
	}
	switch strings.ToLower(scheme) {
	case "postgres", "postgresql":
		return postgresTarget(store)
	case "mysql", "mariadb":
		return mysqlURLTarget(store)
	case "sqlite":
		return sqliteTarget(rest)
	case "redis", "rediss":
		if hosts, _, _ := strings.Cut(rest, "/"); strings.Contains(hosts, ",") {
			return redisClusterURLTarget(store, scheme, rest)
		}
		return redisURLTarget(store)
	case "redis+cluster", "rediss+cluster":
		return redisClusterURLTarget(store, strings.TrimSuffix(scheme, "+cluster"), rest)
	}
	return target{}, usagef("store %q: unknown scheme %s:// (want postgres://, mysql://, sqlite:, redis://, rediss:// or redis+cluster://)", redactURL(store), scheme)
}

func postgresTarget(dsn string) (target, error) {
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		return target{}, usagef("postgres store: %v", err)
	}
	return target{kind: kindPostgres, dsn: dsn, where: fmt.Sprintf("postgres %s:%d/%s", cfg.Host, cfg.Port, cfg.Database)}, nil
}

// mysqlURLTarget turns mysql://user:password@host:port/db?params into
// go-sql-driver/mysql's DSN.
func mysqlURLTarget(store string) (target, error) {
	u, err := url.Parse(store)
	if err != nil {
		return target{}, usagef("mysql store: %v", redactErr(err, store))
	}
	cfg, err := mysql.ParseDSN("/?" + u.RawQuery)
	if err != nil {
		return target{}, usagef("mysql store %s: %v", redactURL(store), err)
	}
	cfg.Net, cfg.Addr, cfg.DBName = "tcp", u.Host, strings.TrimPrefix(u.Path, "/")
	if u.Port() == "" {
		cfg.Addr = u.Hostname() + ":3306"
	}
	if u.User != nil {
		cfg.User = u.User.Username()
		cfg.Passwd, _ = u.User.Password()
	}
	if cfg.Addr == ":3306" || cfg.DBName == "" {
		return target{}, usagef("mysql store %s: want mysql://user:password@host:port/database", redactURL(store))
	}
	return target{kind: kindMySQL, dsn: cfg.FormatDSN(), where: "mysql " + cfg.Addr + "/" + cfg.DBName}, nil
}

// mysqlTarget takes go-sql-driver/mysql's own DSN (--dialect mysql).
func mysqlTarget(dsn string) (target, error) {
	cfg, err := mysql.ParseDSN(dsn)
	if err != nil {
		return target{}, usagef("mysql store: %v", err)
	}
	return target{kind: kindMySQL, dsn: dsn, where: "mysql " + cfg.Addr + "/" + cfg.DBName}, nil
}

func sqliteTarget(path string) (target, error) {
	if strings.HasPrefix(path, "//") {
		path = path[2:] // sqlite:///abs/path, sqlite://rel/path
	}
	switch {
	case path == "":
		return target{}, usagef("sqlite store: no file name")
	case path == ":memory:" || strings.HasPrefix(path, "file:"):
		return target{}, usagef("sqlite store %q: want the path of a database file", path)
	}
	return target{kind: kindSQLite, dsn: path, where: "sqlite " + path}, nil
}

func redisURLTarget(store string) (target, error) {
	opt, err := redis.ParseURL(store)
	if err != nil {
		return target{}, usagef("redis store %s: %v", redactURL(store), err)
	}
	return target{kind: kindRedis, dsn: store, where: fmt.Sprintf("redis %s/%d", opt.Addr, opt.DB)}, nil
}

// redisClusterURLTarget takes redis+cluster://[user:password@]host:port,host:port[/][?params]
// (or redis:// with several addresses) to go-redis's cluster URL, whose
// further addresses are addr parameters.
func redisClusterURLTarget(store, scheme, rest string) (target, error) {
	auth, hostsAndRest, hasAuth := strings.Cut(rest, "@")
	if !hasAuth {
		auth, hostsAndRest = "", rest
	}
	end := strings.IndexAny(hostsAndRest, "/?")
	if end < 0 {
		end = len(hostsAndRest)
	}
	hosts, tail := strings.Split(hostsAndRest[:end], ","), hostsAndRest[end:]
	path, query, _ := strings.Cut(tail, "?")
	if path != "" && path != "/" {
		return target{}, usagef("redis cluster store %s: a cluster has no database number (%s)", redactURL(store), path)
	}
	for _, h := range hosts {
		if h == "" {
			return target{}, usagef("redis cluster store %s: an empty address", redactURL(store))
		}
	}
	u := scheme + "://"
	if hasAuth {
		u += auth + "@"
	}
	u += hosts[0] + "?"
	for _, h := range hosts[1:] {
		u += "addr=" + url.QueryEscape(h) + "&"
	}
	u += query
	if _, err := redis.ParseClusterURL(u); err != nil {
		return target{}, usagef("redis cluster store %s: %v", redactURL(store), err)
	}
	return target{kind: kindRedisCluster, dsn: u, where: "redis cluster " + strings.Join(hosts, ",")}, nil
}

// redisAddrsTarget takes host:port[,host:port…] (--dialect redis): one
// address is a single server, several a cluster.
func redisAddrsTarget(list string) (target, error) {
	addrs := strings.Split(list, ",")
	for _, a := range addrs {
		if !strings.Contains(a, ":") {
			return target{}, usagef("redis store %q: want host:port[,host:port…]", list)
		}
	}
	if len(addrs) == 1 {
		return target{kind: kindRedis, dsn: "redis://" + addrs[0], where: "redis " + addrs[0] + "/0"}, nil
	}
	return target{kind: kindRedisCluster, addrs: addrs, where: "redis cluster " + list}, nil
}

// redactURL hides the password of a URL.
func redactURL(s string) string {
	if u, err := url.Parse(s); err == nil {
		return u.Redacted()
	}
	if i, j := strings.Index(s, "://"), strings.LastIndex(s, "@"); i >= 0 && j > i {
		return s[:i+3] + "…" + s[j:]
	}
	return s
}

// redactErr is err's text without the URL it quotes.
func redactErr(err error, store string) error {
	return errors.New(strings.ReplaceAll(err.Error(), store, redactURL(store)))
}

// opened is a store open for a command.
type opened struct {
	store guard.Store
	op    guard.Operator
	t     target
	close func() error
}

// openStore opens and reaches the store t names, with its records in table.
func openStore(ctx context.Context, t target, table, hashTag string) (*opened, error) {
	opts := []guard.Option{guard.WithTable(table)}
	if hashTag != "" && t.kind != kindRedis && t.kind != kindRedisCluster {
		return nil, usagef("--hash-tag is for Redis stores, not %s", t.kind)
	}
	switch t.kind {
	case kindRedis, kindRedisCluster:
		return openRedis(ctx, t, hashTag, opts)
	}
	var (
		driver, dsn = "", t.dsn
		dialect     guard.Dialect
	)
	switch t.kind {
	case kindPostgres:
		driver, dialect = "pgx", guard.Postgres
	case kindMySQL:
		driver, dialect = "mysql", guard.MySQL
	case kindSQLite:
		fi, err := os.Stat(t.dsn)
		if err != nil {
			return nil, fmt.Errorf("sqlite store: %w", err)
		}
		if !fi.Mode().IsRegular() {
			return nil, fmt.Errorf("sqlite store %s: not a regular file", t.dsn)
		}
		driver, dialect, dsn = "sqlite", guard.SQLite, guard.SQLiteDSN(t.dsn)
	}
	db, err := sql.Open(driver, dsn)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", t.where, err)
	}
	db.SetMaxOpenConns(4)
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("cannot reach %s: %w", t.where, err)
	}
	s, err := guard.NewSQLStore(db, dialect, opts...)
	if err != nil {
		db.Close()
		return nil, err
	}
	return &opened{store: s, op: s, t: t, close: db.Close}, nil
}

// quiet drops go-redis's log lines (a failed dial, five times over): the
// command reports the error it returns.
type quiet struct{}

func (quiet) Printf(context.Context, string, ...any) {}

func openRedis(ctx context.Context, t target, hashTag string, opts []guard.Option) (*opened, error) {
	redis.SetLogger(quiet{})
	var client redis.UniversalClient
	switch {
	case t.kind == kindRedis:
		opt, err := redis.ParseURL(t.dsn)
		if err != nil {
			return nil, usagef("%s: %v", t.where, err)
		}
		client = redis.NewClient(opt)
	case t.addrs != nil:
		client = redis.NewClusterClient(&redis.ClusterOptions{Addrs: t.addrs})
	default:
		opt, err := redis.ParseClusterURL(t.dsn)
		if err != nil {
			return nil, usagef("%s: %v", t.where, err)
		}
		client = redis.NewClusterClient(opt)
	}
	if err := client.Ping(ctx).Err(); err != nil {
		client.Close()
		return nil, fmt.Errorf("cannot reach %s: %w", t.where, err)
	}
	s, err := redisguard.New(client, opts...)
	if err != nil {
		client.Close()
		return nil, err
	}
	if hashTag != "" {
		s = s.WithHashTag(hashTag)
	}
	return &opened{store: s, op: s, t: t, close: client.Close}, nil
}

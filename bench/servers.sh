#!/usr/bin/env bash
# bench/servers.sh - durable database servers for the throughput benchmarks
# (BENCHMARKS.md). Run as root on Debian 12, next to .ci/run's servers (which
# are the fast CI configuration: fsync off):
#
#   bash bench/servers.sh            start the servers below, print `export ...`
#                                    lines (also written to $IDEM_BENCH_ENV_FILE
#                                    when set), wait until killed (SIGTERM/Ctrl-C),
#                                    then stop them and remove their data.
#
#   PostgreSQL 15  127.0.0.1:55442  fsync=on, synchronous_commit=on,
#                                   full_page_writes=on        IDEM_BENCH_POSTGRES_DURABLE
#   MariaDB        127.0.0.1:53316  innodb_flush_log_at_trx_commit=1,
#                                   sync_binlog off (no binlog) IDEM_BENCH_MYSQL_DURABLE
#   Redis          127.0.0.1:56389  appendonly yes, appendfsync everysec
#                                                               IDEM_BENCH_REDIS_DURABLE
#
# Data lives in a `mktemp -d` directory on the local disk (not tmpfs), so a
# commit's fsync reaches the disk. The packages are those .ci/run installs
# (postgresql, mariadb-server, redis-server); run .ci/run once first, or
# apt-get install them with /usr/sbin/policy-rc.d answering 101.
set -euo pipefail

PG_PORT=55442
MY_PORT=53316
REDIS_PORT=56389
export PATH="$PATH:/usr/local/sbin:/usr/sbin:/sbin"

say() { printf '==> %s\n' "$*" >&2; }
die() { printf 'ERROR: %s\n' "$*" >&2; exit 1; }
first_cmd() { local c; for c in "$@"; do if command -v "$c" >/dev/null 2>&1; then command -v "$c"; return 0; fi; done; return 1; }
pg_cmd() { if [ -x "/usr/lib/postgresql/15/bin/$1" ]; then echo "/usr/lib/postgresql/15/bin/$1"; else first_cmd "$1"; fi; }
port_in_use() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
wait_for() { # name timeout cmd...
  local name=$1 deadline=$((SECONDS + $2)); shift 2
  until "$@" >/dev/null 2>&1; do
    (( SECONDS >= deadline )) && die "$name did not answer within the time allowed"
    sleep 0.2
  done
}

[ "$(id -u)" = 0 ] || die "must run as root (PostgreSQL runs as user postgres)"
INITDB=$(pg_cmd initdb) || die "initdb not found (apt-get install postgresql)"
PG_CTL=$(pg_cmd pg_ctl); PSQL=$(pg_cmd psql)
MARIADBD=$(first_cmd mariadbd mysqld) || die "mariadbd not found (apt-get install mariadb-server)"
MY_INSTALL_DB=$(first_cmd mariadb-install-db mysql_install_db)
MYADMIN=$(first_cmd mariadb-admin mysqladmin); MYCLI=$(first_cmd mariadb mysql)
first_cmd redis-server >/dev/null || die "redis-server not found (apt-get install redis-server)"
for p in $PG_PORT $MY_PORT $REDIS_PORT; do port_in_use "$p" && die "port $p is in use (another bench/servers.sh running?)"; done

DIR=$(mktemp -d /var/tmp/idem-bench.XXXXXX)
chmod 755 "$DIR"
PG_STARTED=0 MY_PID="" REDIS_STARTED=0
cleanup() {
  set +e
  trap - EXIT INT TERM HUP
  if [ "$REDIS_STARTED" = 1 ]; then timeout 10 redis-cli -p $REDIS_PORT shutdown nosave >/dev/null 2>&1; fi
  if [ -n "$MY_PID" ]; then
    timeout 30 "$MYADMIN" --no-defaults -uroot --socket="$DIR/my/mysqld.sock" shutdown >/dev/null 2>&1
    kill "$MY_PID" 2>/dev/null; wait "$MY_PID" 2>/dev/null
  fi
  if [ "$PG_STARTED" = 1 ]; then (cd "$DIR" && timeout 60 runuser -u postgres -- "$PG_CTL" -D "$DIR/pg/data" -m fast -w stop) >/dev/null 2>&1; fi
  rm -rf "$DIR"
  say "durable servers stopped"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP

# PostgreSQL: every commit waits for its WAL to be flushed.
id -u postgres >/dev/null 2>&1 || useradd -r -M -d /nonexistent -s /usr/sbin/nologin -U postgres
mkdir -p "$DIR/pg/data" "$DIR/pg/run"; chown -R postgres: "$DIR/pg"; chmod 700 "$DIR/pg/data"
(cd "$DIR" && runuser -u postgres -- "$INITDB" -D "$DIR/pg/data" -U postgres -A trust -E UTF8 --locale=C) >"$DIR/pg-initdb.log" 2>&1 || die "initdb failed: $(tail -5 "$DIR/pg-initdb.log")"
cat >>"$DIR/pg/data/postgresql.conf" <<EOF
listen_addresses = '127.0.0.1'
port = $PG_PORT
unix_socket_directories = '$DIR/pg/run'
max_connections = 200
shared_buffers = 512MB
fsync = on
synchronous_commit = on
full_page_writes = on
EOF
PG_STARTED=1
(cd "$DIR" && runuser -u postgres -- "$PG_CTL" -D "$DIR/pg/data" -l "$DIR/pg/postgres.log" -w -t 60 start) >/dev/null || die "PostgreSQL did not start: $(tail -5 "$DIR/pg/postgres.log")"
"$PSQL" -X -q -h 127.0.0.1 -p $PG_PORT -U postgres -d postgres -c 'CREATE DATABASE idem_bench' >/dev/null

# MariaDB: every commit flushes and syncs the redo log.
mkdir -p "$DIR/my/data" "$DIR/my/tmp"
common=(--datadir="$DIR/my/data" --tmpdir="$DIR/my/tmp" --innodb-use-native-aio=0 --skip-name-resolve)
"$MY_INSTALL_DB" --no-defaults --user=root --auth-root-authentication-method=normal --skip-test-db "${common[@]}" >"$DIR/my-install.log" 2>&1 || die "mariadb-install-db failed"
setsid "$MARIADBD" --no-defaults --user=root "${common[@]}" --port=$MY_PORT --bind-address=127.0.0.1 \
  --socket="$DIR/my/mysqld.sock" --pid-file="$DIR/my/mysqld.pid" --log-error="$DIR/my/error.log" \
  --innodb-flush-log-at-trx-commit=1 --innodb-buffer-pool-size=512M --skip-log-bin --max-connections=300 \
  </dev/null >"$DIR/my/stdout.log" 2>&1 &
MY_PID=$!
wait_for MariaDB 90 "$MYADMIN" --no-defaults -uroot --socket="$DIR/my/mysqld.sock" ping
"$MYCLI" --no-defaults -uroot --socket="$DIR/my/mysqld.sock" <<'EOF'
CREATE DATABASE IF NOT EXISTS idem_bench;
CREATE USER IF NOT EXISTS 'idem'@'127.0.0.1' IDENTIFIED BY 'idem';
GRANT ALL PRIVILEGES ON `idem_bench`.* TO 'idem'@'127.0.0.1';
FLUSH PRIVILEGES;
EOF

# Redis: the append-only file, fsynced every second.
mkdir -p "$DIR/redis"
REDIS_STARTED=1
redis-server --port $REDIS_PORT --bind 127.0.0.1 --save '' --appendonly yes --appendfsync everysec \
  --daemonize yes --dir "$DIR/redis" --pidfile "$DIR/redis/redis.pid" --logfile "$DIR/redis/redis.log" >/dev/null
wait_for Redis 30 redis-cli -p $REDIS_PORT ping

exports="export IDEM_BENCH_POSTGRES_DURABLE='postgres://postgres@127.0.0.1:$PG_PORT/idem_bench?sslmode=disable'
export IDEM_BENCH_MYSQL_DURABLE='idem:idem@tcp(127.0.0.1:$MY_PORT)/idem_bench?parseTime=true'
export IDEM_BENCH_REDIS_DURABLE='127.0.0.1:$REDIS_PORT'"
echo "$exports"
if [ -n "${IDEM_BENCH_ENV_FILE:-}" ]; then echo "$exports" >"$IDEM_BENCH_ENV_FILE"; fi
say "durable servers ready (data in $DIR); SIGTERM or Ctrl-C stops them"
sleep infinity &
wait $!

package guardtest

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/idemkit/idem/guard"
)

// Tamper changes what a store holds behind its back. The suites use it to
// let the store's clock pass a lease or a retention without sleeping (every
// time is the database's or the Redis server's clock, as the stores' own),
// and to write records as an older version of the stores or an operator's
// hand would have written them. Records are named by consumer and encoded
// key; the key identity record is that of guard.IdentityRecordKey.
type Tamper struct {
	// ExpireLease ends the lease of the record now, by the store's clock
	// (lease_until one millisecond ago), changing nothing else. It fails
	// when the record holds no lease.
	ExpireLease func(ctx context.Context, consumer, key string) error
	// ExpireRetention ends the retention of the record now, as the store's
	// clock passing it would: in SQL expires_at becomes one millisecond
	// ago, in Redis the record is deleted unless a live lease outlasts the
	// retention, whose end then is its TTL's.
	ExpireRetention func(ctx context.Context, consumer, key string) error
	// ExpireAll ends the retention of every record of consumer as
	// ExpireRetention does, in SQL its key identity record included (an
	// operator's UPDATE … SET expires_at = now() of the whole table), in
	// Redis every record that has a TTL.
	ExpireAll func(ctx context.Context, consumer string) error
	// Write replaces the record with r, stored as it says, bypassing the
	// store and its checks.
	Write func(ctx context.Context, consumer, key string, r RawRecord) error
}

// ErrNoRecord is returned (wrapped) by a Tamper function that found no
// record to change (or, for ExpireLease, no lease).
var ErrNoRecord = errors.New("no such record")

// RawRecord is a record as Tamper.Write stores it: state and every other
// field as given, "absent" meaning SQL NULL or no field of the Redis hash.
type RawRecord struct {
	State       string // stored as it is, known to the stores or not
	Fingerprint []byte // stored as it is; nil: absent
	Owner       string // "": absent
	Result      []byte // nil: absent
	// LeaseIn, when not 0, sets lease_until to the store's now plus LeaseIn
	// (negative: in the past); 0: absent.
	LeaseIn time.Duration
	// ExpiresIn sets expires_at (SQL) or the TTL (Redis) to the store's now
	// plus ExpiresIn; 0 in Redis: no TTL.
	ExpiresIn time.Duration
	// KeyText is the key text stored for operators; "" stores the key.
	KeyText string
}

// changed turns what a change answered (n records changed, or err) into
// a Tamper function's error.
func changed(what string, n int64, err error) error {
	switch {
	case err != nil:
		return fmt.Errorf("guardtest: %s: %w", what, err)
	case n == 0:
		return fmt.Errorf("guardtest: %s: %w", what, ErrNoRecord)
	}
	return nil
}

// SQLExec runs a statement and returns the rows it affected.
type SQLExec func(ctx context.Context, query string, args ...any) (int64, error)

// SQLTamper is the Tamper of a SQL store of dialect d over table, run
// through exec (a connection the store does not need to share).
func SQLTamper(exec SQLExec, d guard.Dialect, table string) Tamper {
	var now, plus string // plus: now + the next argument in microseconds
	switch d {
	case guard.Postgres:
		now, plus = `clock_timestamp()`, `clock_timestamp() + ?::int8 * interval '1 microsecond'`
	case guard.MySQL:
		now, plus = `UTC_TIMESTAMP(6)`, `UTC_TIMESTAMP(6) + INTERVAL ? MICROSECOND`
	default:
		now = `CAST(unixepoch('subsec') * 1000000 AS INTEGER)`
		plus = `(` + now + ` + ?)`
	}
	q := func(query string) string {
		query = strings.ReplaceAll(query, "{{T}}", table)
		if d != guard.Postgres {
			return query
		}
		for n := 1; strings.Contains(query, "?"); n++ {
			query = strings.Replace(query, "?", "$"+strconv.Itoa(n), 1)
		}
		return query
	}
	ago := -time.Millisecond.Microseconds()
	one := func(what string) func(n int64, err error) error {
		return func(n int64, err error) error { return changed(what, n, err) }
	}
	expireLease := q(`UPDATE {{T}} SET lease_until = ` + plus + ` WHERE consumer = ? AND key_hash = ? AND lease_until IS NOT NULL`)
	expireOne := q(`UPDATE {{T}} SET expires_at = ` + plus + ` WHERE consumer = ? AND key_hash = ?`)
	expireAll := q(`UPDATE {{T}} SET expires_at = ` + plus + ` WHERE consumer = ?`)
	del := q(`DELETE FROM {{T}} WHERE consumer = ? AND key_hash = ?`)
	insert := func(lease string) string {
		return q(`INSERT INTO {{T}} (consumer, key_hash, key_text, state, fingerprint, owner, result, lease_until, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?, ` +
			lease + `, ` + now + `, ` + plus + `)`)
	}
	insertLease, insertNoLease := insert(plus), insert(`NULL`)
	return Tamper{
		ExpireLease: func(ctx context.Context, consumer, key string) error {
			h := guard.KeyHash(key)
			return one("expire the lease of " + consumer + " " + key)(exec(ctx, expireLease, ago, consumer, h[:]))
		},
		ExpireRetention: func(ctx context.Context, consumer, key string) error {
			h := guard.KeyHash(key)
			return one("expire the record of " + consumer + " " + key)(exec(ctx, expireOne, ago, consumer, h[:]))
		},
		ExpireAll: func(ctx context.Context, consumer string) error {
			if _, err := exec(ctx, expireAll, ago, consumer); err != nil {
				return fmt.Errorf("guardtest: expire the records of %s: %w", consumer, err)
			}
			return nil
		},
		Write: func(ctx context.Context, consumer, key string, r RawRecord) error {
			h := guard.KeyHash(key)
			if _, err := exec(ctx, del, consumer, h[:]); err != nil {
				return fmt.Errorf("guardtest: write the record of %s %s: %w", consumer, key, err)
			}
			kt := r.KeyText
			if kt == "" {
				kt = key
			}
			var owner, fp, result any
			if r.Owner != "" {
				owner = r.Owner
			}
			if r.Fingerprint != nil {
				fp = r.Fingerprint
			}
			if r.Result != nil {
				result = r.Result
			}
			args := []any{consumer, h[:], kt, r.State, fp, owner, result}
			query := insertNoLease
			if r.LeaseIn != 0 {
				query = insertLease
				args = append(args, r.LeaseIn.Microseconds())
			}
			args = append(args, r.ExpiresIn.Microseconds())
			return one("write the record of " + consumer + " " + key)(exec(ctx, query, args...))
		},
	}
}

// The scripts of RedisTamper. Times are the server's TIME in microseconds,
// as the store's scripts keep them.
const luaTime = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
`

// expireLeaseScript: lease_until one millisecond ago; 0 when no lease.
var expireLeaseScript = redis.NewScript(luaTime + `
if redis.call('TYPE', KEYS[1])['ok'] ~= 'hash' or not redis.call('HGET', KEYS[1], 'lease_until') then
  return 0
end
redis.call('HSET', KEYS[1], 'lease_until', string.format('%.0f', now - 1000))
return 1
`)

// expireRetentionScript: the record without its retention. A record with
// no TTL keeps it (none expires so); one with a live lease keeps the rest
// of its lease as TTL; any other is deleted. 0 when there is no record.
var expireRetentionScript = redis.NewScript(luaTime + `
local pttl = redis.call('PTTL', KEYS[1])
if pttl == -2 then return 0 end
if pttl == -1 then return 1 end
if redis.call('TYPE', KEYS[1])['ok'] == 'hash' and redis.call('HGET', KEYS[1], 'state') == 'pending' then
  local lease = tonumber(redis.call('HGET', KEYS[1], 'lease_until') or '0') or 0
  if lease > now then
    redis.call('PEXPIRE', KEYS[1], string.format('%.0f', math.ceil((lease - now) / 1000)))
    return 1
  end
end
redis.call('DEL', KEYS[1])
return 1
`)

// writeScript replaces the record. ARGV: state, key text, fingerprint
// (flag "1" then value), owner, result (flag, value), lease µs from now
// ("" absent), TTL ms ("0": none).
var writeScript = redis.NewScript(luaTime + `
redis.call('DEL', KEYS[1])
redis.call('HSET', KEYS[1], 'state', ARGV[1], 'key', ARGV[2], 'created', string.format('%.0f', now))
if ARGV[3] == '1' then redis.call('HSET', KEYS[1], 'fp', ARGV[4]) end
if ARGV[5] ~= '' then redis.call('HSET', KEYS[1], 'owner', ARGV[5]) end
if ARGV[6] == '1' then redis.call('HSET', KEYS[1], 'result', ARGV[7]) end
if ARGV[8] ~= '' then redis.call('HSET', KEYS[1], 'lease_until', string.format('%.0f', now + tonumber(ARGV[8]))) end
if ARGV[9] ~= '0' then redis.call('PEXPIRE', KEYS[1], ARGV[9]) end
return 1
`)

// RedisTamper is the Tamper of a redisguard store on client, whose record
// of consumer and key is recordKey(consumer, key) and whose records of
// consumer all match the SCAN pattern pattern(consumer).
func RedisTamper(client redis.UniversalClient, recordKey func(consumer, key string) string, pattern func(consumer string) string) Tamper {
	run := func(ctx context.Context, what string, script *redis.Script, key string, args ...any) error {
		n, err := script.Run(ctx, client, []string{key}, args...).Int64()
		return changed(what, n, err)
	}
	flag := func(b []byte) (string, []byte) {
		if b == nil {
			return "0", nil
		}
		return "1", b
	}
	return Tamper{
		ExpireLease: func(ctx context.Context, consumer, key string) error {
			return run(ctx, "expire the lease of "+consumer+" "+key, expireLeaseScript, recordKey(consumer, key))
		},
		ExpireRetention: func(ctx context.Context, consumer, key string) error {
			return run(ctx, "expire the record of "+consumer+" "+key, expireRetentionScript, recordKey(consumer, key))
		},
		ExpireAll: func(ctx context.Context, consumer string) error {
			each := func(ctx context.Context, c redis.Cmdable) error {
				iter := c.Scan(ctx, 0, pattern(consumer), 1000).Iterator()
				for iter.Next(ctx) {
					if err := expireRetentionScript.Run(ctx, client, []string{iter.Val()}).Err(); err != nil {
						return fmt.Errorf("guardtest: expire %s: %w", iter.Val(), err)
					}
				}
				return iter.Err()
			}
			if cc, ok := client.(*redis.ClusterClient); ok {
				return cc.ForEachMaster(ctx, func(ctx context.Context, c *redis.Client) error { return each(ctx, c) })
			}
			return each(ctx, client)
		},
		Write: func(ctx context.Context, consumer, key string, r RawRecord) error {
			kt := r.KeyText
			if kt == "" {
				kt = key
			}
			hasFP, fp := flag(r.Fingerprint)
			hasResult, result := flag(r.Result)
			lease := ""
			if r.LeaseIn != 0 {
				lease = strconv.FormatInt(r.LeaseIn.Microseconds(), 10)
			}
			if r.ExpiresIn < 0 {
				return errors.New("guardtest: a Redis record cannot expire in the past: it would not exist")
			}
			return run(ctx, "write the record of "+consumer+" "+key, writeScript, recordKey(consumer, key),
				r.State, kt, hasFP, fp, r.Owner, hasResult, result, lease, r.ExpiresIn.Milliseconds())
		},
	}
}

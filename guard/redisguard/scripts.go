package redisguard

import "github.com/redis/go-redis/v9"

// The Lua scripts of the store. Each touches one record (KEYS[1]), so each
// runs on the record's node in a cluster, atomically. Times come from the
// server's TIME, in Unix microseconds; they are formatted with %.0f (exact:
// microsecond timestamps stay far below 2^53) and passed to Redis as strings,
// never as Lua numbers, which Redis would render in exponent form.
//
// None of the scripts decides a claim: the state table lives in Go
// (storekit.DecideClaim). The scripts only insert a record when it is absent,
// read one, or change one after comparing it with what Go decided on.

// luaNow is the common prologue: now (a number) and nows (its text).
const luaNow = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local nows = string.format('%.0f', now)
`

// readScript returns {now µs, pttl ms, HGETALL…}. PTTL -2: no record.
var readScript = redis.NewScript(luaNow + `
return {nows, redis.call('PTTL', KEYS[1]), redis.call('HGETALL', KEYS[1])}
`)

// claimScript inserts a pending record when none exists and returns
// {1, now}; otherwise it changes nothing and returns {0, now, pttl, HGETALL…}
// for Go to decide on.
// ARGV: fingerprint, owner, lease µs, retention ms, key text.
var claimScript = redis.NewScript(luaNow + `
if redis.call('EXISTS', KEYS[1]) == 1 then
  return {0, nows, redis.call('PTTL', KEYS[1]), redis.call('HGETALL', KEYS[1])}
end
redis.call('HSET', KEYS[1], 'state', 'pending', 'fp', ARGV[1], 'owner', ARGV[2],
  'lease_until', string.format('%.0f', now + tonumber(ARGV[3])), 'key', ARGV[5], 'created', nows)
redis.call('PEXPIRE', KEYS[1], ARGV[4])
return {1, nows}
`)

// casScript carries out a claim's verdict on an existing record if the
// record is still the one the verdict was made on (same state, owner,
// lease_until and created); it returns 1 when it changed the record, 0 when
// the record changed meanwhile (the caller reads it again).
// ARGV: mode, state, owner, lease_until, created (as read), new owner,
// lease µs, retention ms, fingerprint, key text.
// Modes: takeover (new owner and lease; the record's TTL is raised to cover
// the lease), uncertain (state uncertain, no lease, no result), reclaim (a
// fresh pending record).
var casScript = redis.NewScript(luaNow + `
local cur = redis.call('HMGET', KEYS[1], 'state', 'owner', 'lease_until', 'created')
if cur[1] ~= ARGV[2] or (cur[2] or '') ~= ARGV[3] or (cur[3] or '') ~= ARGV[4] or (cur[4] or '') ~= ARGV[5] then
  return 0
end
local until_ = string.format('%.0f', now + tonumber(ARGV[7]))
if ARGV[1] == 'takeover' then
  redis.call('HSET', KEYS[1], 'owner', ARGV[6], 'lease_until', until_)
  local ms = math.ceil(tonumber(ARGV[7]) / 1000)
  local pttl = redis.call('PTTL', KEYS[1])
  if pttl >= 0 and pttl < ms then redis.call('PEXPIRE', KEYS[1], string.format('%.0f', ms)) end
elseif ARGV[1] == 'uncertain' then
  redis.call('HSET', KEYS[1], 'state', 'uncertain')
  redis.call('HDEL', KEYS[1], 'result', 'lease_until')
elseif ARGV[1] == 'reclaim' then
  redis.call('DEL', KEYS[1])
  redis.call('HSET', KEYS[1], 'state', 'pending', 'fp', ARGV[9], 'owner', ARGV[6],
    'lease_until', until_, 'key', ARGV[10], 'created', nows)
  redis.call('PEXPIRE', KEYS[1], ARGV[8])
else
  return redis.error_reply('redisguard: unknown claim mode ' .. ARGV[1])
end
return 1
`)

// settleScript moves a record held by owner (pending or uncertain) to a final
// state with a result (ARGV[3] = "1": set it to ARGV[4]; else none), resets
// its TTL to the retention and returns 1; else 0. A record the owner already
// moved to that state also answers 1: go-redis resends a script whose reply
// it lost, and the resend must not look like a lost lease. (Resolve clears
// the owner, so a resolved record still answers 0.)
// ARGV: owner, state, has result, result, retention ms.
var settleScript = redis.NewScript(`
local cur = redis.call('HMGET', KEYS[1], 'state', 'owner')
if cur[2] ~= ARGV[1] then
  return 0
end
if cur[1] == ARGV[2] then
  return 1
end
if cur[1] ~= 'pending' and cur[1] ~= 'uncertain' then
  return 0
end
redis.call('HSET', KEYS[1], 'state', ARGV[2])
if ARGV[3] == '1' then
  redis.call('HSET', KEYS[1], 'result', ARGV[4])
else
  redis.call('HDEL', KEYS[1], 'result')
end
redis.call('HDEL', KEYS[1], 'lease_until')
redis.call('PEXPIRE', KEYS[1], ARGV[5])
return 1
`)

// releaseScript deletes a record held by owner (pending or uncertain) and
// returns 1; else 0. ARGV: owner.
var releaseScript = redis.NewScript(`
local cur = redis.call('HMGET', KEYS[1], 'state', 'owner')
if (cur[1] ~= 'pending' and cur[1] ~= 'uncertain') or cur[2] ~= ARGV[1] then
  return 0
end
redis.call('DEL', KEYS[1])
return 1
`)

// extendScript moves the lease of a pending record held by owner to end
// ARGV[2] µs from now, raising the record's TTL to cover it, and returns 1;
// else 0. ARGV: owner, duration µs.
var extendScript = redis.NewScript(luaNow + `
local cur = redis.call('HMGET', KEYS[1], 'state', 'owner')
if cur[1] ~= 'pending' or cur[2] ~= ARGV[1] then
  return 0
end
redis.call('HSET', KEYS[1], 'lease_until', string.format('%.0f', now + tonumber(ARGV[2])))
local ms = math.ceil(tonumber(ARGV[2]) / 1000)
local pttl = redis.call('PTTL', KEYS[1])
if pttl >= 0 and pttl < ms then redis.call('PEXPIRE', KEYS[1], string.format('%.0f', ms)) end
return 1
`)

// resolveScript marks a record done with a result (ARGV[2] = "1": ARGV[3];
// else none), whatever its state, creating it when absent, and resets its
// TTL to the retention. The owner is cleared, so a lease still held can no
// longer settle. ARGV: key text, has result, result, retention ms.
var resolveScript = redis.NewScript(luaNow + `
if redis.call('EXISTS', KEYS[1]) == 0 then
  redis.call('HSET', KEYS[1], 'key', ARGV[1], 'fp', '', 'created', nows)
end
redis.call('HSET', KEYS[1], 'state', 'done', 'owner', '')
if ARGV[2] == '1' then
  redis.call('HSET', KEYS[1], 'result', ARGV[3])
else
  redis.call('HDEL', KEYS[1], 'result')
end
redis.call('HDEL', KEYS[1], 'lease_until')
redis.call('PEXPIRE', KEYS[1], ARGV[4])
return 1
`)

// partialScript turns the done record written by a Do whose effect failed
// partly after EXEC (identified by its created time) into failed with the
// reason, and returns 1; else 0. ARGV: created, reason.
var partialScript = redis.NewScript(`
local cur = redis.call('HMGET', KEYS[1], 'state', 'created')
if cur[1] ~= 'done' or cur[2] ~= ARGV[1] then
  return 0
end
redis.call('HSET', KEYS[1], 'state', 'failed', 'result', ARGV[2])
return 1
`)

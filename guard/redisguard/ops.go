package redisguard

import (
	"context"
	"encoding/hex"
	"fmt"
	"hash/maphash"
	"iter"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/redis/go-redis/v9"

	"github.com/idemkit/idem/guard"
	"github.com/idemkit/idem/guard/internal/storekit"
)

// The operators' methods of the store (guard.Operator): listing and
// counting records by SCAN on every node, reading one by its key hash, and
// changing one only if it is as it was read.

var _ guard.Operator = (*Store)(nil)

// scanCount is the COUNT hint of each SCAN, and so about how many records
// one pipeline reads.
const scanCount = 200

// amendScript changes a record if its state, created, owner and result are
// those ARGV gives and it holds no live lease by the server's clock: ARGV[4] ""
// deletes it, else it becomes that state with the result (ARGV[5] = "1":
// ARGV[6]; else none), no lease and no owner, and its TTL is reset to the
// retention. It returns 1 when it changed the record, 0 when the record
// changed since it was read, -1 when it holds a live lease.
// ARGV: state, created, owner, has result, result (as read), new state, has
// result, result, retention ms.
var amendScript = redis.NewScript(luaNow + `
local cur = redis.call('HMGET', KEYS[1], 'state', 'created', 'owner', 'lease_until', 'result')
if cur[1] ~= ARGV[1] or (cur[2] or '') ~= ARGV[2] or (cur[3] or '') ~= ARGV[3] or
    (cur[5] and '1' or '0') ~= ARGV[4] or (cur[5] or '') ~= ARGV[5] then
  return 0
end
if cur[1] == 'pending' and cur[4] and tonumber(cur[4]) > now then
  return -1
end
if ARGV[6] == '' then
  redis.call('DEL', KEYS[1])
  return 1
end
redis.call('HSET', KEYS[1], 'state', ARGV[6], 'owner', '')
if ARGV[7] == '1' then
  redis.call('HSET', KEYS[1], 'result', ARGV[8])
else
  redis.call('HDEL', KEYS[1], 'result')
end
redis.call('HDEL', KEYS[1], 'lease_until')
redis.call('PEXPIRE', KEYS[1], ARGV[9])
return 1
`)

// recordKeyOf is the Redis key of the record of consumer whose key hashes
// to h, under tag when not "" (see RecordKey).
func (s *Store) recordKeyOf(consumer string, h [32]byte, tag string) string {
	n := len(s.cfg.Table) + len(consumer) + 2 + hex.EncodedLen(len(h))
	if tag != "" {
		n += len(tag) + 2
	}
	b := make([]byte, 0, n)
	if tag != "" {
		b = append(append(append(b, '{'), tag...), '}')
	}
	b = append(append(b, s.cfg.Table...), ':')
	b = append(append(b, consumer...), ':')
	return string(hex.AppendEncode(b, h[:]))
}

// parseRecordKey splits a Redis key written by recordKeyOf; ok is false for
// any other key.
func (s *Store) parseRecordKey(name string) (tag, consumer string, h [32]byte, ok bool) {
	rest := name
	if strings.HasPrefix(rest, "{") {
		end := strings.IndexByte(rest, '}')
		if end < 2 {
			return "", "", h, false
		}
		tag, rest = rest[1:end], rest[end+1:]
	}
	prefix := s.cfg.Table + ":"
	const tail = 1 + 2*len(h) // ":" and the hex hash
	if !strings.HasPrefix(rest, prefix) || len(rest) < len(prefix)+1+tail {
		return "", "", h, false
	}
	rest = rest[len(prefix):]
	consumer, hx := rest[:len(rest)-tail], rest[len(rest)-tail+1:]
	if rest[len(rest)-tail] != ':' || hex.EncodeToString(decodeHash(hx, &h)) != hx {
		return "", "", h, false
	}
	return tag, consumer, h, true
}

// decodeHash decodes hx into h and returns h's bytes (zero when hx is not
// hex).
func decodeHash(hx string, h *[32]byte) []byte {
	if _, err := hex.Decode(h[:], []byte(hx)); err != nil {
		*h = [32]byte{}
	}
	return h[:]
}

// globEscape escapes the characters SCAN's MATCH gives a meaning to.
func globEscape(s string) string {
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune(`*?[]\^`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// nodes returns the clients of the servers holding records: every master of
// a cluster, every shard of a ring, else the store's client.
func (s *Store) nodes(ctx context.Context) ([]redis.UniversalClient, error) {
	var (
		mu  sync.Mutex
		out []redis.UniversalClient
	)
	add := func(ctx context.Context, c *redis.Client) error {
		mu.Lock()
		defer mu.Unlock()
		out = append(out, c)
		return nil
	}
	var err error
	switch c := s.client.(type) {
	case *redis.ClusterClient:
		err = c.ForEachMaster(ctx, add)
	case *redis.Ring:
		err = c.ForEachShard(ctx, add)
	default:
		return []redis.UniversalClient{s.client}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("redisguard: list the servers: %w", err)
	}
	slices.SortFunc(out, func(a, b redis.UniversalClient) int {
		return strings.Compare(a.(*redis.Client).Options().Addr, b.(*redis.Client).Options().Addr)
	})
	return out, nil
}

// scan reads the records f's consumer selects on every server, a SCAN batch
// per pipeline, with their MEMORY USAGE when size is set, and yields those
// f matches.
func (s *Store) scan(ctx context.Context, f guard.RecordFilter, size bool, yield func(r *guard.StoredRecord, bytes int64, err error) bool) {
	nodes, err := s.nodes(ctx)
	if err != nil {
		yield(nil, 0, err)
		return
	}
	match := "*" + globEscape(s.cfg.Table) + ":*"
	if f.Consumer != "" {
		match = "*" + globEscape(s.cfg.Table+":"+f.Consumer+":") + "*"
	}
	// SCAN may return a key more than once (when the server resizes its
	// table meanwhile): each is read once, by the 64-bit hash of its name.
	seed := maphash.MakeSeed()
	seen := map[uint64]bool{}
	for _, n := range nodes {
		var cursor uint64
		for {
			keys, next, err := n.Scan(ctx, cursor, match, scanCount).Result()
			if err != nil {
				yield(nil, 0, fmt.Errorf("redisguard: list %s: %w", s.cfg.Table, err))
				return
			}
			keys = slices.DeleteFunc(keys, func(k string) bool {
				h := maphash.String(seed, k)
				dup := seen[h]
				seen[h] = true
				return dup
			})
			if !s.readBatch(ctx, n, keys, f, size, yield) {
				return
			}
			if cursor = next; cursor == 0 {
				break
			}
		}
	}
}

// readBatch reads the records among keys in one pipeline and yields those f
// matches; false: the caller stopped.
func (s *Store) readBatch(ctx context.Context, n redis.UniversalClient, keys []string, f guard.RecordFilter, size bool,
	yield func(*guard.StoredRecord, int64, error) bool) bool {
	type item struct {
		key, tag, consumer string
		hash               [32]byte
		read               *redis.Cmd
		mem                *redis.IntCmd
	}
	var items []item
	pipe := n.Pipeline()
	for _, k := range keys {
		tag, consumer, h, ok := s.parseRecordKey(k)
		if !ok || h == guard.KeyHash(guard.IdentityRecordKey) || (f.Consumer != "" && consumer != f.Consumer) {
			continue
		}
		it := item{key: k, tag: tag, consumer: consumer, hash: h, read: readScript.Eval(ctx, pipe, []string{k})}
		if size {
			it.mem = pipe.MemoryUsage(ctx, k, 0)
		}
		items = append(items, it)
	}
	if len(items) == 0 {
		return true
	}
	pipe.Exec(ctx) // each command's error is its own
	for _, it := range items {
		reply, err := it.read.Slice()
		if err != nil {
			if !yield(nil, 0, fmt.Errorf("redisguard: read %q: %w", it.key, err)) {
				return false
			}
			continue
		}
		if len(reply) != 3 {
			if !yield(nil, 0, fmt.Errorf("redisguard: read %q: unexpected reply %v", it.key, reply)) {
				return false
			}
			continue
		}
		rec, now, err := parseRecord(it.consumer, reply[0], reply[1], reply[2])
		if err != nil || rec == nil { // gone since SCAN found it, or unreadable
			if err != nil && !yield(nil, 0, fmt.Errorf("redisguard: read %q: %w", it.key, err)) {
				return false
			}
			continue
		}
		r := &guard.StoredRecord{Record: *rec, Hash: it.hash, Tag: it.tag, Now: now}
		if !f.Match(r) {
			continue
		}
		var bytes int64
		if it.mem != nil {
			bytes, _ = it.mem.Result()
		}
		if !yield(r, bytes, nil) {
			return false
		}
	}
	return true
}

// Records implements guard.Operator: SCAN on every server (every master of
// a cluster), in SCAN's order, tagged records included (Tag says under
// which hash tag), each once.
func (s *Store) Records(ctx context.Context, f guard.RecordFilter) iter.Seq2[*guard.StoredRecord, error] {
	return func(yield func(*guard.StoredRecord, error) bool) {
		s.scan(ctx, f, false, func(r *guard.StoredRecord, _ int64, err error) bool { return yield(r, err) })
	}
}

// Stats implements guard.Operator by reading every record (SCAN): Size is
// the sum of their MEMORY USAGE. Expired is always 0: Redis deletes
// expired records itself.
func (s *Store) Stats(ctx context.Context, consumer string) (*guard.Stats, error) {
	if consumer != "" {
		if err := storekit.ValidateConsumer(consumer); err != nil {
			return nil, err
		}
	}
	st := &guard.Stats{}
	by := map[string]*guard.ConsumerStats{}
	var failed error
	s.scan(ctx, guard.RecordFilter{Consumer: consumer, Expired: true}, true, func(r *guard.StoredRecord, bytes int64, err error) bool {
		if err != nil {
			failed = err
			return false
		}
		c := by[r.Consumer]
		if c == nil {
			c = &guard.ConsumerStats{Consumer: r.Consumer, States: map[guard.State]int64{}}
			by[r.Consumer] = c
		}
		c.Add(r)
		st.Size += bytes
		if r.Now.After(st.Now) {
			st.Now = r.Now
		}
		return true
	})
	if failed != nil {
		return nil, fmt.Errorf("redisguard: stats: %w", failed)
	}
	if st.Now.IsZero() {
		now, err := s.client.Time(ctx).Result()
		if err != nil {
			return nil, fmt.Errorf("redisguard: stats: %w", err)
		}
		st.Now = now
	}
	for _, c := range by {
		st.Consumers = append(st.Consumers, *c)
	}
	slices.SortFunc(st.Consumers, func(a, b guard.ConsumerStats) int { return strings.Compare(a.Consumer, b.Consumer) })
	return st, nil
}

// Lookup implements guard.Operator; a view made by WithHashTag looks under
// its hash tag (but for the key identity record, which has none).
func (s *Store) Lookup(ctx context.Context, consumer string, hash [32]byte) (*guard.StoredRecord, error) {
	if err := storekit.ValidateConsumer(consumer); err != nil {
		return nil, err
	}
	if s.tagErr != nil {
		return nil, s.tagErr
	}
	tag := s.tag
	if hash == guard.KeyHash(guard.IdentityRecordKey) {
		tag = "" // never under a hash tag
	}
	rec, now, err := s.read(ctx, s.client, consumer, s.recordKeyOf(consumer, hash, tag))
	if err != nil || rec == nil {
		return nil, err
	}
	return &guard.StoredRecord{Record: *rec, Hash: hash, Tag: tag, Now: now}, nil
}

// Amend implements guard.Operator with one script, under the hash tag the
// record was read under (seen.Tag).
func (s *Store) Amend(ctx context.Context, seen *guard.StoredRecord, change guard.Change) error {
	if err := guard.CheckAmend(seen, change); err != nil {
		return err
	}
	if seen.Tag != "" {
		if err := validTag(seen.Tag); err != nil {
			return err
		}
	}
	var created string
	if !seen.CreatedAt.IsZero() {
		created = strconv.FormatInt(seen.CreatedAt.UnixMicro(), 10)
	}
	hadResult, hadRes := hasResult(seen.Result)
	has, res := hasResult(change.Result)
	rkey := s.recordKeyOf(seen.Consumer, seen.Hash, seen.Tag)
	n, err := amendScript.Run(ctx, s.client, []string{rkey}, string(seen.State), created, seen.Owner, hadResult, hadRes,
		string(change.To), has, res, ms(s.cfg.Retention)).Int64()
	switch {
	case err != nil:
		return fmt.Errorf("redisguard: amend %s record: %w", seen.Consumer, err)
	case n == -1:
		return fmt.Errorf("redisguard: amend %s record: %w", seen.Consumer, guard.ErrLiveLease)
	case n != 1:
		return fmt.Errorf("redisguard: amend %s record: %w", seen.Consumer, guard.ErrRecordChanged)
	}
	return nil
}

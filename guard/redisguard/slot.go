package redisguard

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/redis/go-redis/v9"
)

// KeySlot returns the Redis Cluster hash slot of key (0…16383): CRC16
// (XMODEM) of the key modulo 16384, where a key containing a non-empty
// "{…}" section hashes only that section (the hash tag rule of the Redis
// Cluster specification). Keys that must share a MULTI with a dedup record
// written under HashTag(tag) carry "{tag}" and so land in its slot.
func KeySlot(key string) int {
	return int(crc16(hashTagPart(key)) % 16384)
}

// hashTagPart returns the part of key that Redis hashes: the content of the
// first "{…}" when it is non-empty, else the whole key.
func hashTagPart(key string) string {
	if s := strings.IndexByte(key, '{'); s >= 0 {
		if e := strings.IndexByte(key[s+1:], '}'); e > 0 {
			return key[s+1 : s+1+e]
		}
	}
	return key
}

// crc16tab is the CRC16-CCITT (XMODEM: polynomial 0x1021, initial value 0)
// table used by Redis Cluster.
var crc16tab = func() (t [256]uint16) {
	for i := range t {
		crc := uint16(i) << 8
		for range 8 {
			if crc&0x8000 != 0 {
				crc = crc<<1 ^ 0x1021
			} else {
				crc <<= 1
			}
		}
		t[i] = crc
	}
	return t
}()

func crc16(s string) uint16 {
	var crc uint16
	for i := 0; i < len(s); i++ {
		crc = crc<<8 ^ crc16tab[byte(crc>>8)^s[i]]
	}
	return crc
}

// validTag checks a HashTag value: the dedup key becomes "{tag}…", so the tag
// must be non-empty (Redis ignores "{}") and must not contain braces (the
// first "}" would end the tag early).
func validTag(tag string) error {
	switch {
	case tag == "":
		return errors.New("redisguard: empty hash tag")
	case strings.ContainsAny(tag, "{}"):
		return fmt.Errorf("redisguard: hash tag %q contains a brace", tag)
	}
	return nil
}

// placement is how the client spreads keys over servers, which decides the
// rule queued keys must follow to share a MULTI with the dedup record.
type placement int

const (
	placeSingle  placement = iota // one server: any key
	placeCluster                  // Redis Cluster: the dedup key's slot
	placeRing                     // redis.Ring: the dedup key's shard, i.e. the same hash tag
)

func placementOf(c redis.UniversalClient) placement {
	switch c.(type) {
	case *redis.ClusterClient:
		return placeCluster
	case *redis.Ring:
		return placeRing
	}
	return placeSingle
}

// notInTx are commands that would break the store's transaction if queued
// by apply: they end, nest or re-scope the MULTI, or switch the database of
// the pooled connection.
var notInTx = map[string]bool{
	"multi": true, "exec": true, "discard": true, "watch": true, "unwatch": true,
	"select": true, "swapdb": true, "reset": true, "quit": true, "hello": true, "auth": true,
}

// keyCheck verifies, before EXEC, that every key of every queued command
// lives where the dedup record lives.
type keyCheck struct {
	place   placement
	tag     string // "" without HashTag
	dedup   string // the dedup record's key
	slot    int    // its slot (cluster, or HashTag on a single server)
	tagPart string // its hashed part (ring)
}

// needed reports whether queued keys must be checked at all: with a hash tag,
// or on a client that spreads keys over servers.
func (k *keyCheck) needed() bool { return k.tag != "" || k.place != placeSingle }

func newKeyCheck(place placement, tag, dedup string) *keyCheck {
	return &keyCheck{place: place, tag: tag, dedup: dedup, slot: KeySlot(dedup), tagPart: hashTagPart(dedup)}
}

// check returns an error naming cmd and key when key cannot share the
// transaction with the dedup record.
func (k *keyCheck) check(cmd redis.Cmder, key string) error {
	var ok bool
	if k.place == placeRing {
		ok = hashTagPart(key) == k.tagPart
	} else {
		ok = KeySlot(key) == k.slot
	}
	if ok {
		return nil
	}
	where := fmt.Sprintf("slot %d, the dedup record %q is in slot %d", KeySlot(key), k.dedup, k.slot)
	if k.place == placeRing {
		where = fmt.Sprintf("hashed part %q, the dedup record %q hashes %q", hashTagPart(key), k.dedup, k.tagPart)
	}
	if k.tag == "" {
		return fmt.Errorf("redisguard: %s queues key %q (%s): on a %s the effect's keys must share the dedup record's slot; use HashTag and put {tag} in every key",
			cmd.Name(), key, where, k.clientName())
	}
	return fmt.Errorf("redisguard: %s queues key %q (%s): with HashTag(%q) every key must contain {%s}", cmd.Name(), key, where, k.tag, k.tag)
}

func (k *keyCheck) clientName() string {
	if k.place == placeRing {
		return "redis.Ring"
	}
	return "Redis Cluster"
}

// commandTable caches COMMAND's key positions per command name, fetched once
// per Store on first use.
type commandTable struct {
	mu    sync.Mutex
	infos map[string]*redis.CommandInfo
}

func (t *commandTable) get(ctx context.Context, c redis.Cmdable) (map[string]*redis.CommandInfo, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.infos != nil {
		return t.infos, nil
	}
	infos, err := c.Command(ctx).Result()
	if err != nil {
		return nil, fmt.Errorf("redisguard: read COMMAND key positions: %w", err)
	}
	t.infos = infos
	return infos, nil
}

// keysOf returns the keys cmd touches. Fixed key positions come from COMMAND
// (first key, last key, step); the EVAL and FCALL families name their keys by
// a count; any other command whose keys COMMAND cannot place (movable keys,
// container commands such as OBJECT or XINFO) is asked to the server with
// COMMAND GETKEYS over conn.
func keysOf(ctx context.Context, conn redis.Cmdable, infos map[string]*redis.CommandInfo, cmd redis.Cmder) ([]string, error) {
	args := cmd.Args()
	name := cmd.Name()
	switch name {
	case "eval", "evalsha", "eval_ro", "evalsha_ro", "fcall", "fcall_ro":
		if len(args) < 3 {
			return nil, fmt.Errorf("redisguard: %s without a key count", name)
		}
		n, err := argString(args[2])
		if err != nil {
			return nil, fmt.Errorf("redisguard: %s key count: %w", name, err)
		}
		numKeys, err := strconv.Atoi(n)
		if err != nil || numKeys < 0 || 3+numKeys > len(args) {
			return nil, fmt.Errorf("redisguard: %s has a bad key count %q", name, n)
		}
		return argStrings(name, args[3:3+numKeys])
	}
	info := infos[name]
	if info == nil {
		return nil, fmt.Errorf("redisguard: %s is not a command known to the server (COMMAND); cannot check its keys", name)
	}
	if info.FirstKeyPos == 0 || hasFlag(info, "movablekeys") {
		if len(args) == 1 && !hasFlag(info, "movablekeys") {
			return nil, nil // a keyless command alone (PING, TIME, …)
		}
		keys, err := conn.CommandGetKeys(ctx, args...).Result()
		if err != nil {
			if strings.Contains(err.Error(), "no key arguments") {
				return nil, nil
			}
			return nil, fmt.Errorf("redisguard: cannot determine the keys of %s (COMMAND GETKEYS): %w", name, err)
		}
		return keys, nil
	}
	first, last, step := int(info.FirstKeyPos), int(info.LastKeyPos), int(info.StepCount)
	if last < 0 {
		last += len(args)
	}
	if last >= len(args) {
		last = len(args) - 1
	}
	if step < 1 {
		step = 1
	}
	var keys []string
	for i := first; i <= last; i += step {
		k, err := argString(args[i])
		if err != nil {
			return nil, fmt.Errorf("redisguard: %s key argument %d: %w", name, i, err)
		}
		keys = append(keys, k)
	}
	return keys, nil
}

func hasFlag(info *redis.CommandInfo, flag string) bool {
	for _, f := range info.Flags {
		if f == flag {
			return true
		}
	}
	return false
}

func argStrings(name string, args []any) ([]string, error) {
	out := make([]string, len(args))
	for i, a := range args {
		s, err := argString(a)
		if err != nil {
			return nil, fmt.Errorf("redisguard: %s key: %w", name, err)
		}
		out[i] = s
	}
	return out, nil
}

// argString renders a command argument as go-redis writes it to the wire,
// for the argument types a key can have.
func argString(a any) (string, error) {
	switch v := a.(type) {
	case string:
		return v, nil
	case []byte:
		return string(v), nil
	case int:
		return strconv.FormatInt(int64(v), 10), nil
	case int8:
		return strconv.FormatInt(int64(v), 10), nil
	case int16:
		return strconv.FormatInt(int64(v), 10), nil
	case int32:
		return strconv.FormatInt(int64(v), 10), nil
	case int64:
		return strconv.FormatInt(v, 10), nil
	case uint:
		return strconv.FormatUint(uint64(v), 10), nil
	case uint8:
		return strconv.FormatUint(uint64(v), 10), nil
	case uint16:
		return strconv.FormatUint(uint64(v), 10), nil
	case uint32:
		return strconv.FormatUint(uint64(v), 10), nil
	case uint64:
		return strconv.FormatUint(v, 10), nil
	}
	return "", fmt.Errorf("cannot read a key from an argument of type %T", a)
}

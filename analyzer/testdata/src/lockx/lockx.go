package lockx // want package:"idemfacts"

// Locks taken by a helper of the program (a SET NX returning a lock value)
// and released by the caller: a lock, not a dedup check.

import (
	"context"
	"errors"
	"time"

	"github.com/redis/go-redis/v9"
)

// userLock is a lock taken by a helper of the program.
type userLock struct {
	rdb *redis.Client
	key string
}

// Release deletes the lock's key.
func (l *userLock) Release(ctx context.Context) { l.rdb.Del(ctx, l.key) }

// acquireLock takes the lock with SET NX: an error when it is held.
func acquireLock(ctx context.Context, rdb *redis.Client, key string) (*userLock, error) { // want acquireLock:`dedup\(result 1: nil=fresh\)`
	ok, err := rdb.SetNX(ctx, key, 1, 10*time.Second).Result()
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, errors.New("lock held")
	}
	return &userLock{rdb: rdb, key: key}, nil
}

// A lock taken by a helper and released by the caller: a lock all the
// same, no dedup.
func helperLock(ctx context.Context, rdb *redis.Client, m redis.XMessage) error {
	user, _ := m.Values["user"].(string)
	lock, err := acquireLock(ctx, rdb, "lock:"+user)
	if err != nil {
		return nil
	}
	defer lock.Release(ctx)
	return rdb.IncrBy(ctx, "points:"+user, 1).Err() // want `effect redis.Client.IncrBy in handler helperLock is not guarded by a dedup check: the check .*acquireLock guards nothing, it is a lock`
}

// Package targets sends stored events to their destinations.
package targets

import (
	"bytes"
	"database/sql"
	"encoding/json"
	"net/http"
	"os"

	"github.com/gomodule/redigo/redis"
	"github.com/nats-io/nats.go"

	"ownqueue/spool"
)

// SQLTarget appends an access-log row per event.
type SQLTarget struct {
	db    *sql.DB
	store *spool.Store
}

// Name implements spool.Target.
func (t *SQLTarget) Name() string { return "sql" }

// SendFromStore inserts the event's row, then deletes it from the store:
// a crash in between inserts it twice.
func (t *SQLTarget) SendFromStore(key spool.Key) error {
	ev, err := t.store.Get(key)
	if err != nil {
		if os.IsNotExist(err) {
			return nil // sent already
		}
		return err
	}
	if _, err := t.db.Exec("INSERT INTO access_events (bucket, object, action) VALUES ($1, $2, $3)", ev.Bucket, ev.Object, ev.Action); err != nil { // want `effect sql.DB.Exec "INSERT INTO access_events.*" in handler SQLTarget.SendFromStore is not guarded by a dedup check \(IDEM001\)`
		return err
	}
	return t.store.Del(key)
}

// WebhookTarget posts every event.
type WebhookTarget struct {
	url   string
	store *spool.Store
}

// Name implements spool.Target.
func (t *WebhookTarget) Name() string { return "webhook" }

// SendFromStore posts the event, then deletes it.
func (t *WebhookTarget) SendFromStore(key spool.Key) error {
	ev, err := t.store.Get(key)
	if err != nil {
		return err
	}
	b, _ := json.Marshal(ev)
	resp, err := http.Post(t.url, "application/json", bytes.NewReader(b)) // want `effect http.Post .*in handler WebhookTarget.SendFromStore is not guarded by a dedup check \(IDEM001\)`
	if err != nil {
		return err
	}
	resp.Body.Close()
	return t.store.Del(key)
}

// NATSTarget forwards every event: at-least-once forwarding, the
// subscribers deduplicate.
type NATSTarget struct {
	nc    *nats.Conn
	store *spool.Store
}

// Name implements spool.Target.
func (t *NATSTarget) Name() string { return "nats" }

// SendFromStore publishes the event, then deletes it.
func (t *NATSTarget) SendFromStore(key spool.Key) error {
	ev, err := t.store.Get(key)
	if err != nil {
		return err
	}
	b, _ := json.Marshal(ev)
	if err := t.nc.Publish("events", b); err != nil {
		return err
	}
	return t.store.Del(key)
}

// RedisTarget keeps the events in Redis: as a hash of the objects (a
// repeat sets the same field) or as a log list (a repeat appends again).
type RedisTarget struct {
	pool  *redis.Pool
	log   bool
	store *spool.Store
}

// Name implements spool.Target.
func (t *RedisTarget) Name() string { return "redis" }

// SendFromStore writes the event, then deletes it.
func (t *RedisTarget) SendFromStore(key spool.Key) error {
	ev, err := t.store.Get(key)
	if err != nil {
		return err
	}
	conn := t.pool.Get()
	defer conn.Close()
	b, _ := json.Marshal(ev)
	if !t.log {
		if _, err := conn.Do("HSET", "events", ev.Object, b); err != nil {
			return err
		}
		return t.store.Del(key)
	}
	if _, err := conn.Do("RPUSH", "events-log", b); err != nil { // want `effect redis.Conn.Do RPUSH in handler RedisTarget.SendFromStore is not guarded by a dedup check \(IDEM001\)`
		return err
	}
	return t.store.Del(key)
}

// IndexTarget keeps a search index of the events: PUT by the object's
// name overwrites (a repeat changes nothing); the access log is POSTed.
type IndexTarget struct {
	url   string
	log   bool
	store *spool.Store
}

// Name implements spool.Target.
func (t *IndexTarget) Name() string { return "index" }

func (t *IndexTarget) do(method, path string, body []byte) error {
	req, err := http.NewRequest(method, t.url+path, bytes.NewReader(body))
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	return resp.Body.Close()
}

// SendFromStore indexes the event, then deletes it.
func (t *IndexTarget) SendFromStore(key spool.Key) error {
	ev, err := t.store.Get(key)
	if err != nil {
		return err
	}
	b, _ := json.Marshal(ev)
	if !t.log {
		if err := t.do(http.MethodPut, "/events/"+ev.Object, b); err != nil {
			return err
		}
		return t.store.Del(key)
	}
	if err := t.do("POST", "/access-log", b); err != nil { // want `effect targets.IndexTarget.do → http.Client.Do POST in handler IndexTarget.SendFromStore is not guarded by a dedup check \(IDEM001\)`
		return err
	}
	return t.store.Del(key)
}

// Start replays the store to every target.
func Start(db *sql.DB, nc *nats.Conn, url string, done <-chan struct{}) {
	st := spool.New("/var/spool/events")
	spool.Stream(st, &SQLTarget{db: db, store: st}, done)
	spool.Stream(st, &WebhookTarget{url: url, store: st}, done)
	spool.Stream(st, &NATSTarget{nc: nc, store: st}, done)
	spool.Stream(st, &RedisTarget{pool: &redis.Pool{}, store: st}, done)
	spool.Stream(st, &IndexTarget{url: url, store: st}, done)
}

// Package spool keeps events on disk until a target has sent them, the way
// a server's notification targets replay a persistent store: a goroutine
// lists the stored keys into a channel, another hands each key to the
// target until SendFromStore returns nil; the target reads the event back
// by its key, sends it and deletes it.
package spool

import (
	"encoding/json"
	"os"
	"path/filepath"
	"time"
)

// Key names a stored event.
type Key struct {
	Name string
}

// Event is a stored event.
type Event struct {
	Bucket, Object, Action string
}

// Target sends stored events.
type Target interface {
	Name() string
	SendFromStore(key Key) error
}

// Store keeps events until they are sent.
type Store struct{ dir string }

// New returns a store in dir.
func New(dir string) *Store { return &Store{dir: dir} }

// Put stores ev.
func (s *Store) Put(ev Event) (Key, error) {
	b, err := json.Marshal(ev)
	if err != nil {
		return Key{}, err
	}
	k := Key{Name: ev.Object}
	return k, os.WriteFile(filepath.Join(s.dir, k.Name), b, 0o600)
}

// Get reads the event stored under key.
func (s *Store) Get(key Key) (Event, error) {
	var ev Event
	b, err := os.ReadFile(filepath.Join(s.dir, key.Name))
	if err != nil {
		return ev, err
	}
	err = json.Unmarshal(b, &ev)
	return ev, err
}

// Del deletes the event stored under key.
func (s *Store) Del(key Key) error { return os.Remove(filepath.Join(s.dir, key.Name)) }

// List returns the stored keys.
func (s *Store) List() []Key {
	names, _ := os.ReadDir(s.dir)
	var out []Key
	for _, n := range names {
		out = append(out, Key{Name: n.Name()})
	}
	return out
}

// Stream replays the store's events to target until done closes.
func Stream(s *Store, target Target, done <-chan struct{}) {
	keys := make(chan Key)
	go func() {
		defer close(keys)
		for {
			for _, k := range s.List() {
				select {
				case keys <- k:
				case <-done:
					return
				}
			}
			time.Sleep(time.Second)
		}
	}()
	go send(target, keys, done)
}

func send(target Target, keys <-chan Key, done <-chan struct{}) {
	retry := func(key Key) bool {
		for {
			if err := target.SendFromStore(key); err == nil {
				return true
			}
			select {
			case <-time.After(3 * time.Second):
			case <-done:
				return false
			}
		}
	}
	for {
		select {
		case key, ok := <-keys:
			if !ok || !retry(key) {
				return
			}
		case <-done:
			return
		}
	}
}

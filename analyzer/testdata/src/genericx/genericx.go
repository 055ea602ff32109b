// Package genericx (whole-program mode): effects behind a generic
// repository. A call of an instance (Repo[User].UpdatePartialByID,
// Store[Announcement].Get promoted to a type that embeds the store) runs
// its generic origin's body: a failure there is the effect failing, and a
// model of the type parameter is the instance's table.
package genericx

import (
	"context"
	"log"

	"github.com/gocraft/work"
	"github.com/hibiken/asynq"
	"github.com/redis/go-redis/v9"
	"go.mongodb.org/mongo-driver/mongo"
	"gorm.io/gorm"
)

// Repo is a generic MongoDB repository.
type Repo[T any] struct{ Model *mongo.Collection }

// UpdatePartialByID sets fields of the document id.
func (r *Repo[T]) UpdatePartialByID(id string, payload any) (int64, error) {
	res, err := r.Model.UpdateByID(context.Background(), id, map[string]any{"$set": payload})
	if err != nil {
		log.Print(err)
		return 0, err
	}
	return res.MatchedCount, nil
}

// User is a user document.
type User struct{ ID string }

var users Repo[User]

// UserRepo returns the users' repository.
func UserRepo() *Repo[User] { return &users }

// LockAccount logs a failed lock and returns nil: the job is done, the
// account stays unlocked.
func LockAccount(job *work.Job) error {
	n, err := UserRepo().UpdatePartialByID(job.ArgString("id"), map[string]any{"accountLocked": true})
	if err != nil || n == 0 {
		log.Print("error locking user account")
	}
	return nil // want `handler LockAccount returns nil when genericx.Repo.UpdatePartialByID fails, and its dispatcher acks on that: the message is lost \(IDEM003\)`
}

// UnlockAccount returns the failure: the job is retried.
func UnlockAccount(job *work.Job) error {
	_, err := UserRepo().UpdatePartialByID(job.ArgString("id"), map[string]any{"accountLocked": false})
	return err
}

// Store is a generic gorm store.
type Store[T any] struct{ db *gorm.DB }

// NewStore returns a store of Ts.
func NewStore[T any](db *gorm.DB) *Store[T] { return &Store[T]{db: db} }

// Get reads the row id.
func (s *Store[T]) Get(ctx context.Context, id uint64) (*T, error) {
	var obj T
	if err := s.db.WithContext(ctx).Where("id = ?", id).First(&obj).Error; err != nil {
		return nil, err
	}
	return &obj, nil
}

// Update saves obj, its fields or the ones named.
func (s *Store[T]) Update(ctx context.Context, obj *T, fields ...string) error {
	return s.db.WithContext(ctx).Select(fields).Save(obj).Error
}

// Announcement is an announcement row.
type Announcement struct {
	ID     uint64
	Status string
	Title  string
}

// AnnouncementStore reads and writes announcements.
type AnnouncementStore interface {
	Get(ctx context.Context, id uint64) (*Announcement, error)
	Update(ctx context.Context, obj *Announcement, fields ...string) error
}

type announcementStore struct{ *Store[Announcement] }

// Announcements is the store the tasks use.
var Announcements AnnouncementStore = &announcementStore{NewStore[Announcement](nil)}

// Broadcast is the Redis client of real-time notifications.
var Broadcast *redis.Client

// PublishAnnouncement marks the announcement published before it
// broadcasts it: when the broadcast fails, the retry finds it published
// and skips it.
func PublishAnnouncement(ctx context.Context, t *asynq.Task) error {
	a, err := Announcements.Get(ctx, uint64(len(t.Payload())))
	if err != nil {
		return err
	}
	if a.Status != "scheduled" {
		return nil
	}
	a.Status = "published"
	if err := Announcements.Update(ctx, a); err != nil {
		return err
	}
	return Broadcast.Publish(ctx, "ntf:broadcast", a.Title).Err() // want `redis.Client.Publish in handler PublishAnnouncement runs after genericx.AnnouncementStore.Update wrote the state \(Status\)`
}

// RetitleAnnouncement writes only the title, not the state it checks:
// a retry broadcasts again.
func RetitleAnnouncement(ctx context.Context, t *asynq.Task) error {
	a, err := Announcements.Get(ctx, uint64(len(t.Payload())))
	if err != nil {
		return err
	}
	if a.Status != "published" {
		return nil
	}
	a.Title = string(t.Payload())
	if err := Announcements.Update(ctx, a, "title"); err != nil {
		return err
	}
	return Broadcast.Publish(ctx, "ntf:broadcast", a.Title).Err()
}

// Register registers the jobs and tasks.
func Register(pool *work.WorkerPool, mux *asynq.ServeMux) {
	pool.Job("lock_account", LockAccount)
	pool.Job("unlock_account", UnlockAccount)
	mux.HandleFunc("announcement:publish", PublishAnnouncement)
	mux.HandleFunc("announcement:retitle", RetitleAnnouncement)
}

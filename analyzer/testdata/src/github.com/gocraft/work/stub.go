// Package work is a stub of github.com/gocraft/work@v0.5.1 for analyzer tests: signatures mirror the real API.
//
// Bodies return zero values.
package work

import "github.com/gomodule/redigo/redis"

type Job struct {
	Name       string                 `json:"name,omitempty"`
	ID         string                 `json:"id"`
	EnqueuedAt int64                  `json:"t"`
	Args       map[string]interface{} `json:"args"`
	Unique     bool                   `json:"unique,omitempty"`
	Fails      int64                  `json:"fails,omitempty"`
	LastErr    string                 `json:"err,omitempty"`
	FailedAt   int64                  `json:"failed_at,omitempty"`
}

func (j *Job) ArgString(key string) string { return "" }
func (j *Job) ArgInt64(key string) int64   { return 0 }
func (j *Job) ArgBool(key string) bool     { return false }
func (j *Job) ArgError() error             { return nil }

type JobOptions struct {
	Priority       uint
	MaxFails       uint
	SkipDead       bool
	MaxConcurrency uint
}

type WorkerPool struct{}

func NewWorkerPool(ctx interface{}, concurrency uint, namespace string, pool *redis.Pool) *WorkerPool {
	return nil
}

func (wp *WorkerPool) Job(name string, fn interface{}) *WorkerPool { return nil }
func (wp *WorkerPool) JobWithOptions(name string, jobOpts JobOptions, fn interface{}) *WorkerPool {
	return nil
}
func (wp *WorkerPool) Start() {}
func (wp *WorkerPool) Stop()  {}

type ScheduledJob struct {
	RunAt int64 `json:"run_at"`
	*Job
}

type Enqueuer struct{}

func NewEnqueuer(namespace string, pool *redis.Pool) *Enqueuer { return nil }

func (e *Enqueuer) Enqueue(jobName string, args map[string]interface{}) (*Job, error) {
	return nil, nil
}
func (e *Enqueuer) EnqueueIn(jobName string, secondsFromNow int64, args map[string]interface{}) (*ScheduledJob, error) {
	return nil, nil
}
func (e *Enqueuer) EnqueueUnique(jobName string, args map[string]interface{}) (*Job, error) {
	return nil, nil
}
func (e *Enqueuer) EnqueueUniqueIn(jobName string, secondsFromNow int64, args map[string]interface{}) (*ScheduledJob, error) {
	return nil, nil
}

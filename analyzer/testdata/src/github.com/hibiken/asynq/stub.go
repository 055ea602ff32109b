// Package asynq is a stub of github.com/hibiken/asynq@v0.26.0 for analyzer tests: signatures mirror the real API.
//
// Generated from the real package's type information; bodies return zero values.
package asynq

import (
	"context"
	"errors"
	"time"
)

type Task struct {
}

func (t *Task) Type() string { return "" }

func (t *Task) Payload() []byte { return nil }

func (t *Task) Headers() map[string]string { return nil }

func (t *Task) ResultWriter() *ResultWriter { return nil }

func NewTask(typename string, payload []byte, opts ...Option) *Task { return nil }

func NewTaskWithHeaders(typename string, payload []byte, headers map[string]string, opts ...Option) *Task {
	return nil
}

type ResultWriter struct {
}

func (w *ResultWriter) Write(data []byte) (n int, err error) { return 0, nil }

func (w *ResultWriter) TaskID() string { return "" }

type Handler interface {
	ProcessTask(context.Context, *Task) error
}

type HandlerFunc func(context.Context, *Task) error

func (fn HandlerFunc) ProcessTask(ctx context.Context, task *Task) error { return nil }

type MiddlewareFunc func(Handler) Handler

type ServeMux struct {
}

func (mux *ServeMux) Handle(pattern string, handler Handler) {}

func (mux *ServeMux) HandleFunc(pattern string, handler func(context.Context, *Task) error) {}

func (mux *ServeMux) ProcessTask(ctx context.Context, task *Task) error { return nil }

func (mux *ServeMux) Use(mws ...MiddlewareFunc) {}

func (mux *ServeMux) Handler(t *Task) (h Handler, pattern string) { return nil, "" }

func NewServeMux() *ServeMux { return nil }

type Client struct {
}

func (c *Client) Enqueue(task *Task, opts ...Option) (*TaskInfo, error) { return nil, nil }

func (c *Client) EnqueueContext(ctx context.Context, task *Task, opts ...Option) (*TaskInfo, error) {
	return nil, nil
}

func (c *Client) Close() error { return nil }

func NewClient(r RedisConnOpt) *Client { return nil }

type TaskInfo struct {
	ID       string
	Queue    string
	Type     string
	Payload  []byte
	MaxRetry int
	Retried  int
	LastErr  string
}

type Server struct {
}

func (srv *Server) Run(handler Handler) error { return nil }

func (srv *Server) Start(handler Handler) error { return nil }

func (srv *Server) Shutdown() {}

func (srv *Server) Stop() {}

func NewServer(r RedisConnOpt, cfg Config) *Server { return nil }

type Config struct {
	Concurrency    int
	Queues         map[string]int
	StrictPriority bool
}

type RedisConnOpt interface {
	MakeRedisClient() interface{}
}

type RedisClientOpt struct {
	Addr     string
	Username string
	Password string
	DB       int
}

func (opt RedisClientOpt) MakeRedisClient() interface{} { return nil }

type Option interface {
	String() string
	Type() OptionType
	Value() interface{}
}

type OptionType int

func MaxRetry(n int) Option { return nil }

func Queue(name string) Option { return nil }

func TaskID(id string) Option { return nil }

func Unique(ttl time.Duration) Option { return nil }

func ProcessIn(d time.Duration) Option { return nil }

func Timeout(d time.Duration) Option { return nil }

func Deadline(t time.Time) Option { return nil }

func Retention(d time.Duration) Option { return nil }

var SkipRetry = errors.New("skip retry for the task")

var RevokeTask = errors.New("revoke task")

var ErrDuplicateTask = errors.New("task already exists")

var ErrTaskIDConflict = errors.New("task ID conflicts with another task")

func GetRetryCount(ctx context.Context) (n int, ok bool) { return 0, false }

func GetTaskID(ctx context.Context) (id string, ok bool) { return "", false }

func GetMaxRetry(ctx context.Context) (n int, ok bool) { return 0, false }

func GetQueueName(ctx context.Context) (queue string, ok bool) { return "", false }

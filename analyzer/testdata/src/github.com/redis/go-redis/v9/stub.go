// Package redis is a stub of github.com/redis/go-redis/v9@v9.23.0 for analyzer tests: signatures mirror the real API.
//
// Generated from the real package's type information; bodies return zero values.
package redis

import (
	"context"
	"github.com/redis/go-redis/v9/internal/proto"
	"time"
)

const Nil proto.RedisError = "redis: nil"

type Options struct {
	Addr     string
	Password string
	DB       int
}

func NewClient(opt *Options) *Client { return nil }

type ClusterOptions struct {
	Addrs    []string
	Password string
}

func NewClusterClient(opt *ClusterOptions) *ClusterClient { return nil }

type UniversalOptions struct {
	Addrs    []string
	DB       int
	Password string
}

func NewUniversalClient(opts *UniversalOptions) UniversalClient { return nil }

type Client struct {
	*baseClient
	cmdable
}

func (c *Client) Close() error { return nil }

func (c *Client) Process(ctx context.Context, cmd Cmder) error { return nil }

func (c *Client) Pipelined(ctx context.Context, fn func(Pipeliner) error) ([]Cmder, error) {
	return nil, nil
}

func (c *Client) Pipeline() Pipeliner { return nil }

func (c *Client) TxPipelined(ctx context.Context, fn func(Pipeliner) error) ([]Cmder, error) {
	return nil, nil
}

func (c *Client) TxPipeline() Pipeliner { return nil }

func (c *Client) Watch(ctx context.Context, fn func(*Tx) error, keys ...string) error { return nil }

type baseClient struct {
}

type ClusterClient struct {
	cmdable
}

func (c *ClusterClient) Close() error { return nil }

func (c *ClusterClient) Process(ctx context.Context, cmd Cmder) error { return nil }

func (c *ClusterClient) Pipelined(ctx context.Context, fn func(Pipeliner) error) ([]Cmder, error) {
	return nil, nil
}

func (c *ClusterClient) Pipeline() Pipeliner { return nil }

func (c *ClusterClient) TxPipelined(ctx context.Context, fn func(Pipeliner) error) ([]Cmder, error) {
	return nil, nil
}

func (c *ClusterClient) TxPipeline() Pipeliner { return nil }

func (c *ClusterClient) Watch(ctx context.Context, fn func(*Tx) error, keys ...string) error {
	return nil
}

type Tx struct {
	baseClient
	cmdable
	statefulCmdable
}

func (c *Tx) Process(ctx context.Context, cmd Cmder) error { return nil }

func (c *Tx) Close(ctx context.Context) error { return nil }

func (c *Tx) Watch(ctx context.Context, keys ...string) *StatusCmd { return nil }

func (c *Tx) Unwatch(ctx context.Context, keys ...string) *StatusCmd { return nil }

func (c *Tx) Pipeline() Pipeliner { return nil }

func (c *Tx) Pipelined(ctx context.Context, fn func(Pipeliner) error) ([]Cmder, error) {
	return nil, nil
}

func (c *Tx) TxPipelined(ctx context.Context, fn func(Pipeliner) error) ([]Cmder, error) {
	return nil, nil
}

func (c *Tx) TxPipeline() Pipeliner { return nil }

type Pipeline struct {
	cmdable
	statefulCmdable
}

func (c *Pipeline) Pipeline() Pipeliner { return nil }

func (c *Pipeline) Pipelined(ctx context.Context, fn func(Pipeliner) error) ([]Cmder, error) {
	return nil, nil
}

func (c *Pipeline) TxPipelined(ctx context.Context, fn func(Pipeliner) error) ([]Cmder, error) {
	return nil, nil
}

func (c *Pipeline) TxPipeline() Pipeliner { return nil }

func (c *Pipeline) BatchProcess(ctx context.Context, cmd ...Cmder) error { return nil }

func (c *Pipeline) Len() int { return 0 }

func (c *Pipeline) Do(ctx context.Context, args ...interface{}) *Cmd { return nil }

func (c *Pipeline) Process(ctx context.Context, cmd Cmder) error { return nil }

func (c *Pipeline) Exec(ctx context.Context) ([]Cmder, error) { return nil, nil }

func (c *Pipeline) Discard() {}

func (c *Pipeline) Cmds() []Cmder { return nil }

type UniversalClient interface {
	Cmdable
	Close() error
	Do(ctx context.Context, args ...interface{}) *Cmd
	Process(ctx context.Context, cmd Cmder) error
	Watch(ctx context.Context, fn func(*Tx) error, keys ...string) error
}

type Cmdable interface {
	GenericCmdable
	HashCmdable
	ListCmdable
	PubSubCmdable
	ScriptingFunctionsCmdable
	SetCmdable
	SortedSetCmdable
	StringCmdable
	StreamCmdable
	TimeseriesCmdable
	JSONCmdable
	Ping(ctx context.Context) *StatusCmd
	Pipeline() Pipeliner
	Pipelined(ctx context.Context, fn func(Pipeliner) error) ([]Cmder, error)
	TxPipeline() Pipeliner
	TxPipelined(ctx context.Context, fn func(Pipeliner) error) ([]Cmder, error)
	Unlink(ctx context.Context, keys ...string) *IntCmd
}

type StatefulCmdable interface {
	Cmdable
	Select(ctx context.Context, index int) *StatusCmd
}

type Pipeliner interface {
	StatefulCmdable
	BatchProcess(ctx context.Context, cmd ...Cmder) error
	Cmds() []Cmder
	Discard()
	Do(ctx context.Context, args ...interface{}) *Cmd
	Exec(ctx context.Context) ([]Cmder, error)
	Len() int
	Process(ctx context.Context, cmd Cmder) error
}

type GenericCmdable interface {
	Del(ctx context.Context, keys ...string) *IntCmd
	Exists(ctx context.Context, keys ...string) *IntCmd
	Expire(ctx context.Context, key string, expiration time.Duration) *BoolCmd
}

type HashCmdable interface {
	HDel(ctx context.Context, key string, fields ...string) *IntCmd
	HExists(ctx context.Context, key string, field string) *BoolCmd
	HGet(ctx context.Context, key string, field string) *StringCmd
	HIncrBy(ctx context.Context, key string, field string, incr int64) *IntCmd
	HIncrByFloat(ctx context.Context, key string, field string, incr float64) *FloatCmd
	HSet(ctx context.Context, key string, values ...interface{}) *IntCmd
	HMSet(ctx context.Context, key string, values ...interface{}) *BoolCmd
	HSetNX(ctx context.Context, key string, field string, value interface{}) *BoolCmd
}

type ListCmdable interface {
	BLPop(ctx context.Context, timeout time.Duration, keys ...string) *StringSliceCmd
	BLMPop(ctx context.Context, timeout time.Duration, direction string, count int64, keys ...string) *KeyValuesCmd
	BRPop(ctx context.Context, timeout time.Duration, keys ...string) *StringSliceCmd
	BLMove(ctx context.Context, source string, destination string, srcpos string, destpos string, timeout time.Duration) *StringCmd
	BRPopLPush(ctx context.Context, source, destination string, timeout time.Duration) *StringCmd
	LRem(ctx context.Context, key string, count int64, value interface{}) *IntCmd
	LInsert(ctx context.Context, key string, op string, pivot interface{}, value interface{}) *IntCmd
	LInsertAfter(ctx context.Context, key string, pivot interface{}, value interface{}) *IntCmd
	LInsertBefore(ctx context.Context, key string, pivot interface{}, value interface{}) *IntCmd
	LMove(ctx context.Context, source string, destination string, srcpos string, destpos string) *StringCmd
	LPop(ctx context.Context, key string) *StringCmd
	LPush(ctx context.Context, key string, values ...interface{}) *IntCmd
	LPushX(ctx context.Context, key string, values ...interface{}) *IntCmd
	RPop(ctx context.Context, key string) *StringCmd
	RPopLPush(ctx context.Context, source string, destination string) *StringCmd
	RPush(ctx context.Context, key string, values ...interface{}) *IntCmd
	RPushX(ctx context.Context, key string, values ...interface{}) *IntCmd
}

type SetCmdable interface {
	SAdd(ctx context.Context, key string, members ...interface{}) *IntCmd
	SIsMember(ctx context.Context, key string, member interface{}) *BoolCmd
	SMove(ctx context.Context, source string, destination string, member interface{}) *BoolCmd
	SRem(ctx context.Context, key string, members ...interface{}) *IntCmd
}

type SortedSetCmdable interface {
	ZAdd(ctx context.Context, key string, members ...Z) *IntCmd
	ZIncrBy(ctx context.Context, key string, increment float64, member string) *FloatCmd
	ZRem(ctx context.Context, key string, members ...interface{}) *IntCmd
}

type StringCmdable interface {
	Append(ctx context.Context, key string, value string) *IntCmd
	Decr(ctx context.Context, key string) *IntCmd
	DecrBy(ctx context.Context, key string, decrement int64) *IntCmd
	Get(ctx context.Context, key string) *StringCmd
	GetDel(ctx context.Context, key string) *StringCmd
	Incr(ctx context.Context, key string) *IntCmd
	IncrBy(ctx context.Context, key string, value int64) *IntCmd
	IncrByFloat(ctx context.Context, key string, value float64) *FloatCmd
	MSet(ctx context.Context, values ...interface{}) *StatusCmd
	Set(ctx context.Context, key string, value interface{}, expiration time.Duration) *StatusCmd
	SetArgs(ctx context.Context, key string, value interface{}, a SetArgs) *StatusCmd
	SetEx(ctx context.Context, key string, value interface{}, expiration time.Duration) *StatusCmd
	SetNX(ctx context.Context, key string, value interface{}, expiration time.Duration) *BoolCmd
}

type StreamCmdable interface {
	XAck(ctx context.Context, stream string, group string, ids ...string) *IntCmd
	XAckDel(ctx context.Context, stream string, group string, mode string, ids ...string) *SliceCmd
	XAdd(ctx context.Context, a *XAddArgs) *StringCmd
	XAutoClaim(ctx context.Context, a *XAutoClaimArgs) *XAutoClaimCmd
	XClaim(ctx context.Context, a *XClaimArgs) *XMessageSliceCmd
	XDel(ctx context.Context, stream string, ids ...string) *IntCmd
	XGroupCreateMkStream(ctx context.Context, stream string, group string, start string) *StatusCmd
	XReadGroup(ctx context.Context, a *XReadGroupArgs) *XStreamSliceCmd
}

type ScriptingFunctionsCmdable interface {
	Eval(ctx context.Context, script string, keys []string, args ...interface{}) *Cmd
	EvalSha(ctx context.Context, sha1 string, keys []string, args ...interface{}) *Cmd
}

type PubSubCmdable interface {
	Publish(ctx context.Context, channel string, message interface{}) *IntCmd
	SPublish(ctx context.Context, channel string, message interface{}) *IntCmd
}

type JSONCmdable interface {
	JSONArrAppend(ctx context.Context, key string, path string, values ...interface{}) *IntSliceCmd
	JSONNumIncrBy(ctx context.Context, key string, path string, value float64) *JSONCmd
}

type TimeseriesCmdable interface {
	TSAdd(ctx context.Context, key string, timestamp interface{}, value float64) *IntCmd
	TSDecrBy(ctx context.Context, Key string, timestamp float64) *IntCmd
	TSIncrBy(ctx context.Context, Key string, timestamp float64) *IntCmd
}

type cmdable func(ctx context.Context, cmd Cmder) error

func (c cmdable) Ping(ctx context.Context) *StatusCmd { return nil }

func (c cmdable) Del(ctx context.Context, keys ...string) *IntCmd { return nil }

func (c cmdable) Exists(ctx context.Context, keys ...string) *IntCmd { return nil }

func (c cmdable) Expire(ctx context.Context, key string, expiration time.Duration) *BoolCmd {
	return nil
}

func (c cmdable) HGet(ctx context.Context, key string, field string) *StringCmd { return nil }

func (c cmdable) HSet(ctx context.Context, key string, values ...interface{}) *IntCmd { return nil }

func (c cmdable) HMSet(ctx context.Context, key string, values ...interface{}) *BoolCmd { return nil }

func (c cmdable) HIncrBy(ctx context.Context, key string, field string, incr int64) *IntCmd {
	return nil
}

func (c cmdable) HIncrByFloat(ctx context.Context, key string, field string, incr float64) *FloatCmd {
	return nil
}

func (c cmdable) HSetNX(ctx context.Context, key string, field string, value interface{}) *BoolCmd {
	return nil
}

func (c cmdable) HDel(ctx context.Context, key string, fields ...string) *IntCmd { return nil }

func (c cmdable) LPush(ctx context.Context, key string, values ...interface{}) *IntCmd { return nil }

func (c cmdable) RPush(ctx context.Context, key string, values ...interface{}) *IntCmd { return nil }

func (c cmdable) LPop(ctx context.Context, key string) *StringCmd { return nil }

func (c cmdable) RPop(ctx context.Context, key string) *StringCmd { return nil }

func (c cmdable) SAdd(ctx context.Context, key string, members ...interface{}) *IntCmd { return nil }

func (c cmdable) SIsMember(ctx context.Context, key string, member interface{}) *BoolCmd { return nil }

func (c cmdable) SRem(ctx context.Context, key string, members ...interface{}) *IntCmd { return nil }

func (c cmdable) ZAdd(ctx context.Context, key string, members ...Z) *IntCmd { return nil }

func (c cmdable) ZRem(ctx context.Context, key string, members ...interface{}) *IntCmd { return nil }

func (c cmdable) ZIncrBy(ctx context.Context, key string, increment float64, member string) *FloatCmd {
	return nil
}

func (c cmdable) Get(ctx context.Context, key string) *StringCmd { return nil }

func (c cmdable) Set(ctx context.Context, key string, value interface{}, expiration time.Duration) *StatusCmd {
	return nil
}

func (c cmdable) SetNX(ctx context.Context, key string, value interface{}, expiration time.Duration) *BoolCmd {
	return nil
}

func (c cmdable) SetArgs(ctx context.Context, key string, value interface{}, a SetArgs) *StatusCmd {
	return nil
}

func (c cmdable) SetEx(ctx context.Context, key string, value interface{}, expiration time.Duration) *StatusCmd {
	return nil
}

func (c cmdable) Incr(ctx context.Context, key string) *IntCmd { return nil }

func (c cmdable) IncrBy(ctx context.Context, key string, value int64) *IntCmd { return nil }

func (c cmdable) IncrByFloat(ctx context.Context, key string, value float64) *FloatCmd { return nil }

func (c cmdable) Decr(ctx context.Context, key string) *IntCmd { return nil }

func (c cmdable) DecrBy(ctx context.Context, key string, decrement int64) *IntCmd { return nil }

func (c cmdable) GetDel(ctx context.Context, key string) *StringCmd { return nil }

func (c cmdable) XAdd(ctx context.Context, a *XAddArgs) *StringCmd { return nil }

func (c cmdable) XReadGroup(ctx context.Context, a *XReadGroupArgs) *XStreamSliceCmd { return nil }

func (c cmdable) XAck(ctx context.Context, stream string, group string, ids ...string) *IntCmd {
	return nil
}

func (c cmdable) XGroupCreateMkStream(ctx context.Context, stream string, group string, start string) *StatusCmd {
	return nil
}

func (c cmdable) XDel(ctx context.Context, stream string, ids ...string) *IntCmd { return nil }

func (c cmdable) Eval(ctx context.Context, script string, keys []string, args ...interface{}) *Cmd {
	return nil
}

func (c cmdable) EvalSha(ctx context.Context, sha1 string, keys []string, args ...interface{}) *Cmd {
	return nil
}

func (c cmdable) Publish(ctx context.Context, channel string, message interface{}) *IntCmd {
	return nil
}

func (c cmdable) Do(ctx context.Context, args ...interface{}) *Cmd { return nil }

func (c cmdable) Unlink(ctx context.Context, keys ...string) *IntCmd { return nil }

func (c cmdable) HExists(ctx context.Context, key string, field string) *BoolCmd { return nil }

func (c cmdable) LPushX(ctx context.Context, key string, values ...interface{}) *IntCmd { return nil }

func (c cmdable) RPushX(ctx context.Context, key string, values ...interface{}) *IntCmd { return nil }

func (c cmdable) LInsert(ctx context.Context, key string, op string, pivot interface{}, value interface{}) *IntCmd {
	return nil
}

func (c cmdable) LInsertBefore(ctx context.Context, key string, pivot interface{}, value interface{}) *IntCmd {
	return nil
}

func (c cmdable) LInsertAfter(ctx context.Context, key string, pivot interface{}, value interface{}) *IntCmd {
	return nil
}

func (c cmdable) RPopLPush(ctx context.Context, source string, destination string) *StringCmd {
	return nil
}

func (c cmdable) LMove(ctx context.Context, source string, destination string, srcpos string, destpos string) *StringCmd {
	return nil
}

func (c cmdable) BLPop(ctx context.Context, timeout time.Duration, keys ...string) *StringSliceCmd {
	return nil
}

func (c cmdable) BLMPop(ctx context.Context, timeout time.Duration, direction string, count int64, keys ...string) *KeyValuesCmd {
	return nil
}

func (c cmdable) BRPop(ctx context.Context, timeout time.Duration, keys ...string) *StringSliceCmd {
	return nil
}

func (c cmdable) BRPopLPush(ctx context.Context, source, destination string, timeout time.Duration) *StringCmd {
	return nil
}

func (c cmdable) LRem(ctx context.Context, key string, count int64, value interface{}) *IntCmd {
	return nil
}

func (c cmdable) BLMove(ctx context.Context, source string, destination string, srcpos string, destpos string, timeout time.Duration) *StringCmd {
	return nil
}

func (c cmdable) SMove(ctx context.Context, source string, destination string, member interface{}) *BoolCmd {
	return nil
}

func (c cmdable) Append(ctx context.Context, key string, value string) *IntCmd { return nil }

func (c cmdable) MSet(ctx context.Context, values ...interface{}) *StatusCmd { return nil }

func (c cmdable) XAckDel(ctx context.Context, stream string, group string, mode string, ids ...string) *SliceCmd {
	return nil
}

func (c cmdable) XAutoClaim(ctx context.Context, a *XAutoClaimArgs) *XAutoClaimCmd { return nil }

func (c cmdable) XClaim(ctx context.Context, a *XClaimArgs) *XMessageSliceCmd { return nil }

func (c cmdable) SPublish(ctx context.Context, channel string, message interface{}) *IntCmd {
	return nil
}

func (c cmdable) JSONNumIncrBy(ctx context.Context, key string, path string, value float64) *JSONCmd {
	return nil
}

func (c cmdable) JSONArrAppend(ctx context.Context, key string, path string, values ...interface{}) *IntSliceCmd {
	return nil
}

func (c cmdable) TSAdd(ctx context.Context, key string, timestamp interface{}, value float64) *IntCmd {
	return nil
}

func (c cmdable) TSIncrBy(ctx context.Context, Key string, timestamp float64) *IntCmd { return nil }

func (c cmdable) TSDecrBy(ctx context.Context, Key string, timestamp float64) *IntCmd { return nil }

type statefulCmdable func(ctx context.Context, cmd Cmder) error

func (c statefulCmdable) Select(ctx context.Context, index int) *StatusCmd { return nil }

type Cmder interface {
	Args() []interface{}
	Err() error
	FullName() string
	Name() string
	SetErr(error)
	String() string
}

type baseCmd struct {
}

func (cmd *baseCmd) Name() string { return "" }

func (cmd *baseCmd) FullName() string { return "" }

func (cmd *baseCmd) Args() []interface{} { return nil }

func (cmd *baseCmd) Err() error { return nil }

func (cmd *baseCmd) SetErr(e error) {}

type Cmd struct {
	baseCmd
}

func (cmd *Cmd) Val() interface{} { return nil }

func (cmd *Cmd) Result() (interface{}, error) { return nil, nil }

func (cmd *Cmd) String() string { return "" }

func (cmd *Cmd) Int64() (int64, error) { return 0, nil }

func (cmd *Cmd) Bool() (bool, error) { return false, nil }

func (cmd *Cmd) Text() (string, error) { return "", nil }

type IntCmd struct {
	baseCmd
}

func (cmd *IntCmd) Val() int64 { return 0 }

func (cmd *IntCmd) Result() (int64, error) { return 0, nil }

func (cmd *IntCmd) String() string { return "" }

func (cmd *IntCmd) Uint64() (uint64, error) { return 0, nil }

type BoolCmd struct {
	baseCmd
}

func (cmd *BoolCmd) Val() bool { return false }

func (cmd *BoolCmd) Result() (bool, error) { return false, nil }

func (cmd *BoolCmd) String() string { return "" }

type StatusCmd struct {
	baseCmd
}

func (cmd *StatusCmd) Val() string { return "" }

func (cmd *StatusCmd) Result() (string, error) { return "", nil }

func (cmd *StatusCmd) String() string { return "" }

type StringCmd struct {
	baseCmd
}

func (cmd *StringCmd) Val() string { return "" }

func (cmd *StringCmd) Result() (string, error) { return "", nil }

func (cmd *StringCmd) String() string { return "" }

func (cmd *StringCmd) Bytes() ([]byte, error) { return nil, nil }

func (cmd *StringCmd) Int64() (int64, error) { return 0, nil }

func (cmd *StringCmd) Bool() (bool, error) { return false, nil }

type FloatCmd struct {
	baseCmd
}

func (cmd *FloatCmd) Val() float64 { return 0 }

func (cmd *FloatCmd) Result() (float64, error) { return 0, nil }

func (cmd *FloatCmd) String() string { return "" }

type StringSliceCmd struct {
	baseCmd
}

func (cmd *StringSliceCmd) Val() []string { return nil }

func (cmd *StringSliceCmd) Result() ([]string, error) { return nil, nil }

func (cmd *StringSliceCmd) String() string { return "" }

type KeyValuesCmd struct {
	baseCmd
}

func (cmd *KeyValuesCmd) Val() (string, []string) { return "", nil }

func (cmd *KeyValuesCmd) Result() (string, []string, error) { return "", nil, nil }

func (cmd *KeyValuesCmd) String() string { return "" }

type XStreamSliceCmd struct {
	baseCmd
}

func (cmd *XStreamSliceCmd) Val() []XStream { return nil }

func (cmd *XStreamSliceCmd) Result() ([]XStream, error) { return nil, nil }

func (cmd *XStreamSliceCmd) String() string { return "" }

type JSONCmd struct {
	baseCmd
}

func (cmd *JSONCmd) Val() string { return "" }

func (cmd *JSONCmd) Result() (string, error) { return "", nil }

func (cmd *JSONCmd) String() string { return "" }

type IntSliceCmd struct {
	baseCmd
}

func (cmd *IntSliceCmd) Val() []int64 { return nil }

func (cmd *IntSliceCmd) Result() ([]int64, error) { return nil, nil }

func (cmd *IntSliceCmd) String() string { return "" }

type XMessageSliceCmd struct {
	baseCmd
}

func (cmd *XMessageSliceCmd) Val() []XMessage { return nil }

func (cmd *XMessageSliceCmd) Result() ([]XMessage, error) { return nil, nil }

func (cmd *XMessageSliceCmd) String() string { return "" }

type XAutoClaimCmd struct {
	baseCmd
}

func (cmd *XAutoClaimCmd) Val() (messages []XMessage, start string) { return nil, "" }

func (cmd *XAutoClaimCmd) Result() (messages []XMessage, start string, err error) {
	return nil, "", nil
}

func (cmd *XAutoClaimCmd) String() string { return "" }

type XAutoClaimArgs struct {
	Stream   string
	Group    string
	MinIdle  time.Duration
	Start    string
	Count    int64
	Consumer string
}

type XClaimArgs struct {
	Stream   string
	Group    string
	Consumer string
	MinIdle  time.Duration
	Messages []string
}

type SliceCmd struct {
	baseCmd
}

func (cmd *SliceCmd) Val() []interface{} { return nil }

func (cmd *SliceCmd) Result() ([]interface{}, error) { return nil, nil }

func (cmd *SliceCmd) String() string { return "" }

type XAddArgs struct {
	Stream         string
	NoMkStream     bool
	MaxLen         int64
	MinID          string
	Approx         bool
	Limit          int64
	Mode           string
	ID             string
	Values         interface{}
	ProducerID     string
	IdempotentID   string
	IdempotentAuto bool
}

type XReadGroupArgs struct {
	Group    string
	Consumer string
	Streams  []string
	Count    int64
	MaxCount int64
	MaxSize  int64
	Block    time.Duration
	NoAck    bool
	Claim    time.Duration
}

type XStream struct {
	Stream   string
	Messages []XMessage
}

type XMessage struct {
	ID                        string
	Values                    map[string]interface{}
	MillisElapsedFromDelivery int64
	DeliveredCount            int64
}

type SetArgs struct {
	Mode        string
	MatchValue  interface{}
	MatchDigest uint64
	TTL         time.Duration
	ExpireAt    time.Time
	Get         bool
	KeepTTL     bool
}

type Z struct {
	Score  float64
	Member interface{}
}

const KeepTTL = -1

package adapt

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/idemkit/idem/guard"
)

// batchFunc is a guard.BatchHandler answering each batch with answer.
type batchFunc struct {
	guard.HandlerFunc
	answer func(bodies [][]byte) []guard.Result
}

func (b batchFunc) HandleBatch(_ context.Context, bodies [][]byte) []guard.Result {
	return b.answer(bodies)
}

func TestCallBatch(t *testing.T) {
	errDown := errors.New("database is down")
	single := guard.HandlerFunc(func(_ context.Context, body []byte) (guard.Outcome, error) {
		if string(body) == "bad" {
			return 0, errDown
		}
		return guard.Applied, nil
	})
	tests := []struct {
		name    string
		h       guard.Handler
		check   func(res []guard.Result) bool
		explain string
	}{
		{"a handler without HandleBatch is called once per body", single, func(res []guard.Result) bool {
			return res[0].Outcome == guard.Applied && errors.Is(res[1].Err, errDown) && res[2].Outcome == guard.Applied
		}, "the single answers, in order"},
		{"HandleBatch answers the batch", batchFunc{single, func(bodies [][]byte) []guard.Result {
			return []guard.Result{{Outcome: guard.Applied}, {Outcome: guard.Duplicate}, {Err: errDown}}
		}}, func(res []guard.Result) bool {
			return res[0].Outcome == guard.Applied && res[1].Outcome == guard.Duplicate && errors.Is(res[2].Err, errDown)
		}, "HandleBatch's answers"},
		{"a panic of HandleBatch is every message's transient error", batchFunc{single, func([][]byte) []guard.Result { panic("bug") }},
			func(res []guard.Result) bool {
				return !slices.ContainsFunc(res, func(r guard.Result) bool {
					var p *PanicError
					return !errors.As(r.Err, &p) || Classify(r.Err).Class != Retry
				})
			}, "a *PanicError for each"},
		{"an answer of the wrong length is every message's transient error", batchFunc{single, func([][]byte) []guard.Result { return make([]guard.Result, 1) }},
			func(res []guard.Result) bool {
				return !slices.ContainsFunc(res, func(r guard.Result) bool { return r.Err == nil || Classify(r.Err).Class != Retry })
			}, "an error for each"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := CallBatch(context.Background(), "test", 0, tt.h, [][]byte{[]byte("a"), []byte("bad"), []byte("c")})
			if len(res) != 3 || !tt.check(res) {
				t.Errorf("CallBatch = %+v, want %s", res, tt.explain)
			}
		})
	}
}

func TestGather(t *testing.T) {
	tests := []struct {
		name   string
		queued []int
		closed bool
		n      int
		want   []int
		err    error
	}{
		{"stops at n", []int{1, 2, 3, 4}, false, 3, []int{1, 2, 3}, nil},
		{"takes what came within the flush", []int{1, 2}, false, 5, []int{1, 2}, nil},
		{"a closed channel ends the batch", []int{1}, true, 5, []int{1}, nil},
		{"nothing on a closed channel", nil, true, 5, nil, ErrClosed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ch := make(chan int, len(tt.queued))
			for _, v := range tt.queued {
				ch <- v
			}
			if tt.closed {
				close(ch)
			}
			// The flush passes only when the channel has nothing more:
			// every item is queued before Gather starts.
			got, err := Gather(context.Background(), tt.n, 10*time.Millisecond, Receive(ch))
			if !slices.Equal(got, tt.want) || !errors.Is(err, tt.err) {
				t.Errorf("Gather = %v, %v; want %v, %v", got, err, tt.want, tt.err)
			}
		})
	}
}

package guard_test

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/idemkit/idem/guard"
)

// captureHandler is a slog.Handler that keeps the records at or above level.
type captureHandler struct {
	level   slog.Level
	mu      sync.Mutex
	records []slog.Record
}

func (h *captureHandler) Enabled(_ context.Context, l slog.Level) bool { return l >= h.level }
func (h *captureHandler) Handle(_ context.Context, r slog.Record) error {
	h.mu.Lock()
	h.records = append(h.records, r)
	h.mu.Unlock()
	return nil
}
func (h *captureHandler) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h *captureHandler) WithGroup(string) slog.Handler      { return h }

func attrs(r slog.Record) map[string]slog.Value {
	m := map[string]slog.Value{}
	r.Attrs(func(a slog.Attr) bool { m[a.Key] = a.Value; return true })
	return m
}

func TestSlogObserverLevels(t *testing.T) {
	levels := map[guard.Decision]slog.Level{
		guard.DecisionApplied: slog.LevelDebug, guard.DecisionDuplicate: slog.LevelDebug, guard.DecisionPurged: slog.LevelDebug,
		guard.DecisionRetried: slog.LevelInfo, guard.DecisionInProgress: slog.LevelInfo, guard.DecisionReleased: slog.LevelInfo,
		guard.DecisionTakeover: slog.LevelInfo,
		guard.DecisionConflict: slog.LevelWarn, guard.DecisionFailed: slog.LevelWarn, guard.DecisionUncertain: slog.LevelWarn,
		guard.DecisionLeaseLost: slog.LevelWarn, guard.DecisionPartial: slog.LevelWarn,
	}
	ctx := context.Background()
	for d, want := range levels {
		h := &captureHandler{level: slog.LevelDebug}
		guard.NewSlogObserver(slog.New(h)).Observe(ctx, guard.Event{Decision: d, Consumer: "send_sms", Key: "v11:a"})
		if len(h.records) != 1 {
			t.Errorf("%s: %d records, want 1", d, len(h.records))
			continue
		}
		r := h.records[0]
		if r.Level != want {
			t.Errorf("%s logged at %s, want %s", d, r.Level, want)
		}
		a := attrs(r)
		if a["decision"].String() != string(d) || a["consumer"].String() != "send_sms" || a["key"].String() != "v11:a" {
			t.Errorf("%s attributes = %v", d, a)
		}
	}

	h := &captureHandler{level: slog.LevelInfo}
	o := guard.NewSlogObserver(slog.New(h))
	o.Observe(ctx, guard.Event{Decision: guard.DecisionApplied, Consumer: "c", Key: "k"})
	o.Observe(ctx, guard.Event{Decision: guard.DecisionDuplicate, Consumer: "c", Key: "k"})
	if len(h.records) != 0 {
		t.Errorf("an Info logger got %d debug decisions", len(h.records))
	}
	o.Observe(ctx, guard.Event{Decision: guard.DecisionRetried, Consumer: "c", Key: "k", Attempt: 3, Err: errors.New("deadlock"), Duration: time.Millisecond})
	o.Observe(ctx, guard.Event{Decision: guard.DecisionPurged, Count: 42})
	h.level = slog.LevelDebug
	o.Observe(ctx, guard.Event{Decision: guard.DecisionPurged, Count: 42})
	if len(h.records) != 2 {
		t.Fatalf("got %d records, want the retried and one purged", len(h.records))
	}
	retried, purged := attrs(h.records[0]), attrs(h.records[1])
	if retried["attempt"].Int64() != 3 || retried["error"].String() != "deadlock" || retried["duration"].Duration() != time.Millisecond {
		t.Errorf("retried attributes = %v", retried)
	}
	if purged["count"].Int64() != 42 {
		t.Errorf("purged attributes = %v", purged)
	}
	if _, ok := purged["consumer"]; ok {
		t.Errorf("a purge logged a consumer: %v", purged)
	}
}

func TestObserverFunc(t *testing.T) {
	var got guard.Event
	guard.ObserverFunc(func(_ context.Context, e guard.Event) { got = e }).Observe(context.Background(), guard.Event{Decision: guard.DecisionTakeover})
	if got.Decision != guard.DecisionTakeover {
		t.Errorf("ObserverFunc got %+v", got)
	}
}

func TestSlogObserverCutsLongKeys(t *testing.T) {
	for _, tt := range []struct {
		key, want string
	}{
		{"v11:a", "v11:a"},
		{strings.Repeat("k", 512), strings.Repeat("k", 512)},
		{strings.Repeat("k", guard.MaxKeyLen), strings.Repeat("k", 512) + "… (1048576 bytes)"},
	} {
		h := &captureHandler{level: slog.LevelDebug}
		guard.NewSlogObserver(slog.New(h)).Observe(context.Background(), guard.Event{Decision: guard.DecisionApplied, Consumer: "c", Key: tt.key})
		if len(h.records) != 1 {
			t.Fatalf("%d records", len(h.records))
		}
		if got := attrs(h.records[0])["key"].String(); got != tt.want {
			t.Errorf("logged key of %d bytes for a key of %d, want %d", len(got), len(tt.key), len(tt.want))
		}
	}
}

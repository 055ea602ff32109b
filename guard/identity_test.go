package guard_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/idemkit/idem/guard"
	"github.com/idemkit/idem/guard/internal/storekit"
)

func TestKeyIdentityCache(t *testing.T) {
	ctx := context.Background()
	c := storekit.NewKeyIdentityCache()
	var runs atomic.Int32
	ok := func(context.Context) error { runs.Add(1); return nil }
	failing := func(context.Context) error { runs.Add(1); return errors.New("refused") }

	for range 3 {
		if err := c.Check(ctx, "t", "c", "id", ok); err != nil {
			t.Fatal(err)
		}
	}
	if n := runs.Swap(0); n != 1 {
		t.Errorf("a confirmed identity was checked %d times, want once", n)
	}
	// Another identity, consumer or scope is another check.
	for _, k := range [][3]string{{"t", "c", "id2"}, {"t", "c2", "id"}, {"t2", "c", "id"}} {
		if err := c.Check(ctx, k[0], k[1], k[2], ok); err != nil {
			t.Fatal(err)
		}
	}
	if n := runs.Swap(0); n != 3 {
		t.Errorf("%d checks for three other entries, want 3", n)
	}
	// A refusal is not remembered.
	for range 2 {
		if err := c.Check(ctx, "t", "bad", "id", failing); err == nil {
			t.Fatal("a failed check answered nil")
		}
	}
	if n := runs.Swap(0); n != 2 {
		t.Errorf("a failed check ran %d times in two calls, want 2", n)
	}
	// Forget drops the consumer's entries in the scope only.
	c.Forget("t", "c")
	for _, k := range [][3]string{{"t", "c", "id"}, {"t", "c", "id2"}, {"t2", "c", "id"}} {
		if err := c.Check(ctx, k[0], k[1], k[2], ok); err != nil {
			t.Fatal(err)
		}
	}
	if n := runs.Swap(0); n != 2 {
		t.Errorf("%d checks after Forget(t, c), want the 2 of t/c", n)
	}
}

// TestKeyIdentityCacheConcurrent: concurrent first checks of one entry run
// one check; a caller whose context ends while it waits gives up alone.
func TestKeyIdentityCacheConcurrent(t *testing.T) {
	c := storekit.NewKeyIdentityCache()
	entered, release := make(chan struct{}), make(chan struct{})
	var runs atomic.Int32
	check := func(context.Context) error {
		if runs.Add(1) == 1 {
			close(entered)
			<-release
		}
		return nil
	}
	first := make(chan error, 1)
	go func() { first <- c.Check(context.Background(), "t", "c", "id", check) }()
	<-entered

	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	if err := c.Check(cancelled, "t", "c", "id", check); !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "consumer c") {
		t.Errorf("a waiter with an ended context: %v, want context.Canceled naming the consumer", err)
	}
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			if err := c.Check(context.Background(), "t", "c", "id", check); err != nil {
				t.Error(err)
			}
		})
	}
	close(release)
	wg.Wait()
	if err := <-first; err != nil {
		t.Fatal(err)
	}
	if n := runs.Load(); n != 1 {
		t.Errorf("%d checks for concurrent first calls, want 1", n)
	}
}

func TestCheckKeyIdentity(t *testing.T) {
	for _, tt := range []struct {
		state    guard.State
		recorded string
		wantErr  string // "" for nil
	}{
		{guard.StateDone, "id", ""},
		{guard.StateDone, "other", `key identity changed from "other" (recorded) to "id" (configured)`},
		{guard.StateDone, "", "corrupt (it holds no identity"},
		{guard.StatePending, "id", `corrupt (state "pending", want done`},
		{"archived", "id", `corrupt (state "archived"`},
	} {
		err := storekit.CheckKeyIdentity("deduct_inventory", "id", tt.state, []byte(tt.recorded))
		switch {
		case tt.wantErr == "" && err != nil:
			t.Errorf("%s %q: %v", tt.state, tt.recorded, err)
		case tt.wantErr != "" && (!errors.Is(err, guard.ErrKeyIdentityChanged) || guard.Permanent(err) ||
			!strings.Contains(err.Error(), tt.wantErr) || !strings.Contains(err.Error(), "deduct_inventory")):
			t.Errorf("%s %q: %v, want a transient ErrKeyIdentityChanged saying %q", tt.state, tt.recorded, err, tt.wantErr)
		}
	}
}

package guardtest

import (
	"bufio"
	"errors"
	"io"
	"net"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// echoServer accepts connections on a loopback port and echoes lines back
// until the test ends.
func echoServer(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	var conns []net.Conn
	wg.Go(func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
			wg.Go(func() { io.Copy(c, c) })
		}
	})
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		for _, c := range conns {
			c.Close()
		}
		mu.Unlock()
		wg.Wait()
	})
	return ln.Addr().String()
}

func roundTrip(c net.Conn, line string) (string, error) {
	c.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := io.WriteString(c, line+"\n"); err != nil {
		return "", err
	}
	got, err := bufio.NewReader(c).ReadString('\n')
	return strings.TrimSuffix(got, "\n"), err
}

// wantClosed checks that the proxy closed c: a round trip fails, and not by
// running into its deadline — a connection left hanging fails that way too,
// so an error alone would not tell.
func wantClosed(t *testing.T, c net.Conn, what string) {
	t.Helper()
	var ne net.Error
	switch got, err := roundTrip(c, "x"); {
	case err == nil:
		t.Errorf("%s answers %q", what, got)
	case errors.As(err, &ne) && ne.Timeout():
		t.Errorf("%s was left open: %v", what, err)
	}
}

func TestProxy(t *testing.T) {
	before := runtime.NumGoroutine()
	t.Run("forward-then-cut", func(t *testing.T) {
		addr, cut := NewProxy(t, echoServer(t))
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		if got, err := roundTrip(c, "hello"); err != nil || got != "hello" {
			t.Fatalf("through the proxy: %q, %v", got, err)
		}
		idle, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer idle.Close()
		if got, err := roundTrip(idle, "idle"); err != nil || got != "idle" {
			t.Fatalf("second connection: %q, %v", got, err)
		}
		cut()
		cut() // idempotent
		for _, conn := range []net.Conn{c, idle} {
			wantClosed(t, conn, "a connection after the cut")
		}
		// New connections are accepted and closed at once: the server is gone.
		for range 3 {
			n, err := net.Dial("tcp", addr)
			if err != nil {
				continue
			}
			wantClosed(t, n, "a new connection after the cut")
			n.Close()
		}
	})
	t.Run("target-down", func(t *testing.T) {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		dead := ln.Addr().String()
		ln.Close()
		addr, _ := NewProxy(t, dead)
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		wantClosed(t, c, "a connection to a dead target")
	})
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		t.Errorf("%d goroutines before, %d after the proxies were cleaned up", before, n)
	}
}

package guardtest

import (
	"io"
	"net"
	"sync"
	"testing"
)

// NewProxy starts a TCP proxy on a loopback port that forwards every
// connection to target, and returns its address and a cut function. cut
// closes every forwarded connection and, from then on, closes each new
// connection as soon as it is accepted: to its clients the server is gone for
// good, mid-call or idle. cut may be called more than once. The proxy is shut
// down, and all its goroutines have ended, when the test's clean-up runs.
func NewProxy(t testing.TB, target string) (addr string, cut func()) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("guardtest: proxy listen: %v", err)
	}
	p := &proxy{target: target, ln: ln, conns: map[net.Conn]struct{}{}}
	p.wg.Add(1)
	go p.accept()
	t.Cleanup(p.close)
	return ln.Addr().String(), p.cut
}

type proxy struct {
	target string
	ln     net.Listener
	wg     sync.WaitGroup

	mu     sync.Mutex
	conns  map[net.Conn]struct{}
	cutOff bool
}

func (p *proxy) accept() {
	defer p.wg.Done()
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return // listener closed
		}
		if !p.track(c) {
			c.Close()
			continue
		}
		p.wg.Add(1)
		go p.forward(c)
	}
}

// track registers c, or reports false when the proxy is cut.
func (p *proxy) track(c net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.cutOff {
		return false
	}
	p.conns[c] = struct{}{}
	return true
}

func (p *proxy) untrack(c net.Conn) {
	p.mu.Lock()
	delete(p.conns, c)
	p.mu.Unlock()
	c.Close()
}

func (p *proxy) forward(client net.Conn) {
	defer p.wg.Done()
	defer p.untrack(client)
	server, err := net.Dial("tcp", p.target)
	if err != nil {
		return
	}
	if !p.track(server) {
		server.Close()
		return
	}
	defer p.untrack(server)
	done := make(chan struct{}, 2)
	pipe := func(dst, src net.Conn) {
		io.Copy(dst, src)
		// Closing both ends makes the other direction's copy return too.
		dst.Close()
		src.Close()
		done <- struct{}{}
	}
	go pipe(server, client)
	go pipe(client, server)
	<-done
	<-done
}

func (p *proxy) cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.cutOff = true
	for c := range p.conns {
		c.Close()
	}
}

func (p *proxy) close() {
	p.cut()
	p.ln.Close()
	p.wg.Wait()
}

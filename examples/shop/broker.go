package main

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// broker is the NATS JetStream of one run: an in-process nats-server with
// a temporary store, or the server of -nats.
type broker struct {
	desc    string
	nc      *nats.Conn
	js      jetstream.JetStream
	closers []func()
}

// openBroker starts the embedded server, or connects to url when it is set.
func openBroker(ctx context.Context, url string) (_ *broker, err error) {
	b := &broker{}
	defer func() {
		if err != nil {
			b.close()
		}
	}()
	flag := "-nats"
	if url == "" {
		flag = "embedded nats-server"
		dir, err := os.MkdirTemp("", "idem-shop-nats-")
		if err != nil {
			return nil, err
		}
		b.closers = append(b.closers, func() { os.RemoveAll(dir) })
		srv, err := server.NewServer(&server.Options{
			Host:      "127.0.0.1",
			Port:      server.RANDOM_PORT,
			JetStream: true,
			StoreDir:  dir,
			NoLog:     true,
			NoSigs:    true,
		})
		if err != nil {
			return nil, fmt.Errorf("%s: %w", flag, err)
		}
		srv.Start()
		b.closers = append(b.closers, func() {
			srv.Shutdown()
			srv.WaitForShutdown()
		})
		if !srv.ReadyForConnections(10 * time.Second) {
			return nil, fmt.Errorf("%s: not ready after 10s", flag)
		}
		url = srv.ClientURL()
		b.desc = "NATS JetStream " + url + " (embedded, store " + dir + ")"
	} else {
		b.desc = "NATS JetStream " + url
	}
	nc, err := nats.Connect(url, nats.Name("idem shop example"), nats.Timeout(reachTimeout))
	if err != nil {
		return nil, fmt.Errorf("%s: cannot reach %s: %w", flag, url, err)
	}
	b.closers = append(b.closers, nc.Close)
	if b.js, err = jetstream.New(nc); err != nil {
		return nil, fmt.Errorf("%s: %w", flag, err)
	}
	actx, cancel := context.WithTimeout(ctx, reachTimeout)
	defer cancel()
	if _, err := b.js.AccountInfo(actx); err != nil {
		return nil, fmt.Errorf("%s: %s has no JetStream: %w", flag, url, err)
	}
	b.nc = nc
	return b, nil
}

// createStream creates a stream that is deleted by close.
func (b *broker) createStream(ctx context.Context, name string, subjects ...string) error {
	if _, err := b.js.CreateStream(ctx, jetstream.StreamConfig{Name: name, Subjects: subjects}); err != nil {
		return fmt.Errorf("create stream %s: %w", name, err)
	}
	b.closers = append(b.closers, func() {
		ctx, cancel := context.WithTimeout(context.Background(), reachTimeout)
		defer cancel()
		b.js.DeleteStream(ctx, name)
	})
	return nil
}

// close releases everything, last opened first.
func (b *broker) close() {
	for i := len(b.closers) - 1; i >= 0; i-- {
		b.closers[i]()
	}
	b.closers = nil
}

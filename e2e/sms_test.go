package e2e_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/idemkit/idem/e2e/testdata/shop"
	"github.com/idemkit/idem/e2e/testdata/shoppgx"
	"github.com/idemkit/idem/guard"
	"github.com/idemkit/idem/guard/guardtest"
)

// smsProvider is an SMS provider that honours the Idempotency-Key header, as
// real ones do: a request repeating a key gets the first answer again and
// sends nothing.
type smsProvider struct {
	srv *httptest.Server

	mu       sync.Mutex
	requests int               // requests received
	sent     map[string]string // idempotency key → message id: the texts actually sent
	texts    []string          // "phone template" of each text sent
	failNext int               // status to answer the next request with, without sending
	received chan string       // each request's idempotency key, when not nil
}

func newSMSProvider(t testing.TB) *smsProvider {
	p := &smsProvider{sent: map[string]string{}}
	p.srv = httptest.NewServer(http.HandlerFunc(p.serve))
	t.Cleanup(p.srv.Close)
	return p
}

func (p *smsProvider) serve(w http.ResponseWriter, r *http.Request) {
	var msg struct{ To, Template string }
	if err := json.NewDecoder(r.Body).Decode(&msg); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	key := r.Header.Get("Idempotency-Key")
	p.mu.Lock()
	p.requests++
	received := p.received
	status := p.failNext
	p.failNext = 0
	var id string
	switch {
	case key == "":
		status = http.StatusBadRequest
	case status != 0:
	case p.sent[key] != "":
		id = p.sent[key]
		w.Header().Set("Idempotent-Replayed", "true")
	default:
		id = fmt.Sprintf("sms-%d", len(p.sent)+1)
		p.sent[key] = id
		p.texts = append(p.texts, msg.To+" "+msg.Template)
	}
	p.mu.Unlock()
	if received != nil {
		received <- key
	}
	if status != 0 {
		http.Error(w, http.StatusText(status), status)
		return
	}
	json.NewEncoder(w).Encode(map[string]string{"id": id})
}

// counts returns the requests received and the texts sent.
func (p *smsProvider) counts() (requests, sent int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.requests, len(p.texts)
}

func (p *smsProvider) expect(t testing.TB, requests, sent int) {
	t.Helper()
	r, s := p.counts()
	if r != requests || s != sent {
		t.Errorf("provider got %d requests and sent %d texts, want %d and %d", r, s, requests, sent)
	}
}

// failOnce makes the next request fail with status, sending nothing.
func (p *smsProvider) failOnce(status int) {
	p.mu.Lock()
	p.failNext = status
	p.mu.Unlock()
}

// send posts one text with the lease's key as the idempotency key and stores
// the provider's message id as the lease's result.
func (p *smsProvider) send(ctx context.Context, lease *guard.Lease, phone, template string) error {
	body, _ := json.Marshal(map[string]string{"to": phone, "template": template})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, p.srv.URL+"/messages", bytes.NewReader(body))
	if err != nil {
		return guard.NotPerformed(err)
	}
	req.Header.Set("Idempotency-Key", lease.Key())
	resp, err := p.srv.Client().Do(req)
	if err != nil {
		return err // the request may have reached the provider
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	switch {
	case resp.StatusCode == http.StatusServiceUnavailable:
		// The provider refused before acting: certainly not sent.
		return guard.NotPerformed(fmt.Errorf("provider: %s", resp.Status))
	case resp.StatusCode >= 500:
		return fmt.Errorf("provider: %s", resp.Status)
	case resp.StatusCode != http.StatusOK:
		return guard.Reject(fmt.Errorf("provider: %s: %s", resp.Status, bytes.TrimSpace(data)))
	}
	var answer struct{ ID string }
	if err := json.Unmarshal(data, &answer); err != nil {
		return err
	}
	lease.SetResult([]byte(answer.ID))
	return nil
}

// smsApply is the apply function of every send_sms consumer, whatever its
// message type: the phone and template of the message.
type smsApply func(ctx context.Context, lease *guard.Lease, phone, template string) error

// smsWiring builds a send_sms handler over apply with extra options; each
// store and client generation has its own.
type smsWiring func(apply smsApply, opts ...guard.Option) handler

func sqlSMS(w *world) smsWiring {
	return func(apply smsApply, opts ...guard.Option) handler {
		return shop.NewSendSmsHandler(w.sqlStore, func(ctx context.Context, lease *guard.Lease, m *shop.SendSms) error {
			return apply(ctx, lease, m.Phone, m.Template)
		}, append([]guard.Option{w.tableOpt()}, opts...)...)
	}
}

func pgxSMS(w *world) smsWiring {
	return func(apply smsApply, opts ...guard.Option) handler {
		return shoppgx.NewSendSmsHandler(w.pgxStore, func(ctx context.Context, lease *guard.Lease, m *shoppgx.SendSms) error {
			return apply(ctx, lease, m.Phone, m.Template)
		}, append([]guard.Option{w.tableOpt()}, opts...)...)
	}
}

func redisSMS(r *redisWorld) smsWiring {
	return func(apply smsApply, opts ...guard.Option) handler {
		return shop.NewSendSmsRedisHandler(r.store, func(ctx context.Context, lease *guard.Lease, m *shop.SendSmsRedis) error {
			return apply(ctx, lease, m.Phone, m.Template)
		}, append([]guard.Option{r.prefixOpt()}, opts...)...)
	}
}

// smsBackend is a store's send_sms consumer: its wiring, and what reaches
// its records (under consumer) behind the store.
type smsBackend struct {
	wire     smsWiring
	consumer string
	tamper   guardtest.Tamper
}

// TestSendSMS runs the external consumer send_sms (at-least-once, release
// on error) with its claims on every store: SQLite, PostgreSQL (database/sql
// and pgx), MySQL/MariaDB, Redis and Redis Cluster.
func TestSendSMS(t *testing.T) {
	t.Parallel()
	type backend struct {
		name string
		open func(t testing.TB) smsBackend
	}
	var backends []backend
	for _, b := range sqlWorlds {
		backends = append(backends, backend{b.name, func(t testing.TB) smsBackend {
			w := b.open(t)
			return smsBackend{sqlSMS(w), shop.SendSmsConsumer, w.tamper()}
		}})
	}
	backends = append(backends, backend{"pgx", func(t testing.TB) smsBackend {
		w := pgxWorld(t)
		return smsBackend{pgxSMS(w), shoppgx.SendSmsConsumer, w.tamper()}
	}})
	for name, env := range map[string]string{"redis": envRedis, "redis-cluster": envRedisCluster} {
		backends = append(backends, backend{name, func(t testing.TB) smsBackend {
			r := openRedisWorld(t, env)
			return smsBackend{redisSMS(r), shop.SendSmsRedisConsumer, r.tamper()}
		}})
	}
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			t.Parallel()
			testSendSMS(t, b.open(t))
		})
	}
}

func testSendSMS(t *testing.T, b smsBackend) {
	p := newSMSProvider(t)
	h := b.wire(p.send)

	// Three deliveries, one text, one request: the provider never sees the
	// duplicates.
	deliverThrice(t, h, `{"order_id":"o1","phone":"+15550001","template":"shipped"}`)
	p.expect(t, 1, 1)

	// Racing deliveries: one sends; the others see a duplicate, or the
	// claim in progress (nak and retry later).
	expectOneApplied(t, deliverConcurrently(t, h, `{"order_id":"o2","phone":"+15550001","template":"shipped"}`, 3), true)
	p.expect(t, 2, 2)

	// The same key with another phone (the fingerprint) is a conflict.
	expectErr(t, h, `{"order_id":"o1","phone":"+15550002","template":"shipped"}`, guard.ErrKeyConflict)

	// A provider error releases the key: the redelivery sends.
	p.failOnce(http.StatusInternalServerError)
	out, err := h.Handle(testContext(t), []byte(`{"order_id":"o3","phone":"+15550001","template":"shipped"}`))
	if err == nil || guard.Permanent(err) {
		t.Fatalf("delivery with a failing provider = (%v, %v), want a transient error", out, err)
	}
	deliverThrice(t, h, `{"order_id":"o3","phone":"+15550001","template":"shipped"}`)
	p.expect(t, 4, 3)

	// A rejection by the provider keeps the key failed.
	p.failOnce(http.StatusUnprocessableEntity)
	expectErr(t, h, `{"order_id":"o4","phone":"+15550001","template":"shipped"}`, guard.ErrFailed)
	expectErr(t, h, `{"order_id":"o4","phone":"+15550001","template":"shipped"}`, guard.ErrFailed)
	p.expect(t, 5, 3)

	expectInvalid(t, h,
		`{"order_id":"o5","phone":"+15550001"}`,
		`{"order_id":"o5","phone":"+15550001","template":""}`,
		`{"order_id":"o5","phone":"+15550001","template":null}`,
		`"o5"`,
	)
	p.expect(t, 5, 3)

	t.Run("takeover", func(t *testing.T) { testSMSTakeover(t, b, p) })
}

// testSMSTakeover: a worker sends, then stalls past its lease; the
// redelivery takes the key over and calls the provider again with the same
// idempotency key, so the provider sends nothing twice; the stalled worker
// then learns it lost its lease. The lease runs out by the store's clock
// (the test moves its end into the past), not by waiting for it.
func testSMSTakeover(t *testing.T, b smsBackend, p *smsProvider) {
	body := `{"order_id":"o9","phone":"+15550009","template":"shipped"}`
	var k guard.KeyBuilder
	k.String("o9")
	k.String("shipped")
	stalled := make(chan struct{})
	resume := make(chan struct{})
	var firstKey string
	slow := b.wire(func(ctx context.Context, l *guard.Lease, phone, template string) error {
		firstKey = l.Key()
		err := p.send(ctx, l, phone, template)
		close(stalled)
		<-resume
		return err
	})
	var takenOver bool
	var secondKey string
	fast := b.wire(func(ctx context.Context, l *guard.Lease, phone, template string) error {
		takenOver, secondKey = l.TakenOver(), l.Key()
		return p.send(ctx, l, phone, template)
	})

	requests, sent := p.counts()
	first := make(chan result, 1)
	go func() {
		out, err := slow.Handle(testContext(t), []byte(body))
		first <- result{out, err}
	}()
	<-stalled
	// While the lease is live, a redelivery finds the key in progress.
	out, err := fast.Handle(testContext(t), []byte(body))
	var inProgress *guard.InProgressError
	if !errors.As(err, &inProgress) || inProgress.RetryAfter <= 0 || inProgress.RetryAfter > guard.DefaultLease {
		t.Fatalf("redelivery during the lease = (%v, %v), want an *InProgressError with 0 < RetryAfter <= %v", out, err, guard.DefaultLease)
	}
	if err := b.tamper.ExpireLease(testContext(t), b.consumer, k.Key()); err != nil {
		t.Fatal(err)
	}
	out, err = fast.Handle(testContext(t), []byte(body))
	if err != nil || out != guard.Applied {
		t.Fatalf("redelivery after the lease = (%v, %v), want (applied, nil)", out, err)
	}
	if !takenOver || secondKey != firstKey || secondKey != guard.ProviderKey(b.consumer, k.Key()) {
		t.Errorf("takeover: TakenOver = %v, provider key %q after %q; want true and the key's provider key", takenOver, secondKey, firstKey)
	}
	close(resume)
	if r := <-first; !errors.Is(r.err, guard.ErrLeaseLost) {
		t.Errorf("stalled worker = (%v, %v), want ErrLeaseLost", r.out, r.err)
	}
	expectDuplicate(t, fast, body)
	// Two requests, one text: the provider dropped the repeat.
	p.expect(t, requests+2, sent+1)
}

// TestSendSMSAtMostOnce runs send_sms_at_most_once: an error that may have
// reached the provider makes the key uncertain, never sent twice; an error
// proving the call did not happen (guard.NotPerformed) releases it.
func TestSendSMSAtMostOnce(t *testing.T) {
	t.Parallel()
	for _, b := range sqlWorlds {
		t.Run(b.name, func(t *testing.T) {
			t.Parallel()
			w := b.open(t)
			p := newSMSProvider(t)
			h := shop.NewSendSmsAtMostOnceHandler(w.sqlStore, func(ctx context.Context, lease *guard.Lease, m *shop.SendSmsAtMostOnce) error {
				return p.send(ctx, lease, m.Phone, m.Template)
			}, w.tableOpt())

			deliverThrice(t, h, `{"order_id":"o1","phone":"+15550001","template":"shipped"}`)
			p.expect(t, 1, 1)

			// 500: the provider may have acted. Uncertain, for good.
			p.failOnce(http.StatusInternalServerError)
			expectErr(t, h, `{"order_id":"o2","phone":"+15550001","template":"shipped"}`, guard.ErrUncertain)
			expectErr(t, h, `{"order_id":"o2","phone":"+15550001","template":"shipped"}`, guard.ErrUncertain)
			p.expect(t, 2, 1)

			// 503: refused before acting (NotPerformed). Released; the
			// redelivery sends.
			p.failOnce(http.StatusServiceUnavailable)
			out, err := h.Handle(testContext(t), []byte(`{"order_id":"o3","phone":"+15550001","template":"shipped"}`))
			if err == nil || guard.Permanent(err) || !guard.IsNotPerformed(err) {
				t.Fatalf("delivery refused by the provider = (%v, %v), want a transient NotPerformed error", out, err)
			}
			deliverThrice(t, h, `{"order_id":"o3","phone":"+15550001","template":"shipped"}`)
			p.expect(t, 4, 2)
		})
	}
}

package main_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestClientDependency: an effect inside a dependency module that is a
// client (it imports net/http) counts where the program calls it, in the
// whole-program mode; the dependency's own code is not reported, and a
// client only non-handlers call is not read from source.
func TestClientDependency(t *testing.T) {
	bin := idemlint(t)
	dir := writeModule(t, map[string]string{
		"svc/svc.go": `package svc

import (
	"context"

	"example.com/mailapi"
	"example.com/smsapi"
)

// Notify is no handler: the SMS client it calls stays export data.
func Notify(ctx context.Context, c *smsapi.Client, to string) error {
	return c.Send(ctx, to)
}

//idem:handler
func OnSignup(ctx context.Context, c *mailapi.Client, to string) error {
	return c.SendWelcome(ctx, to)
}

//idem:handler
func OnLookup(ctx context.Context, c *mailapi.Client, to string) error {
	_, err := c.Status(ctx, to)
	return err
}
`,
		"mailapi/go.mod": "module example.com/mailapi\n\ngo 1.26\n",
		"smsapi/go.mod":  "module example.com/smsapi\n\ngo 1.26\n",
		"smsapi/sms.go":  vendorClient("smsapi", "Send", "MethodPost"),
		"mailapi/mail.go": `// Package mailapi is a vendor's mail API client.
package mailapi

import (
	"context"
	"net/http"
	"strings"
)

type Client struct{ hc *http.Client }

func (c *Client) SendWelcome(ctx context.Context, to string) error {
	return c.call(ctx, http.MethodPost, "/send?to="+to)
}

func (c *Client) Status(ctx context.Context, to string) (string, error) {
	return "", c.call(ctx, http.MethodGet, "/status?to="+to)
}

func (c *Client) call(ctx context.Context, method, path string) error {
	req, err := http.NewRequestWithContext(ctx, method, "https://mail.example"+path, strings.NewReader(""))
	if err != nil {
		return err
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return err
	}
	return resp.Body.Close()
}
`,
	})
	gomod := "module example.com/m\n\ngo 1.26\n\nrequire (\n\texample.com/mailapi v0.0.0\n\texample.com/smsapi v0.0.0\n)\n\nreplace example.com/mailapi => ./mailapi\n\nreplace example.com/smsapi => ./smsapi\n"
	must(t, os.WriteFile(filepath.Join(dir, "go.mod"), []byte(gomod), 0o644))
	r := run(t, dir, t.TempDir(), []string{"IDEMLINT_TRACE=1"}, bin, "./...")
	if r.code != 3 {
		t.Fatalf("exit %d, want 3 (findings)\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	out := r.stdout + r.stderr
	if !strings.Contains(out, "svc/svc.go:17:22: effect mailapi.Client.SendWelcome") || !strings.Contains(out, "in handler OnSignup") {
		t.Errorf("the dependency's POST is not found at the program's call:\n%s", out)
	}
	if !strings.Contains(r.stderr, "client dependencies: 2 candidates, 1 reached by handlers") || !strings.Contains(r.stderr, "from source: example.com/mailapi\n") || strings.Contains(r.stderr, "from source: example.com/smsapi") {
		t.Errorf("want the mail client, and not the SMS client, read from source:\n%s", r.stderr)
	}
	if !strings.Contains(r.stderr, "idemlint: handler example.com/m/svc.OnSignup (") {
		t.Errorf("the trace does not name the handler OnSignup:\n%s", r.stderr)
	}
	if strings.Contains(out, "in handler OnLookup") {
		t.Errorf("a GET through the dependency is reported:\n%s", out)
	}
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(line, "mailapi/") && strings.Contains(line, "(IDEM") {
			t.Errorf("the dependency's own code is reported: %s", line)
		}
	}
}

// TestClientDependencyRuled: a client dependency the rules file names is
// described by the rules, not read from source (where it would be
// analysed as the program's own code, and its rules lost).
func TestClientDependencyRuled(t *testing.T) {
	bin := idemlint(t)
	dir := writeModule(t, map[string]string{
		"idemlint.yaml": "version: 1\neffects:\n  - name: (*example.com/mailapi.Client).SendWelcome\n    kind: http\n",
		"svc/svc.go": `package svc

import (
	"context"

	"example.com/mailapi"
)

//idem:handler
func OnSignup(ctx context.Context, c *mailapi.Client, to string) error {
	return c.SendWelcome(ctx, to)
}
`,
		"mailapi/go.mod":  "module example.com/mailapi\n\ngo 1.26\n",
		"mailapi/mail.go": vendorClient("mailapi", "SendWelcome", "MethodGet"),
	})
	gomod := "module example.com/m\n\ngo 1.26\n\nrequire example.com/mailapi v0.0.0\n\nreplace example.com/mailapi => ./mailapi\n"
	must(t, os.WriteFile(filepath.Join(dir, "go.mod"), []byte(gomod), 0o644))
	r := run(t, dir, t.TempDir(), []string{"IDEMLINT_TRACE=1"}, bin, "./...")
	if r.code != 3 {
		t.Fatalf("exit %d, want 3 (findings)\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	if !strings.Contains(r.stderr, "client dependencies: 1 candidates, 0 reached by handlers") {
		t.Errorf("the ruled client is read from source:\n%s", r.stderr)
	}
	if out := r.stdout + r.stderr; !strings.Contains(out, "effect mailapi.Client.SendWelcome in handler OnSignup") {
		t.Errorf("the rules file's effect is not found:\n%s", out)
	}
}

// vendorClient returns the source of package pkg, a vendor's API client
// whose one method, name, makes an HTTP request with the net/http method
// constant verb (MethodPost, MethodGet).
func vendorClient(pkg, name, verb string) string {
	return "// Package " + pkg + " is a vendor's API client.\npackage " + pkg + `

import (
	"context"
	"net/http"
)

type Client struct{ hc *http.Client }

func (c *Client) ` + name + `(ctx context.Context, to string) error {
	req, err := http.NewRequestWithContext(ctx, http.` + verb + `, "https://` + pkg + `.example/send?to="+to, nil)
	if err != nil {
		return err
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return err
	}
	return resp.Body.Close()
}
`
}

// TestBrokerWrapper: a service consumes through a company's broker API in
// another module (an interface package and its kafka-go implementation,
// the analyzer's mqwrap testdata) and never sees kafka-go. The
// implementation is read from source from the first check on, its
// Consume is learnt as a read that commits by itself, and the service's
// handler is found: an unguarded UPDATE (IDEM001) and a message committed
// before it runs (IDEM007).
func TestBrokerWrapper(t *testing.T) {
	bin := idemlint(t)
	wrapper := func(name string) string {
		b, err := os.ReadFile(filepath.Join("..", "..", "analyzer", "testdata", "src", "mqwrap", "mq", name))
		must(t, err)
		return strings.ReplaceAll(string(b), `"mqwrap/mq"`, `"example.com/mq"`)
	}
	dir := writeModule(t, map[string]string{
		"mq/go.mod":         "module example.com/mq\n\ngo 1.26\n\nrequire github.com/segmentio/kafka-go v0.4.51\n",
		"mq/mq.go":          wrapper("mq.go"),
		"mq/kafka/kafka.go": wrapper(filepath.Join("kafka", "kafka.go")),
		"svc/svc.go": `package svc

import (
	"context"
	"database/sql"

	"example.com/mq"
	"example.com/mq/kafka"
)

type Credits struct {
	consumer mq.Consumer
	db       *sql.DB
}

func (c *Credits) Consume(ctx context.Context) error {
	msg, err := c.consumer.Consume(ctx)
	if err != nil {
		return err
	}
	_, err = c.db.ExecContext(ctx, "UPDATE users SET points = points + 1 WHERE id = $1", string(msg.Key))
	return err
}

func Run(ctx context.Context, db *sql.DB) error {
	cs, err := kafka.NewMQ([]string{"localhost:9092"}).Consumer("credits", "credit_group")
	if err != nil {
		return err
	}
	c := &Credits{consumer: cs, db: db}
	for ctx.Err() == nil {
		if err := c.Consume(ctx); err != nil {
			return err
		}
	}
	return nil
}
`,
	})
	gomod := "module example.com/m\n\ngo 1.26\n\nrequire example.com/mq v0.0.0\n\nreplace example.com/mq => ./mq\n"
	must(t, os.WriteFile(filepath.Join(dir, "go.mod"), []byte(gomod), 0o644))
	// The project's own go.sum holds kafka-go's and its dependencies'.
	projectSum(t, dir, filepath.Join(dir, "mq"))
	r := run(t, dir, t.TempDir(), []string{"IDEMLINT_TRACE=1"}, bin, "./...")
	if r.code != 3 {
		t.Fatalf("exit %d, want 3 (findings)\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	if !strings.Contains(r.stderr, "broker wrapper from source: example.com/mq/kafka\n") {
		t.Errorf("the kafka implementation is not read from source:\n%s", r.stderr)
	}
	got := strings.Join(findings(dir, r.stdout+r.stderr), "\n")
	for _, want := range []string{
		"svc/svc.go:21:27: effect sql.DB.ExecContext",
		"svc/svc.go:17:32: auto-ack consumer mq.Consumer.Consume (commits by itself) acks each message before handler Credits.Consume",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("no finding %q in:\n%s", want, got)
		}
	}
	for _, line := range strings.Split(got, "\n") {
		if strings.HasPrefix(line, "mq/") {
			t.Errorf("the wrapper's own code is reported: %s", line)
		}
	}
}

// TestDependencyParse: a dependency's function that takes no context
// parses or validates, so an ack after it fails acks a poison message, in
// both modes; a function of another package of the module is a step whose
// failure an ack loses. In vet mode the module's path tells one from the
// other.
func TestDependencyParse(t *testing.T) {
	bin := idemlint(t)
	dir := writeModule(t, map[string]string{
		"ids/go.mod": "module example.com/ids\n\ngo 1.26\n",
		"ids/ids.go": `package ids

import (
	"errors"
	"strings"
)

// Split returns the local part of an id.
func Split(id string) (string, error) {
	local, _, ok := strings.Cut(id, ":")
	if !ok {
		return "", errors.New("no domain")
	}
	return local, nil
}
`,
		"store/store.go": `package store

import "database/sql"

// Mark records the account as seen.
func Mark(db *sql.DB, id string) error {
	_, err := db.Exec("UPDATE accounts SET seen = true WHERE id = $1", id)
	return err
}
`,
		"svc/svc.go": `package svc

import (
	"database/sql"

	amqp "github.com/rabbitmq/amqp091-go"

	"example.com/ids"
	"example.com/m/store"
)

var db *sql.DB

func Handle(d amqp.Delivery) {
	id, err := ids.Split(string(d.Body))
	if err != nil {
		d.Ack(false)
		return
	}
	if err := store.Mark(db, id); err != nil {
		d.Ack(false)
		return
	}
	d.Ack(false)
}
`,
	})
	gomod := "module example.com/m\n\ngo 1.26\n\nrequire (\n\texample.com/ids v0.0.0\n\tgithub.com/rabbitmq/amqp091-go v1.16.0\n)\n\nreplace example.com/ids => ./ids\n"
	must(t, os.WriteFile(filepath.Join(dir, "go.mod"), []byte(gomod), 0o644))
	projectSum(t, dir)
	for _, mode := range []struct {
		name string
		args []string
	}{
		{"standalone", []string{bin, "./..."}},
		{"vet", []string{"go", "vet", "-vettool=" + bin, "./..."}},
	} {
		r := run(t, dir, t.TempDir(), nil, mode.args[0], mode.args[1:]...)
		got := strings.Join(findings(dir, r.stdout+r.stderr), "\n")
		if !strings.Contains(got, "svc/svc.go:21:8: ack amqp091.Delivery.Ack in handler Handle also runs when store.Mark fails") {
			t.Errorf("%s: the ack after a failed step of the module is not reported (exit %d):\n%s\n%s", mode.name, r.code, got, r.stderr)
		}
		if strings.Contains(got, "svc/svc.go:17:") {
			t.Errorf("%s: the ack of a message a dependency cannot parse is reported:\n%s", mode.name, got)
		}
	}
}

// projectSum writes this project's go.sum into each module directory: it
// holds the sums of the real client libraries (kafka-go, amqp091-go) a
// test module requires, so the go command needs no network to verify them.
func projectSum(t *testing.T, dirs ...string) {
	t.Helper()
	sum, err := os.ReadFile(filepath.Join("..", "..", "go.sum"))
	must(t, err)
	for _, d := range dirs {
		must(t, os.WriteFile(filepath.Join(d, "go.sum"), sum, 0o644))
	}
}

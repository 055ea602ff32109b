package genericx

import (
	"context"
	"encoding/json"
	"errors"
	"net/smtp"

	"github.com/hibiken/asynq"
)

// Notifier sends notifications of type T.
type Notifier[T any] interface {
	Send(req T) error
}

// Mail is a mail to send.
type Mail struct{ To, Body string }

// mailer sends mails over SMTP.
type mailer struct{ addr string }

// Send mails req.
func (m *mailer) Send(req Mail) error {
	return smtp.SendMail(m.addr, nil, "noreply@example.com", []string{req.To}, []byte(req.Body))
}

// notifierAdapter erases a notifier's request type, so that notifiers of
// every type sit in one registry.
type notifierAdapter[T any] struct{ n Notifier[T] }

// Send sends v, which must be a T.
func (a notifierAdapter[T]) Send(v any) error {
	req, ok := v.(T)
	if !ok {
		return errors.New("wrong request type")
	}
	return a.n.Send(req)
}

// NotifyHandler is a generic task handler: it decodes a T and sends it
// through a notifier of its type parameter S.
type NotifyHandler[T any, S Notifier[T]] struct {
	Service S
	Decode  func([]byte) (T, error)
}

// ProcessTask sends the task's notification. The mail goes out through
// the type parameter's Send, which only the program's generic adapter and
// its mailer implement: an effect with no dedup check in front.
func (h NotifyHandler[T, S]) ProcessTask(ctx context.Context, t *asynq.Task) error {
	req, err := h.Decode(t.Payload())
	if err != nil {
		return err
	}
	return h.Service.Send(req) // want `effect genericx.Notifier.Send \(implemented by genericx.mailer.Send\) → smtp.SendMail in handler NotifyHandler.ProcessTask is not guarded by a dedup check \(IDEM001\)`
}

// RegisterNotifiers registers the mail notifier behind the erased
// interface.
func RegisterNotifiers(mux *asynq.ServeMux) {
	var n Notifier[any] = notifierAdapter[Mail]{&mailer{addr: "smtp.example.com:25"}}
	mux.Handle("mail", NotifyHandler[any, Notifier[any]]{Service: n, Decode: decodeAny})
}

// decodeAny decodes a mail as an erased request.
func decodeAny(b []byte) (any, error) {
	var m Mail
	err := json.Unmarshal(b, &m)
	return m, err
}

// Package mail is a stub of github.com/sendgrid/sendgrid-go@v3.16.1+incompatible for analyzer tests: signatures mirror the real API.
//
// Checked against the real package's type information; bodies return zero values.
package mail

type SGMailV3 struct {
	From       *Email            `json:"from,omitempty"`
	Subject    string            `json:"subject,omitempty"`
	TemplateID string            `json:"template_id,omitempty"`
	Headers    map[string]string `json:"headers,omitempty"`
	CustomArgs map[string]string `json:"custom_args,omitempty"`
}

type Email struct {
	Name    string `json:"name,omitempty"`
	Address string `json:"email,omitempty"`
}

func NewEmail(name string, address string) *Email { return nil }

func NewSingleEmail(from *Email, subject string, to *Email, plainTextContent string, htmlContent string) *SGMailV3 {
	return nil
}

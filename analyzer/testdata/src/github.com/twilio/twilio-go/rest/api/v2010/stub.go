// Package openapi is a stub of github.com/twilio/twilio-go@v1.31.0 for analyzer tests: signatures mirror the real API.
//
// Checked against the real package's type information; bodies return zero values.
package openapi

type ApiService struct {
}

type CreateMessageParams struct {
	PathAccountSid      *string `json:"PathAccountSid,omitempty"`
	To                  *string `json:"To,omitempty"`
	From                *string `json:"From,omitempty"`
	MessagingServiceSid *string `json:"MessagingServiceSid,omitempty"`
	Body                *string `json:"Body,omitempty"`
}

func (params *CreateMessageParams) SetTo(To string) *CreateMessageParams { return nil }

func (params *CreateMessageParams) SetFrom(From string) *CreateMessageParams { return nil }

func (params *CreateMessageParams) SetBody(Body string) *CreateMessageParams { return nil }

type ApiV2010Message struct {
	Body   *string `json:"body,omitempty"`
	Status *string `json:"status,omitempty"`
	Sid    *string `json:"sid,omitempty"`
}

func (c *ApiService) CreateMessage(params *CreateMessageParams) (*ApiV2010Message, error) {
	return nil, nil
}

// Package twilio is a stub of github.com/twilio/twilio-go@v1.31.0 for analyzer tests: signatures mirror the real API.
//
// Checked against the real package's type information; bodies return zero values.
package twilio

import Api "github.com/twilio/twilio-go/rest/api/v2010"

type RestClient struct {
	Api *Api.ApiService
}

func NewRestClient() *RestClient { return nil }

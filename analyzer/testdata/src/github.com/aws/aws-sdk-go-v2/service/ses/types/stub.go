// Package types is a stub of github.com/aws/aws-sdk-go-v2/service/ses@v1.43.0 for analyzer tests: signatures mirror the real API.
//
// Checked against the real package's type information; bodies return zero values.
package types

type Body struct {
	Html *Content
	Text *Content
}

type Content struct {
	Data    *string
	Charset *string
}

type Destination struct {
	BccAddresses []string
	CcAddresses  []string
	ToAddresses  []string
}

type Message struct {
	Body    *Body
	Subject *Content
}

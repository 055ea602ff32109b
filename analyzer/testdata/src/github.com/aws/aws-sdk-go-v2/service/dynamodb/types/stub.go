// Package types is a stub of github.com/aws/aws-sdk-go-v2/service/dynamodb@v1.74.1 for analyzer tests: signatures mirror the real API.
package types

type AttributeValue interface {
	isAttributeValue()
}

type AttributeValueMemberS struct {
	Value string
}

func (*AttributeValueMemberS) isAttributeValue() {}

type AttributeValueMemberN struct {
	Value string
}

func (*AttributeValueMemberN) isAttributeValue() {}

type ConditionalCheckFailedException struct {
	Message *string
	Item    map[string]AttributeValue
}

func (e *ConditionalCheckFailedException) Error() string { return "" }

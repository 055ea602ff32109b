// Package dynamodb is a stub of github.com/aws/aws-sdk-go@v1.55.8 for analyzer tests: signatures mirror the real API.
package dynamodb

import (
	"github.com/aws/aws-sdk-go/aws"
	"github.com/aws/aws-sdk-go/aws/request"
)

type DynamoDB struct{}

type AttributeValue struct {
	N *string
	S *string
}

type UpdateItemInput struct {
	Key              map[string]*AttributeValue
	TableName        *string
	UpdateExpression *string
}

type UpdateItemOutput struct{}

func (c *DynamoDB) UpdateItem(input *UpdateItemInput) (*UpdateItemOutput, error) { return nil, nil }

func (c *DynamoDB) UpdateItemWithContext(ctx aws.Context, input *UpdateItemInput, opts ...request.Option) (*UpdateItemOutput, error) {
	return nil, nil
}

type GetItemInput struct {
	Key       map[string]*AttributeValue
	TableName *string
}

type GetItemOutput struct {
	Item map[string]*AttributeValue
}

func (c *DynamoDB) GetItemWithContext(ctx aws.Context, input *GetItemInput, opts ...request.Option) (*GetItemOutput, error) {
	return nil, nil
}

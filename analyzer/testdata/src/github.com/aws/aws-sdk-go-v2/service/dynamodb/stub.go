// Package dynamodb is a stub of github.com/aws/aws-sdk-go-v2/service/dynamodb@v1.74.1 for analyzer tests: signatures mirror the real API.
package dynamodb

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

type Client struct{}

type Options struct {
	Region string
}

func NewFromConfig(cfg aws.Config, optFns ...func(*Options)) *Client { return nil }

type GetItemInput struct {
	Key       map[string]types.AttributeValue
	TableName *string
}

type GetItemOutput struct {
	Item map[string]types.AttributeValue
}

func (c *Client) GetItem(ctx context.Context, params *GetItemInput, optFns ...func(*Options)) (*GetItemOutput, error) {
	return nil, nil
}

type PutItemInput struct {
	Item                map[string]types.AttributeValue
	TableName           *string
	ConditionExpression *string
}

type PutItemOutput struct{}

func (c *Client) PutItem(ctx context.Context, params *PutItemInput, optFns ...func(*Options)) (*PutItemOutput, error) {
	return nil, nil
}

type UpdateItemInput struct {
	Key                       map[string]types.AttributeValue
	TableName                 *string
	UpdateExpression          *string
	ConditionExpression       *string
	ExpressionAttributeValues map[string]types.AttributeValue
}

type UpdateItemOutput struct{}

func (c *Client) UpdateItem(ctx context.Context, params *UpdateItemInput, optFns ...func(*Options)) (*UpdateItemOutput, error) {
	return nil, nil
}

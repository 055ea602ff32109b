// Package lambdax: AWS Lambda functions fed by SQS, SNS and Kinesis
// (aws-lambda-go). A handler's error makes the batch come again, nil deletes
// it; calls of AWS service clients (aws-sdk-go-v2's ...func(*Options), v1's
// ...request.Option) are remote calls, read by their verb.
package lambdax

import (
	"context"
	"database/sql"
	"log"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-lambda-go/lambda"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	dynamodbv1 "github.com/aws/aws-sdk-go/service/dynamodb"

	"shop"
)

// Points adds an order's points to the user's balance: ADD is not
// idempotent, and nothing checks the message before it.
type Points struct{ DB *dynamodb.Client }

func (p *Points) Handle(ctx context.Context, ev events.SQSEvent) error {
	for _, r := range ev.Records {
		o, err := shop.Decode([]byte(r.Body))
		if err != nil {
			return err
		}
		if _, err := p.DB.UpdateItem(ctx, &dynamodb.UpdateItemInput{ // want `effect dynamodb.Client.UpdateItem \(remote call\) in handler Points.Handle is not guarded by a dedup check`
			TableName:        aws.String("balances"),
			Key:              map[string]types.AttributeValue{"user": &types.AttributeValueMemberS{Value: o.User}},
			UpdateExpression: aws.String("ADD points :n"),
		}); err != nil {
			return err
		}
	}
	return nil
}

// Orders stores each order under its own id: a redelivery writes the same
// item again (an overwrite), and reads are no effects.
type Orders struct{ Cfg aws.Config }

func (o *Orders) Handle(ctx context.Context, ev events.SQSEvent) error {
	db := dynamodb.NewFromConfig(o.Cfg) // a constructor: no remote call
	for _, r := range ev.Records {
		if _, err := db.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("orders")}); err != nil {
			return err
		}
		if _, err := db.PutItem(ctx, &dynamodb.PutItemInput{
			TableName: aws.String("orders"),
			Item:      map[string]types.AttributeValue{"id": &types.AttributeValueMemberS{Value: r.MessageId}},
		}); err != nil {
			return err
		}
	}
	return nil
}

// guarded claims each record's message id in the transaction of its effect.
func guarded(db *sql.DB) func(context.Context, events.SQSEvent) error {
	return func(ctx context.Context, ev events.SQSEvent) error {
		for _, r := range ev.Records {
			if err := claimed(ctx, db, r); err != nil {
				return err
			}
		}
		return nil
	}
}

func claimed(ctx context.Context, db *sql.DB, r events.SQSMessage) error {
	o, err := shop.Decode([]byte(r.Body))
	if err != nil {
		return err
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	fresh, err := shop.Claim(ctx, tx, "points", r.MessageId)
	if err != nil || !fresh {
		return err
	}
	if err := shop.AddPoints(ctx, tx, o.User, o.Qty); err != nil {
		return err
	}
	return tx.Commit()
}

// notify sends an SMS per SNS notification; a failure is logged and the
// notification dropped.
func notify(ctx context.Context, ev events.SNSEvent) error {
	for _, r := range ev.Records {
		o, _ := shop.Decode([]byte(r.SNS.Message))
		if err := shop.SendSMS(ctx, o.Phone, "shipped"); err != nil { // want `IDEM001`
			log.Print(err)
			return nil // want `handler notify returns success when shop.SendSMS fails`
		}
	}
	return nil
}

// Stats counts Kinesis records with aws-sdk-go v1; the read before it
// decides nothing.
type Stats struct{ DB *dynamodbv1.DynamoDB }

func (s *Stats) Handle(ctx context.Context, ev events.KinesisEvent) error {
	for _, r := range ev.Records {
		if _, err := s.DB.GetItemWithContext(ctx, &dynamodbv1.GetItemInput{}); err != nil {
			return err
		}
		day := r.Kinesis.PartitionKey
		if _, err := s.DB.UpdateItemWithContext(ctx, &dynamodbv1.UpdateItemInput{Key: map[string]*dynamodbv1.AttributeValue{"day": {S: &day}}}); err != nil { // want `effect dynamodb.DynamoDB.UpdateItemWithContext \(remote call\)`
			return err
		}
	}
	return nil
}

// Totals does the same through the plain form of the call (no context):
// what its WithContext twin does.
type Totals struct{ DB *dynamodbv1.DynamoDB }

func (s *Totals) Handle(ctx context.Context, ev events.KinesisEvent) error {
	for _, r := range ev.Records {
		day := r.Kinesis.PartitionKey
		if _, err := s.DB.UpdateItem(&dynamodbv1.UpdateItemInput{Key: map[string]*dynamodbv1.AttributeValue{"day": {S: &day}}}); err != nil { // want `effect dynamodb.DynamoDB.UpdateItem \(remote call\)`
			return err
		}
	}
	return nil
}

func main() {
	lambda.Start((&Points{}).Handle)
	lambda.Start((&Orders{}).Handle)
	lambda.Start(guarded(nil))
	lambda.Start(notify)
	lambda.Start((&Stats{}).Handle)
	lambda.Start((&Totals{}).Handle)
}

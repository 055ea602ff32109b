// Package events is a stub of github.com/aws/aws-lambda-go@v1.55.1 for analyzer tests: signatures mirror the real API.
//
// Only the event-source payloads of the queue and stream triggers (SQS, SNS,
// Kinesis, DynamoDB streams, Kafka) are stubbed, with the fields the tests read.
package events

type SQSEvent struct {
	Records []SQSMessage `json:"Records"`
}

type SQSMessage struct {
	MessageId      string `json:"messageId"`
	ReceiptHandle  string `json:"receiptHandle"`
	Body           string `json:"body"`
	EventSourceARN string `json:"eventSourceARN"`
}

type SQSEventResponse struct {
	BatchItemFailures []SQSBatchItemFailure `json:"batchItemFailures"`
}

type SQSBatchItemFailure struct {
	ItemIdentifier string `json:"itemIdentifier"`
}

type SNSEvent struct {
	Records []SNSEventRecord `json:"Records"`
}

type SNSEventRecord struct {
	EventSource string    `json:"EventSource"`
	SNS         SNSEntity `json:"Sns"`
}

type SNSEntity struct {
	MessageID string `json:"MessageId"`
	TopicArn  string `json:"TopicArn"`
	Message   string `json:"Message"`
	Subject   string `json:"Subject"`
}

type KinesisEvent struct {
	Records []KinesisEventRecord `json:"Records"`
}

type KinesisEventRecord struct {
	EventID string        `json:"eventID"`
	Kinesis KinesisRecord `json:"kinesis"`
}

type KinesisRecord struct {
	Data           []byte `json:"data"`
	PartitionKey   string `json:"partitionKey"`
	SequenceNumber string `json:"sequenceNumber"`
}

type DynamoDBEvent struct {
	Records []DynamoDBEventRecord `json:"Records"`
}

type DynamoDBEventRecord struct {
	AWSRegion string `json:"awsRegion"`
	EventID   string `json:"eventID"`
	EventName string `json:"eventName"`
}

type KafkaEvent struct {
	EventSource    string                   `json:"eventSource"`
	EventSourceARN string                   `json:"eventSourceArn"`
	Records        map[string][]KafkaRecord `json:"records"`
}

type KafkaRecord struct {
	Topic     string `json:"topic"`
	Partition int64  `json:"partition"`
	Offset    int64  `json:"offset"`
	Key       string `json:"key,omitempty"`
	Value     string `json:"value,omitempty"`
}

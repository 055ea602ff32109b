// Package types is a stub of github.com/aws/aws-sdk-go-v2/service/sqs@v1.53.0 for analyzer tests: signatures mirror the real API.
//
// Generated from the real package's type information; bodies return zero values.
package types

type Message struct {
	Attributes             map[string]string
	Body                   *string
	MD5OfBody              *string
	MD5OfMessageAttributes *string
	MessageAttributes      map[string]MessageAttributeValue
	MessageId              *string
	ReceiptHandle          *string
}

type MessageAttributeValue struct {
	DataType         *string
	BinaryListValues [][]byte
	BinaryValue      []byte
	StringListValues []string
	StringValue      *string
}

type MessageSystemAttributeValue struct {
	DataType         *string
	BinaryListValues [][]byte
	BinaryValue      []byte
	StringListValues []string
	StringValue      *string
}

type QueueAttributeName string

type MessageSystemAttributeName string

const MessageSystemAttributeNameApproximateReceiveCount MessageSystemAttributeName = "ApproximateReceiveCount"

const QueueAttributeNameAll QueueAttributeName = "All"

type DeleteMessageBatchRequestEntry struct {
	Id            *string
	ReceiptHandle *string
}

type DeleteMessageBatchResultEntry struct {
	Id *string
}

type BatchResultErrorEntry struct {
	Code        *string
	Id          *string
	SenderFault bool
	Message     *string
}

type SendMessageBatchRequestEntry struct {
	Id                      *string
	MessageBody             *string
	DelaySeconds            int32
	MessageAttributes       map[string]MessageAttributeValue
	MessageDeduplicationId  *string
	MessageGroupId          *string
	MessageSystemAttributes map[string]MessageSystemAttributeValue
}

type SendMessageBatchResultEntry struct {
	Id                           *string
	MD5OfMessageBody             *string
	MessageId                    *string
	MD5OfMessageAttributes       *string
	MD5OfMessageSystemAttributes *string
	SequenceNumber               *string
}

type ChangeMessageVisibilityBatchRequestEntry struct {
	Id                *string
	ReceiptHandle     *string
	VisibilityTimeout int32
}

type ChangeMessageVisibilityBatchResultEntry struct {
	Id *string
}

// Package primitive is a stub of github.com/apache/rocketmq-client-go/v2@v2.1.3-0.20251226070945-2173d070fd1b for analyzer tests: signatures mirror the real API.
//
// Generated from the real package's type information; bodies return zero values.
package primitive

type Message struct {
	Topic          string
	Body           []byte
	CompressedBody []byte
	Flag           int32
	TransactionId  string
	Batch          bool
	Compress       bool
	Queue          *MessageQueue
}

func (m *Message) GetKeys() string { return "" }

func (m *Message) GetTags() string { return "" }

func (m *Message) GetProperty(key string) string { return "" }

func (m *Message) WithKeys(keys []string) *Message { return nil }

func (m *Message) WithTag(tags string) *Message { return nil }

func (m *Message) WithProperty(key string, value string) {}

func (m *Message) String() string { return "" }

func NewMessage(topic string, body []byte) *Message { return nil }

type MessageExt struct {
	Message
	MsgId                     string
	OffsetMsgId               string
	StoreSize                 int32
	QueueOffset               int64
	SysFlag                   int32
	BornTimestamp             int64
	BornHost                  string
	StoreTimestamp            int64
	StoreHost                 string
	CommitLogOffset           int64
	BodyCRC                   int32
	ReconsumeTimes            int32
	PreparedTransactionOffset int64
}

func (msgExt *MessageExt) GetTags() string { return "" }

func (msgExt *MessageExt) String() string { return "" }

type MessageQueue struct {
	Topic      string `json:"topic"`
	BrokerName string `json:"brokerName"`
	QueueId    int    `json:"queueId"`
}

func (mq *MessageQueue) String() string { return "" }

type SendResult struct {
	Status        SendStatus
	MsgID         string
	MessageQueue  *MessageQueue
	QueueOffset   int64
	TransactionID string
	OffsetMsgID   string
	RegionID      string
	TraceOn       bool
}

func (result *SendResult) String() string { return "" }

type SendStatus int

const SendOK SendStatus = 0

type NamesrvAddr []string

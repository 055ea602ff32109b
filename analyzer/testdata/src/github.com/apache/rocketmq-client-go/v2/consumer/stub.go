// Package consumer is a stub of github.com/apache/rocketmq-client-go/v2@v2.1.3-0.20251226070945-2173d070fd1b for analyzer tests: signatures mirror the real API.
//
// Generated from the real package's type information; bodies return zero values.
package consumer

import (
	"github.com/apache/rocketmq-client-go/v2/primitive"
)

type ConsumeResult int

const ConsumeSuccess ConsumeResult = 0

const ConsumeRetryLater ConsumeResult = 1

const Commit ConsumeResult = 2

const Rollback ConsumeResult = 3

const SuspendCurrentQueueAMoment ConsumeResult = 4

type MessageSelector struct {
	Type       ExpressionType
	Expression string
}

type ExpressionType string

const TAG ExpressionType = "TAG"

const SQL92 ExpressionType = "SQL92"

type Option func(*consumerOptions)

type consumerOptions struct {
}

type MessageModel int

const BroadCasting MessageModel = 0

const Clustering MessageModel = 1

type ConsumeFromWhere int

const ConsumeFromLastOffset ConsumeFromWhere = 0

const ConsumeFromFirstOffset ConsumeFromWhere = 1

const ConsumeFromTimestamp ConsumeFromWhere = 2

func WithGroupName(group string) Option { return nil }

func WithNameServer(nameServers primitive.NamesrvAddr) Option { return nil }

func WithConsumerModel(m MessageModel) Option { return nil }

func WithConsumeFromWhere(w ConsumeFromWhere) Option { return nil }

func WithMaxReconsumeTimes(times int32) Option { return nil }

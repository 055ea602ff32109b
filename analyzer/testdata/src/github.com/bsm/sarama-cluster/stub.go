// Package cluster is a stub of github.com/bsm/sarama-cluster@v2.1.15+incompatible for analyzer tests: signatures mirror the real API.
//
// Bodies return zero values.
package cluster

import "github.com/Shopify/sarama"

type Config struct {
	sarama.Config
}

func NewConfig() *Config { return nil }

type Notification struct {
	Claimed  map[string][]int32
	Released map[string][]int32
	Current  map[string][]int32
}

type OffsetStash struct{}

type Consumer struct{}

func NewConsumer(addrs []string, groupID string, topics []string, config *Config) (*Consumer, error) {
	return nil, nil
}

func (c *Consumer) Messages() <-chan *sarama.ConsumerMessage                { return nil }
func (c *Consumer) Partitions() <-chan PartitionConsumer                    { return nil }
func (c *Consumer) Errors() <-chan error                                    { return nil }
func (c *Consumer) Notifications() <-chan *Notification                     { return nil }
func (c *Consumer) MarkOffset(msg *sarama.ConsumerMessage, metadata string) {}
func (c *Consumer) MarkPartitionOffset(topic string, partition int32, offset int64, metadata string) {
}
func (c *Consumer) MarkOffsets(s *OffsetStash) {}
func (c *Consumer) CommitOffsets() error       { return nil }
func (c *Consumer) Close() (err error)         { return nil }

type PartitionConsumer interface {
	sarama.PartitionConsumer
	Topic() string
	Partition() int32
	InitialOffset() int64
	MarkOffset(offset int64, metadata string)
	ResetOffset(offset int64, metadata string)
}

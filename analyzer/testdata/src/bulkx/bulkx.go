// Package bulkx: an Elasticsearch bulk indexer's Add only queues the
// action; its workers send it later. Acking after Add acks before the
// write; acking after Close (which flushes) does not.
package bulkx

import (
	"bytes"
	"context"

	"github.com/elastic/go-elasticsearch/v8/esutil"
	amqp "github.com/rabbitmq/amqp091-go"
)

func Index(ctx context.Context, bi esutil.BulkIndexer, msgs <-chan amqp.Delivery) {
	for d := range msgs {
		err := bi.Add(ctx, esutil.BulkIndexerItem{Index: "products", Action: "index", DocumentID: d.MessageId, Body: bytes.NewReader(d.Body)}) // want `IDEM002`
		if err != nil {
			d.Nack(false, true)
			continue
		}
		d.Ack(false)
	}
}

func IndexOne(ctx context.Context, cfg esutil.BulkIndexerConfig, d amqp.Delivery) {
	bi, err := esutil.NewBulkIndexer(cfg)
	if err != nil {
		d.Nack(false, true)
		return
	}
	if err := bi.Add(ctx, esutil.BulkIndexerItem{Index: "products", Action: "index", DocumentID: d.MessageId, Body: bytes.NewReader(d.Body)}); err != nil {
		d.Nack(false, true)
		return
	}
	if err := bi.Close(ctx); err != nil {
		d.Nack(false, true)
		return
	}
	d.Ack(false)
}

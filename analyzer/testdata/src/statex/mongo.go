package statex

// State checks on MongoDB documents: FindOne(…).Decode(&o), a branch on a
// field, an update that $sets it.

import (
	"context"

	amqp "github.com/rabbitmq/amqp091-go"
	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/mongo"
)

type Shipment struct {
	ID      string `bson:"_id"`
	Status  string `bson:"status"`
	Credits int    `bson:"credits"`
}

type Docs struct {
	shipments *mongo.Collection
	accounts  *mongo.Collection
}

func (d *Docs) shipment(ctx context.Context, id string) (*Shipment, error) {
	var s Shipment
	err := d.shipments.FindOne(ctx, bson.M{"_id": id}).Decode(&s)
	return &s, err
}

func (d *Docs) markShipped(ctx context.Context, id string) error {
	_, err := d.shipments.UpdateOne(ctx, bson.M{"_id": id}, bson.M{"$set": bson.M{"status": "shipped"}})
	return err
}

func (d *Docs) credit(ctx context.Context, id string, n int) error { // want credit:`effects\(mongo.Collection.UpdateOne\)`
	_, err := d.accounts.UpdateOne(ctx, bson.M{"_id": id}, bson.M{"$inc": bson.M{"credits": n}})
	return err
}

// shipped skips a shipment already shipped; the status is $set with the
// effect.
func (d *Docs) shipped(ctx context.Context, m amqp.Delivery) {
	s, err := d.shipment(ctx, string(m.Body))
	if err != nil {
		m.Nack(false, true)
		return
	}
	if s.Status == "shipped" {
		m.Ack(false)
		return
	}
	if err := d.credit(ctx, s.ID, s.Credits); err != nil {
		m.Nack(false, true)
		return
	}
	if err := d.markShipped(ctx, s.ID); err != nil {
		m.Nack(false, true)
		return
	}
	m.Ack(false)
}

// credited reads the credits and compares them, but nothing $sets them:
// the increment runs again on a redelivery.
func (d *Docs) credited(ctx context.Context, m amqp.Delivery) {
	s, err := d.shipment(ctx, string(m.Body))
	if err != nil || s.Credits == 0 {
		m.Nack(false, true)
		return
	}
	if err := d.credit(ctx, s.ID, s.Credits); err != nil { // want `IDEM001`
		m.Nack(false, true)
		return
	}
	m.Ack(false)
}

package mongowrap // want package:"idemfacts"

// Package mongowrap: a MongoDB update wrapper whose callers give the
// update document; they decide whether its UpdateOne replaces ($set) or
// adds ($inc).

import (
	"context"

	amqp "github.com/rabbitmq/amqp091-go"
	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/mongo"
)

// save runs the update its caller gives.
func save(ctx context.Context, c *mongo.Collection, filter, update any) error { // want save:`effects\(mongo.Collection.UpdateOne\)`
	_, err := c.UpdateOne(ctx, filter, update)
	return err
}

// setEmail replaces the user's email through the wrapper: no effect.
func setEmail(ctx context.Context, c *mongo.Collection, d amqp.Delivery) error {
	return save(ctx, c, bson.M{"_id": d.UserId}, bson.M{"$set": bson.M{"email": string(d.Body)}})
}

// addPoints adds points through the wrapper: an effect.
func addPoints(ctx context.Context, c *mongo.Collection, d amqp.Delivery) error {
	return save(ctx, c, bson.M{"_id": d.UserId}, bson.M{"$inc": bson.M{"points": 10}}) // want `effect mongowrap.save → mongo.Collection.UpdateOne in handler addPoints`
}

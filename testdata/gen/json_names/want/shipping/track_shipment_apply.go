package shipping

import (
	"context"
	"errors"

	"example.com/jsonnames/events"
	redis "github.com/redis/go-redis/v9"
)

// applyTrackShipment queues the effect of m, a message of the track_shipment
// consumer, on pipe, the transaction that also writes its dedup record: Redis
// runs both in one MULTI/EXEC, or neither. It must only queue commands, never
// run them, and may be called again when a concurrent duplicate makes the store
// retry; an error sends nothing. Returning guard.Reject(err) refuses the
// message for good. The record lives under the hash tag of the message's
// order-id field: name every key with redisguard.Tagged(<order-id>, key), so
// that it is in the record's Redis Cluster slot.
//
// Wire it up with
//
//	h := NewTrackShipmentHandler(store, applyTrackShipment)
//
// idemgen wrote this file once and never overwrites it: it is yours to edit.
// (If it is deleted, idemgen writes the stub again; keep the file, even empty,
// if the function lives elsewhere.)
func applyTrackShipment(ctx context.Context, pipe redis.Pipeliner, m *events.Shipped) error {
	// TODO: queue the effect of m on pipe.
	return errors.New("track_shipment: apply not implemented")
}

// The handler's apply func type checks the signature of applyTrackShipment.
var _ TrackShipmentFunc = applyTrackShipment

package dpkafkax

import (
	"context"
	"database/sql"
	"log"

	kafkav2 "github.com/ONSdigital/dp-kafka/v2"
)

// consume reads v2's Upstream channel and commits each message, also after
// the insert failed.
func consume(ctx context.Context, db *sql.DB, cg kafkav2.IConsumerGroup) {
	for msg := range cg.Channels().Upstream {
		if _, err := db.ExecContext(ctx, `INSERT INTO observations (instance, row) VALUES ($1, $2)`, "i", msg.GetData()); err != nil { // want `effect sql.DB.ExecContext "INSERT INTO observations.* in handler consume is not guarded by a dedup check`
			log.Print(err)
		}
		msg.CommitAndRelease() // want `ack kafka.Message.CommitAndRelease in handler consume also runs when sql.DB.ExecContext fails`
	}
}

// Package ackchan (whole-program mode): a RabbitMQ consumer of the program
// whose Consume returns a channel of its own events, each carrying func
// fields that ack or nak the delivery it was decoded from; the bot ranges
// over that channel and hands each event to its handler, which settles it
// through those fields. The events are messages, and the handler, which
// acks through the event's field, handles each on its own.
package ackchan

import (
	"context"
	"database/sql"
	"encoding/json"
	"log"

	amqp "github.com/rabbitmq/amqp091-go"
)

// Post is a new blog post.
type Post struct{ ID, Title string }

// PostEvent is a post to announce, with the settling of its delivery.
type PostEvent struct {
	Post Post
	Ack  func() error
	Nack func(requeue bool) error
}

// Posts consumes the posts queue.
type Posts struct{ ch *amqp.Channel }

// Consume returns the events of the posts queue.
func (p *Posts) Consume(ctx context.Context) (<-chan PostEvent, error) {
	deliveries, err := p.ch.Consume("posts", "bot", false, false, false, false, nil)
	if err != nil {
		return nil, err
	}
	events := make(chan PostEvent)
	go func() {
		defer close(events)
		for d := range deliveries {
			var post Post
			if err := json.Unmarshal(d.Body, &post); err != nil {
				continue
			}
			events <- PostEvent{
				Post: post,
				Ack:  func() error { return d.Ack(false) },
				Nack: func(requeue bool) error { return d.Nack(false, requeue) },
			}
		}
	}()
	return events, nil
}

// Bot announces posts.
type Bot struct {
	posts *Posts
	db    *sql.DB
}

// Run announces each post.
func (b *Bot) Run(ctx context.Context) error {
	events, err := b.posts.Consume(ctx)
	if err != nil {
		return err
	}
	for ev := range events {
		b.handleNewPost(ctx, ev)
	}
	return nil
}

// handleNewPost records an announcement and acks, also when the record
// failed.
func (b *Bot) handleNewPost(ctx context.Context, ev PostEvent) {
	if _, err := b.db.ExecContext(ctx, `INSERT INTO announcements (post_id) VALUES ($1)`, ev.Post.ID); err != nil { // want `effect sql.DB.ExecContext "INSERT INTO announcements \(post_id\) VALUES \(\$1\)" in handler Bot.handleNewPost is not guarded by a dedup check \(IDEM001\)`
		log.Print(err)
	}
	if err := ev.Ack(); err != nil { // want `ack ackchan.PostEvent.Ack in handler Bot.handleNewPost also runs when sql.DB.ExecContext fails: the error is swallowed and the message lost \(IDEM003\)`
		log.Print(err)
	}
}

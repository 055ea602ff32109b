// Package slacksubx: socket-mode callbacks registered on a
// SocketmodeHandler (the registration makes them handlers: whole-program
// mode).
package slacksubx

import (
	"github.com/slack-go/slack"
	"github.com/slack-go/slack/socketmode"
)

func Wire(client *socketmode.Client) {
	h := socketmode.NewSocketmodeHandler(client)
	h.Handle(socketmode.EventTypeSlashCommand, onCommand)
	_ = h.RunEventLoop()
}

// onCommand replies before it acks; a redelivered command replies again.
func onCommand(evt *socketmode.Event, client *socketmode.Client) {
	client.PostMessage("C1", slack.MsgOptionText("done", false)) // want `IDEM001`
	client.Ack(*evt.Request)                                     // want `also runs when .* fails: its error is discarded and the message lost \(IDEM003\)`
}

// Package settings is a handler whose findings depend on the plugin's
// settings: Send is an effect and Done an ack only when the settings (or a
// rules file) say so.
package settings

// Send sends a text message.
func Send(to string) {}

// Done acknowledges the message.
func Done() {}

//idem:handler
func handle(to string) {
	Done()
	Send(to)
}

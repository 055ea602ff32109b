// Package cqrs is a stub of github.com/ThreeDotsLabs/watermill@v1.5.1 for analyzer tests: signatures mirror the real API.
//
// Checked against the real package's type information; bodies return zero values.
package cqrs

import "context"

type CommandHandler interface {
	HandlerName() string

	NewCommand() any

	Handle(ctx context.Context, cmd any) error
}

func NewCommandHandler[Command any](
	handlerName string,
	handleFunc func(ctx context.Context, cmd *Command) error,
) CommandHandler {
	return nil
}

type EventHandler interface {
	HandlerName() string

	NewEvent() any

	Handle(ctx context.Context, event any) error
}

func NewEventHandler[T any](
	handlerName string,
	handleFunc func(ctx context.Context, event *T) error,
) EventHandler {
	return nil
}

type GroupEventHandler interface {
	NewEvent() interface{}
	Handle(ctx context.Context, event interface{}) error
}

func NewGroupEventHandler[T any](handleFunc func(ctx context.Context, event *T) error) GroupEventHandler {
	return nil
}

type CommandBus struct {
}

func (c CommandBus) Send(ctx context.Context, cmd any) error { return nil }

type EventBus struct {
}

func (c EventBus) Publish(ctx context.Context, event any) error { return nil }

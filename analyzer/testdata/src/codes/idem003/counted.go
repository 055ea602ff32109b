package idem003

import (
	"context"
	"errors"
	"fmt"
	"log"

	"github.com/hibiken/asynq"
)

// Failures counted or collected: a sweep over users that logs a user's
// failed write, counts it (or collects its error) and goes on, then fails
// the task when any failed, reports the failure; one that counts and never
// tests the count swallows it.

func sweepCounted(ctx context.Context, p *points, users []string) error {
	failed := 0
	for _, u := range users {
		if err := p.AddPoints(ctx, u, 1); err != nil {
			log.Print(err)
			failed++
			continue
		}
	}
	if failed > 0 {
		return fmt.Errorf("%d users failed", failed)
	}
	return nil
}

func sweepCollected(ctx context.Context, p *points, users []string) error {
	var errs []error
	for _, u := range users {
		if err := p.AddPoints(ctx, u, 1); err != nil {
			errs = append(errs, err)
			continue
		}
	}
	if len(errs) > 0 {
		return errors.Join(errs...)
	}
	return nil
}

func sweepCountedOnly(ctx context.Context, p *points, users []string) error {
	failed := 0
	for _, u := range users {
		if err := p.AddPoints(ctx, u, 1); err != nil {
			failed++
			continue
		}
	}
	log.Printf("%d users failed", failed)
	return nil
}

func sweepCountedWarned(ctx context.Context, p *points, users []string) error {
	failed := 0
	for _, u := range users {
		if err := p.AddPoints(ctx, u, 1); err != nil {
			failed++
			continue
		}
	}
	if failed > 0 {
		log.Printf("%d users failed", failed)
	} else {
		log.Print("all users done")
	}
	return nil
}

func sweepNoneFailed(ctx context.Context, p *points, users []string) error {
	failed := 0
	for _, u := range users {
		if err := p.AddPoints(ctx, u, 1); err != nil {
			failed++
			continue
		}
	}
	if failed == 0 {
		return nil
	}
	return fmt.Errorf("%d users failed", failed)
}

// countedTask fails when a user failed: the task is retried.
func countedTask(ctx context.Context, t *asynq.Task) error {
	return sweepCounted(ctx, &points{}, []string{string(t.Payload())})
}

// collectedTask fails when a user failed: the task is retried.
func collectedTask(ctx context.Context, t *asynq.Task) error {
	return sweepCollected(ctx, &points{}, []string{string(t.Payload())})
}

// countedOnlyTask only logs the count: the failed users are lost.
func countedOnlyTask(ctx context.Context, t *asynq.Task) error {
	return sweepCountedOnly(ctx, &points{}, []string{string(t.Payload())}) // want `handler countedOnlyTask returns the result of idem003.sweepCountedOnly, which is nil when .*points.AddPoints \(inside idem003.sweepCountedOnly, which reports success\) fails`
}

// warnedTask tests the count only to log it: the failed users are lost.
func warnedTask(ctx context.Context, t *asynq.Task) error {
	return sweepCountedWarned(ctx, &points{}, []string{string(t.Payload())}) // want `handler warnedTask returns the result of idem003.sweepCountedWarned, which is nil when .*points.AddPoints \(inside idem003.sweepCountedWarned, which reports success\) fails`
}

// noneFailedTask succeeds only when no user failed: the task is retried.
func noneFailedTask(ctx context.Context, t *asynq.Task) error {
	return sweepNoneFailed(ctx, &points{}, []string{string(t.Payload())})
}

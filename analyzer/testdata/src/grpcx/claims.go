package grpcx

import (
	"context"
	"sync"

	"github.com/hibiken/asynq"

	"grpcx/jobspb"
	"grpcx/walletpb"
)

// Executor runs a job only when the jobs service gave it to this worker:
// the claim's reply decides.
type Executor struct {
	Jobs   jobspb.JobsClient
	Wallet walletpb.WalletClient
}

func (e *Executor) ProcessTask(ctx context.Context, t *asynq.Task) error {
	claim, err := e.Jobs.ClaimJob(ctx, &jobspb.ClaimJobRequest{Id: string(t.Payload()), WorkerId: "w1"})
	if err != nil {
		return err
	}
	if !claim.GetClaimed() {
		return nil
	}
	_, err = e.Wallet.Credit(ctx, &walletpb.Req{User: string(t.Payload())})
	return err
}

// Handoff runs the claimed job in a goroutine that keeps the reply: the
// reply is a variable the closure captures.
type Handoff struct {
	Jobs   jobspb.JobsClient
	Wallet walletpb.WalletClient
	wg     sync.WaitGroup
}

func (e *Handoff) ProcessTask(ctx context.Context, t *asynq.Task) error {
	claim, err := e.Jobs.ClaimJob(ctx, &jobspb.ClaimJobRequest{Id: string(t.Payload()), WorkerId: "w1"})
	if err != nil {
		return err
	}
	if !claim.GetClaimed() {
		return nil
	}
	e.wg.Add(1)
	return func() error {
		defer e.wg.Done()
		_, err := e.Wallet.Credit(ctx, &walletpb.Req{User: claim.LeaseToken})
		return err
	}()
}

// Careless claims the job and runs it whatever the reply said.
type Careless struct {
	Jobs   jobspb.JobsClient
	Wallet walletpb.WalletClient
}

func (e *Careless) ProcessTask(ctx context.Context, t *asynq.Task) error {
	if _, err := e.Jobs.ClaimJob(ctx, &jobspb.ClaimJobRequest{Id: string(t.Payload())}); err != nil { // want `effect jobspb.JobsClient.ClaimJob .* in handler Careless.ProcessTask is not guarded`
		return err
	}
	_, err := e.Wallet.Credit(ctx, &walletpb.Req{User: string(t.Payload())}) // want `walletpb.WalletClient.Credit .* in handler Careless.ProcessTask is not guarded`
	return err
}

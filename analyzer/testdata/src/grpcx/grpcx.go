// Package grpcx: calls to other services over gRPC from handlers. An
// Invoke is an effect unless its method name reads like a read (Get,
// List, …); so is a generated client's method (its last parameter
// ...grpc.CallOption), by its own name when its implementation is not in
// the program.
package grpcx

import (
	"context"

	"github.com/hibiken/asynq"
	"google.golang.org/grpc"

	"grpcx/loyaltypb"
	"grpcx/walletpb"
	"shop"
)

type Req struct{ User string }

type Resp struct{ Balance int }

type Worker struct {
	Conn   *grpc.ClientConn
	Client grpc.ClientConnInterface
}

func (w *Worker) ProcessTask(ctx context.Context, t *asynq.Task) error {
	o, err := shop.Decode(t.Payload())
	if err != nil {
		return nil
	}
	var balance Resp
	if err := w.Conn.Invoke(ctx, "/wallet.v1.Wallet/GetBalance", &Req{User: o.User}, &balance); err != nil { // a read
		return err
	}
	if err := w.Client.Invoke(ctx, "/wallet.v1.Wallet/ListTransactions", &Req{User: o.User}, &Resp{}); err != nil { // a read
		return err
	}
	if err := w.Conn.Invoke(ctx, "/wallet.v1.Wallet/SetLimit", &Req{User: o.User}, &Resp{}); err != nil { // an overwrite
		return err
	}
	if err := w.Conn.Invoke(ctx, "/wallet.v1.Wallet/Credit", &Req{User: o.User}, &Resp{}); err != nil { // want `effect grpc.ClientConn.Invoke .* in handler Worker.ProcessTask is not guarded by a dedup check`
		return err
	}
	return w.Client.Invoke(ctx, "/loyalty.v1.Points/AddPoints", &Req{User: o.User}, &Resp{}) // want `IDEM001`
}

// guarded calls only for an order id seen for the first time.
func guarded(db shop.DBTX, cc grpc.ClientConnInterface) asynq.HandlerFunc {
	return func(ctx context.Context, t *asynq.Task) error {
		o, err := shop.Decode(t.Payload())
		if err != nil {
			return nil
		}
		fresh, err := shop.Claim(ctx, db, "credit", o.ID)
		if err != nil || !fresh {
			return err
		}
		return cc.Invoke(ctx, "/wallet.v1.Wallet/Credit", &Req{User: o.User}, &Resp{})
	}
}

// Services holds generated clients: one generated into this program
// (walletpb, its implementation calls Invoke), one whose implementation
// the program does not have (loyaltypb, a client from a dependency).
type Services struct {
	Wallet  walletpb.WalletClient
	Loyalty loyaltypb.PointsClient
}

func (v *Services) ProcessTask(ctx context.Context, t *asynq.Task) error {
	o, err := shop.Decode(t.Payload())
	if err != nil {
		return nil
	}
	if _, err := v.Wallet.GetBalance(ctx, &walletpb.Req{User: o.User}); err != nil { // a read
		return err
	}
	if _, err := v.Loyalty.ListAwards(ctx, &loyaltypb.Req{User: o.User}); err != nil { // a read
		return err
	}
	if _, err := v.Wallet.Credit(ctx, &walletpb.Req{User: o.User}); err != nil { // want `walletpb.WalletClient.Credit .*/wallet.v1.Wallet/Credit.* in handler Services.ProcessTask is not guarded by a dedup check`
		return err
	}
	_, err = v.Loyalty.AddPoints(ctx, &loyaltypb.Req{User: o.User}) // want `effect loyaltypb.PointsClient.AddPoints \(remote call\) in handler Services.ProcessTask is not guarded`
	return err
}

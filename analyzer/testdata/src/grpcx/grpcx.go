// Package grpcx: calls to other services over gRPC from handlers. An
// Invoke is an effect unless its method name reads like a read (Get,
// List, …); so is a generated client's method (its last parameter
// ...grpc.CallOption), by its own name when its implementation is not in
// the program.
package grpcx

import (
	"context"
	"fmt"
	"time"

	"github.com/hibiken/asynq"
	"google.golang.org/grpc"

	"grpcx/loyaltypb"
	"grpcx/walletpb"
	"grpcx/walletsvc"
	"shop"
)

type Req struct {
	User           string
	IdempotencyKey string
}

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

// Keyed sends each call with a key the service checks (the request's
// IdempotencyKey): a repeat is dropped by the service.
type Keyed struct {
	Conn    *grpc.ClientConn
	Wallet  walletpb.WalletClient
	Loyalty loyaltypb.PointsClient
	Svc     *walletsvc.Service
}

func (k *Keyed) ProcessTask(ctx context.Context, t *asynq.Task) error {
	o, err := shop.Decode(t.Payload())
	if err != nil {
		return nil
	}
	if err := k.Conn.Invoke(ctx, "/wallet.v1.Wallet/Credit", &Req{User: o.User, IdempotencyKey: "credit-" + o.ID}, &Resp{}); err != nil {
		return err
	}
	if _, err := k.Wallet.Credit(ctx, &walletpb.Req{User: o.User, IdempotencyKey: o.ID}); err != nil {
		return err
	}
	if err := k.Svc.Credit(ctx, o.User, "wallet-"+o.ID); err != nil {
		return err
	}
	_, err = k.Loyalty.AddPoints(ctx, &loyaltypb.Req{User: o.User, IdempotencyKey: o.ID})
	return err
}

// Unkeyed sends keys that cannot repeat: a new one per call, or none.
type Unkeyed struct {
	Wallet  walletpb.WalletClient
	Loyalty loyaltypb.PointsClient
	Svc     *walletsvc.Service
}

func (u *Unkeyed) ProcessTask(ctx context.Context, t *asynq.Task) error {
	o, err := shop.Decode(t.Payload())
	if err != nil {
		return nil
	}
	if _, err := u.Wallet.Credit(ctx, &walletpb.Req{User: o.User, IdempotencyKey: fmt.Sprint(time.Now().UnixNano())}); err != nil { // want `IDEM001`
		return err
	}
	if err := u.Svc.Credit(ctx, o.User, ""); err != nil { // want `IDEM001`
		return err
	}
	_, err = u.Loyalty.AddPoints(ctx, &loyaltypb.Req{User: o.User, IdempotencyKey: ""}) // want `IDEM001`
	return err
}

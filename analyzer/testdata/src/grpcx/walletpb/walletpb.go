// Package walletpb is shaped like protoc-gen-go-grpc's output: a client
// interface, its implementation over a grpc.ClientConnInterface, full
// method names as constants.
package walletpb

import (
	"context"

	"google.golang.org/grpc"
)

type Req struct {
	User           string
	IdempotencyKey string
}

type Resp struct{ Balance int }

const (
	Wallet_GetBalance_FullMethodName = "/wallet.v1.Wallet/GetBalance"
	Wallet_Credit_FullMethodName     = "/wallet.v1.Wallet/Credit"
)

type WalletClient interface {
	GetBalance(ctx context.Context, in *Req, opts ...grpc.CallOption) (*Resp, error)
	Credit(ctx context.Context, in *Req, opts ...grpc.CallOption) (*Resp, error)
}

type walletClient struct {
	cc grpc.ClientConnInterface
}

func NewWalletClient(cc grpc.ClientConnInterface) WalletClient { return &walletClient{cc} }

func (c *walletClient) GetBalance(ctx context.Context, in *Req, opts ...grpc.CallOption) (*Resp, error) {
	out := new(Resp)
	err := c.cc.Invoke(ctx, Wallet_GetBalance_FullMethodName, in, out, opts...)
	if err != nil {
		return nil, err
	}
	return out, nil
}

func (c *walletClient) Credit(ctx context.Context, in *Req, opts ...grpc.CallOption) (*Resp, error) {
	out := new(Resp)
	err := c.cc.Invoke(ctx, Wallet_Credit_FullMethodName, in, out, opts...)
	if err != nil {
		return nil, err
	}
	return out, nil
}

// Package loyaltypb holds only a generated client's interface: its
// implementation lives where the program cannot see it.
package loyaltypb

import (
	"context"

	"google.golang.org/grpc"
)

type Req struct {
	User           string
	IdempotencyKey string
}

type Resp struct{ Points int }

type PointsClient interface {
	ListAwards(ctx context.Context, in *Req, opts ...grpc.CallOption) (*Resp, error)
	AddPoints(ctx context.Context, in *Req, opts ...grpc.CallOption) (*Resp, error)
}

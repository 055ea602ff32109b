// Package jobspb is shaped like protoc-gen-go-grpc's output for a jobs
// service that hands a job to one worker at a time.
package jobspb

import (
	"context"

	"google.golang.org/grpc"
)

type ClaimJobRequest struct {
	Id       string
	WorkerId string
}

type ClaimJobResponse struct {
	Claimed    bool
	LeaseToken string
}

// GetClaimed reports whether this worker got the job.
func (x *ClaimJobResponse) GetClaimed() bool {
	if x != nil {
		return x.Claimed
	}
	return false
}

const Jobs_ClaimJob_FullMethodName = "/jobs.v1.Jobs/ClaimJob"

type JobsClient interface {
	ClaimJob(ctx context.Context, in *ClaimJobRequest, opts ...grpc.CallOption) (*ClaimJobResponse, error)
}

type jobsClient struct {
	cc grpc.ClientConnInterface
}

func NewJobsClient(cc grpc.ClientConnInterface) JobsClient { return &jobsClient{cc} }

func (c *jobsClient) ClaimJob(ctx context.Context, in *ClaimJobRequest, opts ...grpc.CallOption) (*ClaimJobResponse, error) {
	out := new(ClaimJobResponse)
	err := c.cc.Invoke(ctx, Jobs_ClaimJob_FullMethodName, in, out, opts...)
	if err != nil {
		return nil, err
	}
	return out, nil
}

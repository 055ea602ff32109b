// Package pool is an in-memory worker pool: jobs go through a channel to
// a function, nothing is stored or decoded, nothing is redelivered. It is
// not a queue of messages, and its jobs are not handlers.
package pool

// Pool runs jobs on workers.
type Pool[J any] struct {
	jobs chan J
	run  func(J) error
}

// New starts n workers that run f on every job.
func New[J any](n int, f func(J) error) *Pool[J] {
	p := &Pool[J]{jobs: make(chan J), run: f}
	for range n {
		go p.work()
	}
	return p
}

// Submit queues j.
func (p *Pool[J]) Submit(j J) { p.jobs <- j }

func (p *Pool[J]) work() {
	for j := range p.jobs {
		_ = p.run(j)
	}
}

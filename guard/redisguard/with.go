package redisguard

import "github.com/idemkit/idem/guard"

// With returns a store sharing s's client and command table, with opts
// applied on top of s's options. Generated handlers use it to layer a
// consumer's settings (lease, delivery, retention) over the store's.
func (s *Store) With(opts ...guard.Option) (*Store, error) {
	cfg, err := s.cfg.With(opts...)
	if err != nil {
		return nil, err
	}
	v := *s
	v.cfg = cfg
	return &v, nil
}

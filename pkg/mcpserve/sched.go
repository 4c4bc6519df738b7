package mcpserve

import (
	"context"
	"sync"
)

// scheduler admits calls in arrival order: a parallel call may run beside
// other parallel calls, a sequential call runs alone, after every call that
// arrived before it and before every call that arrived after it (a read
// sent after an edit sees the edit). It is a reader-writer lock that is
// fair by arrival: no call overtakes an earlier sequential one.
type scheduler struct {
	mu      sync.Mutex
	next    uint64
	pending []*slot // admitted and not yet done, in arrival order
	// unclaimed are the slots admitted off the wire whose handler has not
	// yet taken them, by ticket.
	unclaimed map[uint64]*slot
	changed   chan struct{}
}

// slot is one admitted call.
type slot struct {
	s          *scheduler
	ticket     uint64
	sequential bool
	claimed    bool
	done       bool
}

func newScheduler() *scheduler {
	return &scheduler{changed: make(chan struct{}), unclaimed: map[uint64]*slot{}}
}

// admit queues a call at the moment it arrives, for a handler to claim.
func (s *scheduler) admit(sequential bool) *slot {
	s.mu.Lock()
	defer s.mu.Unlock()
	sl := s.admitLocked(sequential)
	s.unclaimed[sl.ticket] = sl
	return sl
}

// admitClaimed queues a call that arrives at its handler unstamped.
func (s *scheduler) admitClaimed(sequential bool) *slot {
	s.mu.Lock()
	defer s.mu.Unlock()
	sl := s.admitLocked(sequential)
	sl.claimed = true
	return sl
}

func (s *scheduler) admitLocked(sequential bool) *slot {
	s.next++
	sl := &slot{s: s, ticket: s.next, sequential: sequential}
	s.pending = append(s.pending, sl)
	return sl
}

// claim hands the slot with this ticket to the call's handler, once; nil
// when there is none (a call that did not come through a stamping
// transport, or a ticket a client made up).
func (s *scheduler) claim(ticket uint64) *slot {
	s.mu.Lock()
	defer s.mu.Unlock()
	sl := s.unclaimed[ticket]
	if sl != nil {
		delete(s.unclaimed, ticket)
		sl.claimed = true
	}
	return sl
}

// abandon gives up a slot no handler took: its call will never run.
func (sl *slot) abandon() {
	sl.s.mu.Lock()
	defer sl.s.mu.Unlock()
	if !sl.claimed {
		sl.releaseLocked()
	}
}

// mayRun says whether sl may start now. Call with s.mu held.
func (s *scheduler) mayRun(sl *slot) bool {
	for _, p := range s.pending {
		if p == sl {
			return true
		}
		if sl.sequential || p.sequential {
			return false
		}
	}
	return true // already done
}

// wait blocks until the call may run, or ctx ends (then the slot is given
// up and the error returned).
func (sl *slot) wait(ctx context.Context) error {
	s := sl.s
	for {
		s.mu.Lock()
		if s.mayRun(sl) {
			s.mu.Unlock()
			return nil
		}
		ch := s.changed
		s.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			sl.release()
			return ctx.Err()
		}
	}
}

// release ends the call's turn; calling it again does nothing.
func (sl *slot) release() {
	sl.s.mu.Lock()
	defer sl.s.mu.Unlock()
	sl.releaseLocked()
}

func (sl *slot) releaseLocked() {
	s := sl.s
	if sl.done {
		return
	}
	sl.done = true
	delete(s.unclaimed, sl.ticket)
	for i, p := range s.pending {
		if p == sl {
			s.pending = append(s.pending[:i], s.pending[i+1:]...)
			break
		}
	}
	close(s.changed)
	s.changed = make(chan struct{})
}

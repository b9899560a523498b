//go:build !ompi && !mpich

package mpi

// Schedules built with closures: the builder interface collectives had
// before they became data (coll_sched.go), kept for code still written
// against it (a round as a literal with an after closure, a local round
// as a function). Such a schedule allocates when built, and a persistent
// one is built again at each Start, since its closures may keep state
// between rounds. New collectives use the builders of coll_sched.go;
// port the callers and delete this file.

// collRound is one round of a closure-built schedule: post the receives,
// start the sends, and when all have completed run after (if any).
type collRound struct {
	recvs []collXfer
	sends []collXfer
	after func()
}

// round appends r to s.
func (s *schedule) round(r collRound) {
	s.next()
	for _, x := range r.recvs {
		s.recv(x.peer, x.buf)
	}
	for _, x := range r.sends {
		s.send(x.peer, x.buf)
	}
	if r.after != nil {
		s.funcStep(r.after)
	}
}

// local appends a round with no messages that runs f.
func (s *schedule) local(f func()) {
	s.nextLocal()
	s.funcStep(f)
}

func (s *schedule) funcStep(f func()) {
	s.steps = append(s.steps, collStep{kind: stepFunc, fn: f})
	s.last().s1++
}

// runColl runs the closure-built schedule s as a blocking collective.
func (c *Comm) runColl(what string, s *schedule) error {
	return c.blocking(what, func(t *schedule) error { *t = *s; return nil })
}

// startNonblocking starts the closure-built schedule s and returns its
// request.
func (c *Comm) startNonblocking(s *schedule) (*Request, error) {
	return c.nonblocking("collective", func(t *schedule) error { *t = *s; return nil })
}

// persistent binds a persistent collective whose schedule build makes
// (with closures) afresh for each Start.
func (c *Comm) persistent(what string, build func(string) (*schedule, error)) (*Persistent, error) {
	s, err := build(what)
	if err != nil {
		return nil, err
	}
	p, err := c.persist(what, func(t *schedule) error { *t = *s; return nil })
	if err != nil {
		return nil, err
	}
	p.rebuild = build
	return p, nil
}

// clone copies a count or displacement list the caller may change after
// binding a persistent collective (nil stays nil: a non-root's lists).
func clone(v []int) []int {
	if v == nil {
		return nil
	}
	return append([]int(nil), v...)
}

package cacheline

// nearest says where a load of a Shared line is served from: the LLC when a
// sharer is in the requester's LLC group, else the nearest group holding it.
func (s *System) nearest(core int, l *Line) Distance {
	if l.byGroup[s.group[core]] > 0 {
		return LLC
	}
	near := OtherSocket
	for g, n := range l.byGroup {
		if n > 0 {
			near = min(near, s.groupDistance(core, g))
		}
	}
	return near
}

// ownership serves a store or RMW by core, which does not own l: the data
// comes from the owner, or the copies held elsewhere are invalidated by one
// broadcast whose cost is set by the farthest of them. It returns where the
// line comes from and the owner that gives it up, or -1.
func (s *System) ownership(core int, l *Line) (Distance, int) {
	st := &l.Stats
	var from Distance
	owner := l.owner
	switch {
	case l.owner >= 0:
		from = s.Distance(l.owner, core)
		if l.dirty {
			st.HITM++
		}
		st.Invalidations++
	case l.nsharers > 0:
		far, others := s.farthest(core, l)
		st.Invalidations += uint64(others)
		from = far
		if others == 0 {
			from = LLC // the only sharer upgrades: the home grants ownership
		}
		s.clearSharers(l)
	default:
		from = Memory
	}
	l.owner, l.dirty, l.fwd = core, true, -1
	return from, owner
}

// farthest returns the farthest distance from core to another sharer of l,
// and how many other sharers there are. It looks at LLC groups, not cores.
func (s *System) farthest(core int, l *Line) (Distance, int) {
	far, others := Local, 0
	mine := int(s.group[core])
	for g, n := range l.byGroup {
		if n == 0 {
			continue
		}
		k := int(n)
		d := s.groupDistance(core, g)
		if g == mine {
			if l.isSharer(core) {
				k--
			}
			sib := 0
			for _, o := range s.siblings[core] {
				if l.isSharer(int(o)) {
					sib++
				}
			}
			if k == sib {
				d = SMTSibling
			}
		}
		if k > 0 {
			far, others = max(far, d), others+k
		}
	}
	return far, others
}

func (s *System) addSharer(l *Line, c int) {
	if !l.isSharer(c) {
		l.sharers[c>>6] |= 1 << uint(c&63)
		l.nsharers++
		l.byGroup[s.group[c]]++
	}
}

func (s *System) clearSharers(l *Line) {
	if l.nsharers == 0 {
		return
	}
	clear(l.sharers)
	clear(l.byGroup)
	l.nsharers = 0
}

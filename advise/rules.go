package advise

import (
	"slices"
	"strings"

	"contend/scenarios"
)

// rule is one design change. derive returns the variants it makes of the
// subject, none when the change does not apply.
type rule struct {
	name   string
	derive func(*Subject) []Candidate
}

// rules are tried in this order; a candidate that another rule already made
// (the same steps) is kept once, under the first rule.
var rules = []rule{
	{"percpu", perCPU},
	{"percpu-unlocked", perCPUUnlocked},
	{"percpu_ref", percpuRef},
	{"qspinlock", queued("qspinlock")},
	{"mcs", queued("mcs")},
	{"claim-store", claimStore},
	{"prefetch-next", prefetchNext},
	{"rcu-readers", rcuReaders},
	{"call_rcu", deferFree(scenarios.StepCallRCU)},
	{"queue_rcu_work", deferFree(scenarios.StepQueueRCUWork)},
	{"own-line", ownLine},
	{"split", split},
	{"combined", combined},
}

// perCPU: a line that more than one CPU wrote in the base run (a store or
// an atomic outside any once_per_jiffy gate) is written on a per-cpu line
// instead, which never moves. When some step also reads the line (a load,
// or a once_per_jiffy gate on it), the readers need the total: each write
// then also flushes to the shared line at most once per jiffy per CPU (the
// lazy counter of seed 004). One candidate per line, and one with all of
// them when there are several.
func perCPU(sub *Subject) []Candidate {
	lines := sub.sharedWrites()
	var out []Candidate
	for _, l := range lines {
		out = append(out, sub.makePerCPU([]string{l}))
	}
	if len(lines) > 1 {
		c := sub.makePerCPU(lines)
		c.Variant = "percpu-all"
		out = append(out, c)
	}
	return out
}

// sharedWrites lists the lines the subject writes outside gates, its
// call_rcu callbacks included, that more than one CPU wrote in the base
// run, in order of first write.
func (sub *Subject) sharedWrites() []string {
	var out []string
	var visit func([]Step)
	visit = func(steps []Step) {
		for _, st := range steps {
			if st.Kind == scenarios.StepCallRCU {
				visit(st.Steps)
				continue
			}
			if isWrite(st.Kind) && sub.Shared[st.Arg] && !slices.Contains(out, st.Arg) {
				if l, ok := sub.line(st.Arg); ok && !l.PerCPU {
					out = append(out, st.Arg)
				}
			}
		}
	}
	visit(sub.Steps)
	return out
}

// read says whether some step reads line: a load, or a jiffy gate on it.
func (sub *Subject) read(line string) bool {
	found := false
	walk(sub.Steps, func(st Step) {
		found = found || (st.Kind == scenarios.StepLoad || st.Kind == scenarios.StepOncePerJiffy) && st.Arg == line
	})
	return found
}

func isWrite(k scenarios.StepKind) bool { return k == scenarios.StepStore || k == scenarios.StepRMW }

// makePerCPU moves the writes of names to per-cpu lines, as per-cpu
// updates without a lock prefix.
func (sub *Subject) makePerCPU(names []string) Candidate {
	var c Candidate
	var what []string
	to := map[string]string{}
	read := map[string]bool{}
	for _, n := range names {
		to[n] = sub.fresh(n+"_pcpu", false, nil)
		c.Lines = append(c.Lines, Line{Name: to[n], PerCPU: true})
		read[n] = sub.read(n)
		if read[n] {
			what = append(what, "per-cpu "+n+", flushed once per jiffy")
		} else {
			what = append(what, "per-cpu "+n)
		}
	}
	// A call_rcu's callback is rewritten as the variant's own steps are;
	// a jiffy gate's body is left as it is.
	c.Steps = mapSteps(sub.Steps, func(st Step) ([]Step, bool) {
		switch {
		case st.Steps != nil && st.Kind != scenarios.StepCallRCU:
			return []Step{st}, true
		case !isWrite(st.Kind) || to[st.Arg] == "":
			return nil, false
		}
		// this_cpu_add(): no lock prefix, a store to a line the CPU keeps
		// (incl %fs:(...) on x86).
		out := []Step{{Kind: scenarios.StepStore, Arg: to[st.Arg], Label: st.Label}}
		if read[st.Arg] {
			out = append(out, Step{Kind: scenarios.StepOncePerJiffy, Arg: "percpu", Label: st.Label, Steps: []Step{st}})
		}
		return out, true
	})
	c.Variant = "percpu-" + strings.Join(names, "-")
	c.What = strings.Join(what, "; ")
	return c
}

// perCPUUnlocked: after every shared line is made per-cpu (perCPU), a
// spinlock whose every critical section writes only per-cpu lines, at least
// one of them made so, and reads no line that is still written outside a
// gate, protects nothing shared any more: its lock and unlock steps go
// (seed 000's patch: no qdisc lock, per-cpu stats). A flush inside a gate
// needs no lock: the kernel's is an atomic add.
func perCPUUnlocked(sub *Subject) []Candidate {
	lines := sub.sharedWrites()
	if len(lines) == 0 {
		return nil
	}
	c := sub.makePerCPU(lines)
	var gone []string
	for _, name := range used(c.Steps, scenarios.StepLock) {
		if l, _ := sub.lock(name); isSpinlock(l.Kind) && sub.unshared(c, name) {
			gone = append(gone, name)
		}
	}
	if len(gone) == 0 {
		return nil
	}
	c.Steps = mapSteps(c.Steps, func(st Step) ([]Step, bool) {
		return nil, isLockStep(st.Kind) && slices.Contains(gone, st.Arg)
	})
	c.Variant = "percpu-unlocked"
	c.What += "; no " + strings.Join(gone, ", no ")
	return []Candidate{c}
}

func isSpinlock(kind string) bool { return kind != "rwlock" && kind != "mutex" }

// unshared says whether every critical section of lock in c's top-level
// steps touches only per-cpu data, some of it made per-cpu by c.
func (sub *Subject) unshared(c Candidate, lock string) bool {
	written := map[string]bool{}
	for _, st := range c.Steps {
		if isWrite(st.Kind) {
			written[st.Arg] = true
		}
	}
	perCPU := func(line string) bool {
		if slices.ContainsFunc(c.Lines, func(l Line) bool { return l.Name == line }) {
			return true
		}
		l, _ := sub.line(line)
		return l.PerCPU
	}
	in, made := false, false
	for _, st := range c.Steps {
		switch {
		case st.Arg == lock && st.Kind == scenarios.StepLock:
			in = true
		case st.Arg == lock && st.Kind == scenarios.StepUnlock:
			in = false
		case !in:
		case isWrite(st.Kind) && !perCPU(st.Arg), st.Kind == scenarios.StepLoad && written[st.Arg] && !perCPU(st.Arg), st.Kind == scenarios.StepPingPong, st.Kind == scenarios.StepPingPongRead:
			return false
		case isWrite(st.Kind):
			made = made || slices.ContainsFunc(c.Lines, func(l Line) bool { return l.Name == st.Arg })
		}
	}
	// A lock taken inside a gate has sections this does not see.
	inGate := false
	walk(c.Steps, func(st Step) {
		if st.Kind == scenarios.StepOncePerJiffy {
			inGate = inGate || slices.Contains(used(st.Steps, scenarios.StepLock), lock)
		}
	})
	return made && !inGate
}

// queued: a ticket, test-and-set or test-and-test-and-set spinlock becomes
// a queued lock of kind (Linux's qspinlock, or a plain MCS lock): a waiter
// spins on its own node, and a release moves one line to one successor
// instead of making every waiter re-read the lock word.
func queued(kind string) func(*Subject) []Candidate {
	return func(sub *Subject) []Candidate {
		var out []Candidate
		for _, name := range used(sub.Steps, scenarios.StepLock) {
			l, _ := sub.lock(name)
			if l.Kind != "ticket" && l.Kind != "tas" && l.Kind != "ttas" {
				continue
			}
			n := l
			// The queued lock as Linux has it now: no ticket backoff.
			n.Kind, n.Name, n.Backoff, n.Claim, n.PrefetchNext = kind, sub.fresh(name+"_"+kind, false, nil), "", "", nil
			c := sub.replaceLock(name, n)
			c.Variant = kind + "-" + name
			c.What = name + ": " + l.Kind + " → " + kind
			out = append(out, c)
		}
		return out
	}
}

// claimStore: a qspinlock whose queue head takes the lock with a cmpxchg
// loop even when others queue behind it takes it with a plain store of the
// locked byte instead (Linux commit 2c83e8e9492d, 4.2: only the head can
// take it then, so no atomic is needed).
func claimStore(sub *Subject) []Candidate {
	return sub.lockFix("claim-store", "_store", "the queue head claims with a store, not a cmpxchg",
		func(l Lock) bool { return l.Kind == "qspinlock" && l.Claim == "cmpxchg" },
		func(n *Lock) { n.Claim = "" })
}

// prefetchNext: a qspinlock (or CNA) whose new queue head waits on the word
// without first prefetching its successor's node, as before Linux 4.5,
// prefetchw()es it (81b5598665a2), so that the hand-over's store to that
// node finds it in the head's cache.
func prefetchNext(sub *Subject) []Candidate {
	return sub.lockFix("prefetch-next", "_prefetch", "the new queue head prefetches its successor's node",
		func(l Lock) bool {
			return (l.Kind == "qspinlock" || l.Kind == "cna") && l.PrefetchNext != nil && !*l.PrefetchNext
		},
		func(n *Lock) { n.PrefetchNext = nil })
}

// lockFix makes a candidate of each lock the subject takes that applies
// says a later kernel changed: the lock as fix leaves it, under a fresh
// name with suffix, in the place of the old one.
func (sub *Subject) lockFix(rule, suffix, what string, applies func(Lock) bool, fix func(*Lock)) []Candidate {
	var out []Candidate
	for _, name := range used(sub.Steps, scenarios.StepLock) {
		l, _ := sub.lock(name)
		if !applies(l) {
			continue
		}
		n := l
		fix(&n)
		n.Name = sub.fresh(name+suffix, false, nil)
		c := sub.replaceLock(name, n)
		c.Variant = rule + "-" + name
		c.What = name + ": " + what
		out = append(out, c)
	}
	return out
}

// replaceLock points every lock and unlock of name at the new lock n.
func (sub *Subject) replaceLock(name string, n Lock) Candidate {
	steps := mapSteps(sub.Steps, func(st Step) ([]Step, bool) {
		if isLockStep(st.Kind) && st.Arg == name {
			st.Arg = n.Name
			return []Step{st}, true
		}
		return nil, false
	})
	n.replaces = name
	if l, _ := sub.lock(name); l.Line == "" && n.Line == "" {
		n.ownWord = true
	}
	return Candidate{Steps: steps, Locks: []Lock{n}}
}

func isLockStep(k scenarios.StepKind) bool {
	return k == scenarios.StepLock || k == scenarios.StepUnlock
}

// rcuOf is the RCU step that takes the place of an rwlock's read side.
var rcuOf = map[scenarios.StepKind]scenarios.StepKind{
	scenarios.StepReadLock: scenarios.StepRCUReadLock, scenarios.StepReadUnlock: scenarios.StepRCUReadUnlock,
}

// rcuReaders: the read side of an rwlock becomes an RCU read-side critical
// section (Eric Dumazet's plan in seed 004): readers stop writing the lock
// word, so its line stops moving; writers keep the lock.
func rcuReaders(sub *Subject) []Candidate {
	var out []Candidate
	for _, name := range used(sub.Steps, scenarios.StepReadLock) {
		steps := mapSteps(sub.Steps, func(st Step) ([]Step, bool) {
			if rcu, ok := rcuOf[st.Kind]; ok && st.Arg == name {
				return []Step{{Kind: rcu}}, true
			}
			return nil, false
		})
		out = append(out, Candidate{Variant: "rcu-" + name, What: "readers of " + name + " under RCU", Steps: steps})
	}
	return out
}

// deferFree: each synchronize_rcu becomes a deferred free (op: call_rcu, or
// queue_rcu_work as seed 002's fix), which returns at once; the object is
// freed after a later grace period. It frees the size the scenario's other
// deferred frees give (advise cannot know the object), else 0 bytes.
func deferFree(op scenarios.StepKind) func(*Subject) []Candidate {
	return func(sub *Subject) []Candidate {
		found := false
		steps := mapSteps(sub.Steps, func(st Step) ([]Step, bool) {
			if st.Kind != scenarios.StepSynchronizeRCU {
				return nil, false
			}
			found = true
			return []Step{{Kind: op, Bytes: sub.FreeBytes}}, true
		})
		if !found {
			return nil
		}
		return []Candidate{{Variant: op.String(), What: "synchronize_rcu replaced by " + op.String(), Steps: steps}}
	}
}

// ownLine: a spinlock whose word shares a line with the data it protects
// ([[lock]] line) moves to a line of its own, so that spinners reading the
// word no longer take the data's line from the holder. A lockref is such a
// word too, its count beside the lock: moved off the line the other steps
// read (a dentry's name beside its d_lockref), their loads stop fetching
// the line every get and put just took.
func ownLine(sub *Subject) []Candidate {
	var out []Candidate
	locked := used(sub.Steps, scenarios.StepLock)
	names := slices.Clone(locked)
	for _, k := range lockrefKinds {
		for _, n := range used(sub.Steps, k) {
			if !slices.Contains(names, n) {
				names = append(names, n)
			}
		}
	}
	for _, name := range names {
		l, _ := sub.lock(name)
		if l.Line == "" || !isSpinlock(l.Kind) {
			continue
		}
		n := l
		n.Line, n.Name = "", sub.fresh(name+"_own", false, nil)
		c := sub.replaceLockAndLockrefs(name, n)
		c.Variant = "own-line-" + name
		c.What = name + " on its own line (was on " + l.Line + ")"
		if !slices.Contains(locked, name) {
			c.What = name + "'s lockref on its own line (was on " + l.Line + ")"
		}
		out = append(out, c)
	}
	return out
}

// percpuRef: a refcount_t that more than one CPU changes in the base run
// becomes a percpu_ref (lib/percpu-refcount.c): refcount_inc a
// percpu_ref_get and refcount_dec_and_test a percpu_ref_put, each touching
// only the CPU's own counter until the ref is killed. Offered where every
// step on the count is one of the two and no put guards steps of its own
// (a free at zero: a live percpu_ref never reaches it, and where the free
// goes, percpu_ref_kill's release, is the user's to write).
func percpuRef(sub *Subject) []Candidate {
	var out []Candidate
	for _, line := range used(sub.Steps, scenarios.StepRefcountInc) {
		if !sub.Shared[line] {
			continue
		}
		ok := true
		walk(sub.Steps, func(st Step) {
			switch {
			case st.Arg != line:
			case st.Kind == scenarios.StepRefcountInc:
			case st.Kind == scenarios.StepRefcountDecAndTest && len(st.Steps) == 0:
			default:
				ok = false
			}
		})
		if !ok {
			continue
		}
		pcpu := sub.fresh(line+"_pcpu", false, nil)
		steps := mapSteps(sub.Steps, func(st Step) ([]Step, bool) {
			switch {
			case st.Arg != line:
				return nil, false
			case st.Kind == scenarios.StepRefcountInc:
				return []Step{{Kind: scenarios.StepPercpuRefGet, Arg: pcpu, Label: st.Label}}, true
			case st.Kind == scenarios.StepRefcountDecAndTest:
				return []Step{{Kind: scenarios.StepPercpuRefPut, Arg: pcpu, Label: st.Label}}, true
			}
			return nil, false
		})
		out = append(out, Candidate{Variant: "percpu_ref-" + line, What: line + " as a percpu_ref (per-cpu get and put until it is killed)",
			Steps: steps, Lines: []Line{{Name: pcpu, PerCPU: true, PercpuRef: line}}})
	}
	return out
}

// lockrefKinds are the steps that name a spinlock as a lockref's.
var lockrefKinds = []scenarios.StepKind{scenarios.StepLockrefGet, scenarios.StepLockrefGetNotDead, scenarios.StepLockrefPutReturn}

// replaceLockAndLockrefs is replaceLock for a lock that lockref steps name
// too: they follow it.
func (sub *Subject) replaceLockAndLockrefs(name string, n Lock) Candidate {
	c := sub.replaceLock(name, n)
	c.Steps = mapSteps(c.Steps, func(st Step) ([]Step, bool) {
		if slices.Contains(lockrefKinds, st.Kind) && st.Arg == name {
			st.Arg = n.Name
			return []Step{st}, true
		}
		return nil, false
	})
	return c
}

// combined: every change that applies, one after the other, each on what
// the previous made: shared lines per-cpu (and the spinlocks that then
// guard nothing dropped), rwlock readers under RCU, synchronize_rcu
// deferred by call_rcu, locks moved off their data's line, and the ticket
// or test-and-set locks left queued (qspinlock). Where a rule offers
// several variants, the one that changes most (its last). Offered only when
// at least two changes apply: the patch as a series would end.
func combined(sub *Subject) []Candidate {
	cur := *sub
	var c Candidate
	var what []string
	for _, r := range []func(*Subject) []Candidate{perCPUUnlocked, perCPU, rcuReaders,
		deferFree(scenarios.StepCallRCU), ownLine, queued("qspinlock")} {
		for cs := r(&cur); len(cs) > 0; cs = r(&cur) {
			n := cs[len(cs)-1]
			cur.Steps = n.Steps
			cur.Lines = append(slices.Clone(cur.Lines), n.Lines...)
			cur.Locks = append(slices.Clone(cur.Locks), n.Locks...)
			c.Lines, c.Locks = append(c.Lines, n.Lines...), append(c.Locks, n.Locks...)
			what = append(what, n.What)
		}
	}
	if len(what) < 2 {
		return nil
	}
	c.Steps, c.Variant, c.What = cur.Steps, "combined", strings.Join(what, "; ")
	return []Candidate{c}
}

// split: a spinlock whose critical section writes two or more lines
// becomes one lock per line, each held only around its line's steps: two
// counters or queues behind one lock no longer wait for each other. It
// applies to sections of compute, loads and stores only, where each line's
// accesses come together (splitting must not reorder them); a compute step
// goes with the access after it, the last ones with the access before.
// Whether the lines need one lock for an invariant they share is the
// user's to judge: the row says what it would buy.
func split(sub *Subject) []Candidate {
	var out []Candidate
	for _, name := range used(sub.Steps, scenarios.StepLock) {
		l, _ := sub.lock(name)
		if !isSpinlock(l.Kind) {
			continue
		}
		if c, ok := sub.splitLock(l); ok {
			out = append(out, c)
		}
	}
	return out
}

// splitLock splits every section of l in the subject's own steps, and
// reports false when one of them cannot be split.
func (sub *Subject) splitLock(l Lock) (Candidate, bool) {
	locks := map[string]Lock{} // by line
	var order, taken []string
	var steps []Step
	for i := 0; i < len(sub.Steps); i++ {
		st := sub.Steps[i]
		if st.Kind != scenarios.StepLock || st.Arg != l.Name {
			steps = append(steps, st)
			continue
		}
		end := i + 1
		for end < len(sub.Steps) && !(sub.Steps[end].Kind == scenarios.StepUnlock && sub.Steps[end].Arg == l.Name) {
			end++
		}
		groups, lines, ok := byLine(sub.Steps[i+1 : min(end, len(sub.Steps))])
		if !ok || end == len(sub.Steps) || len(lines) < 2 {
			return Candidate{}, false
		}
		for _, line := range lines {
			n, seen := locks[line]
			if !seen {
				n = l
				n.Line, n.Name = "", sub.fresh(l.Name+"_"+line, false, taken)
				taken = append(taken, n.Name)
				n.replaces, n.ownWord = l.Name, l.Line == ""
				locks[line] = n
				order = append(order, line)
			}
			steps = append(steps, Step{Kind: scenarios.StepLock, Arg: n.Name})
			steps = append(steps, groups[line]...)
			steps = append(steps, Step{Kind: scenarios.StepUnlock, Arg: n.Name})
		}
		i = end
	}
	if len(order) == 0 {
		return Candidate{}, false // its sections are all inside gates or blocks
	}
	c := Candidate{Variant: "split-" + l.Name, What: l.Name + " split in one lock per line (" + strings.Join(order, ", ") + ")", Steps: steps}
	for _, line := range order {
		c.Locks = append(c.Locks, locks[line])
	}
	return c, true
}

// byLine groups a critical section's steps by the line each access
// touches, in order of first access, a compute step with the access after
// it; false when the section has other steps or a line's accesses are
// apart.
func byLine(body []Step) (map[string][]Step, []string, bool) {
	groups := map[string][]Step{}
	var pending []Step
	var order []string
	for _, st := range body {
		switch st.Kind {
		case scenarios.StepCompute:
			pending = append(pending, st)
			continue
		case scenarios.StepLoad, scenarios.StepStore, scenarios.StepRMW:
		default:
			return nil, nil, false
		}
		if len(order) > 0 && order[len(order)-1] != st.Arg && slices.Contains(order, st.Arg) {
			return nil, nil, false
		}
		if !slices.Contains(order, st.Arg) {
			order = append(order, st.Arg)
		}
		groups[st.Arg] = append(groups[st.Arg], append(pending, st)...)
		pending = nil
	}
	if len(order) == 0 {
		return nil, nil, false
	}
	last := order[len(order)-1]
	groups[last] = append(groups[last], pending...)
	return groups, order, true
}

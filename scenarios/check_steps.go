package scenarios

import (
	"fmt"
	"slices"
	"strings"
)

// usesOf says which steps take a line or a lock of each kind.
var usesOf = map[string]string{
	"line":                "use load, store, rmw, pingpong or pingpong_read on a line",
	"spinlock":            "use lock and unlock (or lockref_get, lockref_get_not_dead and lockref_put_return) on a spinlock",
	"rwlock":              "use read_lock, read_unlock, write_lock and write_unlock on a rwlock",
	"mutex":               "use mutex_lock and mutex_unlock on a mutex",
	"rw_semaphore":        "use down_read, up_read, down_write and up_write on a rw_semaphore",
	"percpu_rw_semaphore": "use percpu_down_read, percpu_up_read, percpu_down_write and percpu_up_write on a percpu_rw_semaphore",
}

// wants says what kind of name a step's operand must be, for the steps on a
// line or a lock.
var wants = map[StepKind]string{
	StepLoad: "line", StepStore: "line", StepRMW: "line", StepPingPong: "line", StepPingPongRead: "line",
	StepLock: "spinlock", StepUnlock: "spinlock",
	StepReadLock: "rwlock", StepReadUnlock: "rwlock", StepWriteLock: "rwlock", StepWriteUnlock: "rwlock",
	StepMutexLock: "mutex", StepMutexUnlock: "mutex",
	StepPercpuCounterInc: "line", StepPercpuCounterDec: "line",
	StepCmpxchg: "line", StepLockrefGet: "spinlock", StepLockrefGetNotDead: "spinlock", StepLockrefPutReturn: "spinlock",
	StepWriteSeqcountBegin: "line", StepWriteSeqcountEnd: "line", StepReadSeqcount: "line",
	StepWriteSeqlock: "spinlock", StepWriteSequnlock: "spinlock", StepReadSeqbegin: "spinlock",
	StepRefcountInc: "line", StepRefcountDecAndTest: "line", StepRefcountIncNotZero: "line",
	StepPercpuRefGet: "line", StepPercpuRefPut: "line", StepPercpuRefTrygetLive: "line", StepPercpuRefKill: "line",
	StepDownRead: "rw_semaphore", StepUpRead: "rw_semaphore", StepDownWrite: "rw_semaphore", StepUpWrite: "rw_semaphore",
	StepSRCUReadLock: "line", StepSRCUReadUnlock: "line", StepSynchronizeSRCU: "line", StepCallSRCU: "line",
	StepPercpuDownRead: "percpu_rw_semaphore", StepPercpuUpRead: "percpu_rw_semaphore",
	StepPercpuDownWrite: "percpu_rw_semaphore", StepPercpuUpWrite: "percpu_rw_semaphore",
}

// steps checks a step list and returns it parsed.
func (c *checker) steps(where string, anchors []string, steps []stepRaw, names map[string]string, depth int) []Step {
	if depth > 8 {
		c.fail(where, anchors, "once_per_jiffy nests more than 8 deep; a gate inside a gate of the same jiffy never runs its steps twice anyway")
		return nil
	}
	out := make([]Step, 0, len(steps))
	for i := range steps {
		raw := &steps[i]
		field := fmt.Sprintf("%s.steps[%d]", where, i)
		set := kindsOf(raw)
		if len(set) != 1 {
			if len(set) == 0 {
				c.fail(field, anchors, "step %d has no operation; give exactly one of %s", i+1, strings.Join(stepKeys[1:], ", "))
			} else {
				keys := make([]string, len(set))
				for j, k := range set {
					keys[j] = k.String()
				}
				c.fail(field, append(anchors, sameLine(keys...)), "step %d sets %s; a step does exactly one thing, split it into steps", i+1, strings.Join(keys, " and "))
			}
			continue
		}
		st := parseStep(raw, set[0])
		// The step is the line holding its key and operand together.
		at := append(append([]string{}, anchors...), sameLine(st.Kind.String(), st.operand()))
		c.step(field, at, &st, names)
		if st.Independent && st.Kind != StepLoad {
			c.fail(field+".independent", at, "only a load's address can be independent of the loads before it; drop independent = true from this %s", st.Kind)
		}
		c.loopFields(field, at, raw, &st)
		c.seqLine(field, at, &st)
		c.refLine(field, at, &st)
		c.callback(field, at, &st)
		c.free(field, at, &st)
		switch {
		case st.Kind == StepOncePerJiffy:
			if len(raw.Steps) == 0 {
				c.fail(field+".steps", at, "once_per_jiffy needs the steps it guards: steps = [ ... ]")
			}
			st.Steps = c.steps(field, at, raw.Steps, names, depth+1)
		case st.Kind == StepCallRCU && len(raw.Steps) > 0:
			st.Steps = c.inlineCallback(field, at, &st, raw.Steps, names, depth)
		case st.Kind.readSection():
			st.Steps = c.readSection(field, at, &st, raw.Steps, names, depth)
		case st.Kind.guards() && len(raw.Steps) > 0:
			st.Steps = c.steps(field, at, raw.Steps, names, depth+1)
		case st.Kind.hasFallback() && len(raw.Steps) > 0:
			if raw.Fallback == "" {
				st.Steps = c.steps(field, at, raw.Steps, names, depth+1)
			}
		case len(raw.Steps) > 0:
			c.fail(field+".steps", at, "only once_per_jiffy (the steps it guards), call_rcu (its callback's), cmpxchg and lockref_put_return (their fallback's), read_seqcount and read_seqbegin (their read section's), refcount_dec_and_test, refcount_inc_not_zero and percpu_ref_tryget_live (the steps they guard) have nested steps")
		}
		out = append(out, st)
	}
	return out
}

// step checks one step's operand; at leads to it in the file.
func (c *checker) step(field string, at []string, st *Step, names map[string]string) {
	op := st.Kind.String()
	wantName := func(name, kind string) {
		got, ok := names[name]
		if !ok {
			table := "lock"
			if kind == "line" {
				table = "line"
			}
			c.fail(field+"."+op, at, "%q is not a defined %s; add it under [[%s]] or fix the name", name, kind, table)
			return
		}
		if got != kind {
			c.fail(field+"."+op, at, "%q is a %s, but %s needs a %s; %s, or name a %s", name, got, op, kind, usesOf[got], kind)
		}
	}
	switch k := st.Kind; {
	case wants[k] != "":
		wantName(st.Arg, wants[k])
		if (k == StepPingPong || k == StepPingPongRead) && c.perCPU(st.Arg) {
			c.fail(field+"."+op, at, "%q is a per-cpu line: each CPU has its own copy, so no other CPU takes the ball back; ping-pong on a shared line (drop percpu = true, or name another line)", st.Arg)
		}
		if k != StepLoad && k != StepStore && k != StepRMW && c.packed(st.Arg) {
			c.fail(field+"."+op, at, "%q is a per-cpu array packed per_line to a line, whose elements load, store and rmw steps reach; %s needs a line of its own (declare one without per_line)", st.Arg, op)
		}
		if k == StepPercpuCounterInc || k == StepPercpuCounterDec {
			c.counterLine(field+"."+op, at, st.Arg)
		}
	case k == StepCompute || k == StepSleep || k == StepScan:
		d := c.dur(field+"."+op, at, st.Arg, true, MaxStepTime)
		if k == StepSleep && d == (Dur{}) {
			c.fail(field+".sleep", at, "a sleep of 0 wakes at the instant it starts, so simulated time never advances; give it a duration, e.g. \"1us\"")
		}
	case k.freesBytes():
		if st.Bytes < 0 || st.Bytes > MaxFreeBytes {
			c.fail(field+"."+op, at, "%d bytes; the size freed after the grace period is from 0 to %d (MaxFreeBytes)", st.Bytes, int64(MaxFreeBytes))
		}
	case k == StepOncePerJiffy:
		if st.Arg != "percpu" {
			wantName(st.Arg, "line")
		}
		if c.perCPU(st.Arg) {
			c.fail(field+"."+op, at, "%q is a per-cpu line, and a gate's jiffy stamp on it would be one that every CPU shares; write once_per_jiffy = \"percpu\" for each CPU's own stamp, or name a shared line", st.Arg)
		}
	case k == StepBlock:
		// A block's own steps are checked once, where it is defined.
		if _, ok := c.blocks[st.Arg]; !ok {
			c.fail(field+".block", append(at, st.Arg), "%q is not a defined block; define it under [block] or fix the name", st.Arg)
		}
	}
}

// free checks a kfree_rcu's cost to the kworker: only kfree_rcu has one,
// and only when its objects are batched (the kworker frees a batch).
func (c *checker) free(field string, at []string, st *Step) {
	if st.Free == "" {
		return
	}
	if st.Kind != StepKfreeRCU {
		c.fail(field+".free", at, "%s frees nothing in a kworker; only kfree_rcu has a free cost: move it to a kfree_rcu step or drop it", st.Kind)
		return
	}
	c.dur(field+".free", at, st.Free, true, MaxStepTime)
}

// callback checks a call_rcu's callback: only call_rcu has one, and it names
// a block that (with the blocks it calls) only computes and accesses lines.
// A callback runs in softirq, where nothing sleeps, and the model runs it
// between two packets without blocking.
func (c *checker) callback(field string, at []string, st *Step) {
	if st.Callback == "" {
		return
	}
	if st.Kind != StepCallRCU {
		c.fail(field+".callback", at, "%s has no callback; only call_rcu runs one: move it to a call_rcu step or drop it", st.Kind)
		return
	}
	if _, ok := c.blocks[st.Callback]; !ok {
		c.fail(field+".callback", at, "%q is not a defined block; define the callback's steps under [block] or fix the name", st.Callback)
		return
	}
	if where, kind := c.softirqUnsafe(st.Callback, map[string]bool{}); where != "" {
		c.softirqFail(field+".callback", at, where, kind)
	}
}

// inlineCallback checks a call_rcu's callback written in place (steps =
// [...]) as callback checks a named one, and returns it parsed. Its steps
// are a program of their own, run in softirq once a grace period has
// passed: at most MaxProgramSteps, of the kinds a callback can run.
func (c *checker) inlineCallback(field string, at []string, st *Step, raw []stepRaw, names map[string]string, depth int) []Step {
	if st.Callback != "" {
		c.fail(field+".steps", at, "call_rcu names its callback (callback = %q) and writes one in place (steps = [...]); keep one", st.Callback)
		return nil
	}
	steps := c.steps(field, at, raw, names, depth+1)
	if where, kind := c.softirqUnsafeIn(raw, "step ", map[string]bool{}); where != "" {
		c.softirqFail(field+".steps", at, where, kind)
	}
	return steps
}

// softirqFail reports a callback's step (where, of kind) that softirq
// cannot run, for a named callback and one written in place alike.
func (c *checker) softirqFail(field string, at []string, where string, kind StepKind) {
	c.fail(field, at, "the callback's %s is a %s step; a callback runs in softirq, where this model runs only compute, load, store, rmw, percpu_counter and once_per_jiffy steps (and blocks of them): move the %s out of the callback", where, kind, kind)
}

// largestCallback is the size, once its blocks are inlined, of the largest
// call_rcu callback steps reach, through blocks and gates: each callback is
// a program of its own, held to MaxProgramSteps as a variant is.
func largestCallback(steps []Step, blocks map[string][]Step, sizes, memo map[string]int) int {
	most := 0
	for i := range steps {
		st := &steps[i]
		switch {
		case st.Kind == StepCallRCU && st.Callback != "":
			most = max(most, sizes[st.Callback])
		case st.Kind == StepCallRCU:
			most = max(most, expandedSize(st.Steps, sizes))
		case st.Kind == StepBlock:
			m, ok := memo[st.Arg]
			if !ok {
				memo[st.Arg] = 0 // a block that contains itself is reported by blockSizes
				m = largestCallback(blocks[st.Arg], blocks, sizes, memo)
				memo[st.Arg] = m
			}
			most = max(most, m)
		default:
			most = max(most, largestCallback(st.Steps, blocks, sizes, memo))
		}
	}
	return most
}

// perCPU says whether name is a per-cpu line.
func (c *checker) perCPU(name string) bool {
	return slices.ContainsFunc(c.s.Lines, func(x lineRaw) bool { return x.Name == name && x.PerCPU })
}

// counterLine checks that a percpu_counter step names a counter's line.
func (c *checker) counterLine(field string, at []string, name string) {
	i := slices.IndexFunc(c.s.Lines, func(x lineRaw) bool { return x.Name == name })
	if i >= 0 && c.s.Lines[i].PercpuCounter == "" {
		c.fail(field, at, "%q is not a percpu_counter's line; give it percpu = true and percpu_counter = \"<shared line>\" under [[line]]", name)
	}
}

// softirqUnsafe returns the first step of block name (or of a block it
// calls) that a callback cannot run, and its kind; "" if there is none.
func (c *checker) softirqUnsafe(name string, seen map[string]bool) (string, StepKind) {
	if seen[name] {
		return "", 0
	}
	seen[name] = true
	return c.softirqUnsafeIn(c.blocks[name], fmt.Sprintf("block %q step ", name), seen)
}

// softirqUnsafeIn returns the first of steps (or of the gates and blocks
// they hold) that a callback cannot run, named prefix and its number, and
// its kind; "" if there is none. A callback runs computes, accesses,
// percpu_counter steps and jiffy gates of them.
func (c *checker) softirqUnsafeIn(steps []stepRaw, prefix string, seen map[string]bool) (string, StepKind) {
	for i := range steps {
		set := kindsOf(&steps[i])
		if len(set) != 1 {
			continue // reported where the steps are checked
		}
		var where string
		var kind StepKind
		switch k := set[0]; k {
		case StepCompute, StepLoad, StepStore, StepRMW, StepPercpuCounterInc, StepPercpuCounterDec:
		case StepOncePerJiffy:
			where, kind = c.softirqUnsafeIn(steps[i].Steps, fmt.Sprintf("%s%d's step ", prefix, i+1), seen)
		case StepBlock:
			where, kind = c.softirqUnsafe(steps[i].Block, seen)
		default:
			return fmt.Sprintf("%s%d", prefix, i+1), k
		}
		if where != "" {
			return where, kind
		}
	}
	return "", 0
}

// blockSizes checks that no block contains itself and returns how many
// steps each is once inlined (saturating above MaxProgramSteps). Sizes are
// memoised, so blocks that call each other many times cost one visit each.
func (c *checker) blockSizes(blocks map[string][]Step) map[string]int {
	sizes := map[string]int{}
	var visit func(name string, path []string) int
	visit = func(name string, path []string) int {
		if n, ok := sizes[name]; ok {
			return n
		}
		if i := slices.Index(path, name); i >= 0 {
			back := c.from("block." + name)
			c.fail("block."+name, []string{"[block]", keyNeedle(name)}, "block %q contains itself (%s); a block cannot call itself, directly or through others", name, strings.Join(append(path[i:], name), " → "))
			back()
			sizes[name] = 1
			return 1
		}
		var walk func(steps []Step) int
		walk = func(steps []Step) int {
			n := 0
			for i := range steps {
				st := &steps[i]
				switch {
				case st.Kind == StepBlock:
					if _, ok := blocks[st.Arg]; ok {
						n += visit(st.Arg, append(path, name))
						continue
					}
					n++
				case st.Kind == StepCallRCU: // a callback is a program of its own
					n++
				default:
					n += 1 + st.builtinSteps() + walk(st.Steps)
				}
				n = min(n, MaxProgramSteps+1)
			}
			return n
		}
		sizes[name] = walk(blocks[name])
		return sizes[name]
	}
	for _, name := range sortedKeys(blocks) {
		visit(name, nil)
	}
	return sizes
}

// expandedSize is the number of steps a step list compiles to.
func expandedSize(steps []Step, sizes map[string]int) int {
	n := 0
	for i := range steps {
		switch steps[i].Kind {
		case StepBlock:
			n += sizes[steps[i].Arg]
		case StepCallRCU: // a callback is a program of its own
			n++
		default:
			n += 1 + steps[i].builtinSteps() + expandedSize(steps[i].Steps, sizes)
		}
		n = min(n, MaxProgramSteps+1)
	}
	return n
}

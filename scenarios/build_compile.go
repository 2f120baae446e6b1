package scenarios

import (
	"fmt"

	"contend/cacheline"
	"contend/cpu"
	"contend/models"
)

// ball returns the ping-pong ball on a step's line, made on first use.
func (b *builder) ball(st *Step) *models.PingPong {
	if b.balls == nil {
		b.balls = map[string]*models.PingPong{}
	}
	p, ok := b.balls[st.Arg]
	if !ok {
		p = b.w.NewPingPong(b.lines[st.Arg], b.label(st), st.Kind == StepPingPongRead)
		b.balls[st.Arg] = p
	}
	return p
}

// label is the label a step's own time is counted under (labelName).
func (b *builder) label(st *Step) cpu.Label {
	name, ok := st.labelName()
	if !ok {
		panic(fmt.Sprintf("scenarios: a %v step has no label of its own", st.Kind))
	}
	return b.w.M.Label(name)
}

// accessOps are the steps that are a plain access to a line.
var accessOps = map[StepKind]cacheline.Op{StepLoad: cacheline.Load, StepStore: cacheline.Store, StepRMW: cacheline.RMW}

// compile turns checked steps into cpu steps; blocks are inlined and a
// once_per_jiffy gate is followed by the steps it guards.
func (b *builder) compile(steps []Step, depth int, block string) []cpu.Step {
	var out []cpu.Step
	for i := range steps {
		st := &steps[i]
		b.at = append(b.at[:depth], frame{block: block, steps: steps, index: i})
		switch st.Kind {
		case StepOncePerJiffy:
			body := b.compile(st.Steps, depth+1, "")
			var line *cacheline.Line
			if st.Arg != "percpu" {
				line = b.lines[st.Arg]
			}
			out = append(out, b.w.NewJiffyGate(line, b.label(st), len(body)))
			out = append(out, body...)
		case StepBlock:
			out = append(out, b.compile(b.s.Blocks[st.Arg], depth+1, st.Arg)...)
		case StepCmpxchg, StepLockrefGet, StepLockrefGetNotDead, StepLockrefPutReturn:
			out = append(out, b.loop(st, depth)...)
		case StepWriteSeqcountBegin, StepWriteSeqcountEnd, StepReadSeqcount, StepWriteSeqlock, StepWriteSequnlock, StepReadSeqbegin:
			out = append(out, b.seq(st, depth)...)
		case StepPercpuDownWrite:
			s := b.pcpuRwsem[st.Arg]
			out = append(out, &models.PercpuRCUSyncEnter{S: s}, &models.SynchronizeRCU{W: b.w, Label: b.label(st)}, &models.PercpuDownWrite{S: s})
		case StepRefcountInc, StepRefcountDecAndTest, StepRefcountIncNotZero, StepPercpuRefGet, StepPercpuRefPut, StepPercpuRefTrygetLive, StepPercpuRefKill:
			out = append(out, b.ref(st, depth)...)
		case StepCallRCU:
			if len(st.Steps) == 0 {
				out = append(out, b.step(st))
				continue
			}
			// The callback written in place: a program of its own.
			out = append(out, &models.CallRCU{W: b.w, Bytes: st.Bytes, Callback: b.compile(st.Steps, depth+1, "")})
		default:
			step := b.step(st)
			if a, ok := step.(*cpu.AccessStep); ok && st.Kind == StepLoad && storedNext(steps, i) {
				a.Op = cacheline.LoadOwn
			}
			out = append(out, step)
		}
	}
	return out
}

// storedNext says whether the load steps[i] is followed, with only compute
// between, by a store to the same line (x++). The core then reads the line
// for ownership: one transfer, not a read and then an upgrade. On a 2-vCPU
// EPYC guest a load and a store of a line another core holds modified cost
// the same as the load alone (124-129 ns against 119-128 ns, each followed
// by a locked instruction that waits for the store).
func storedNext(steps []Step, i int) bool {
	for _, st := range steps[i+1:] {
		switch {
		case st.Kind == StepCompute:
			continue
		case st.Kind == StepStore && st.Arg == steps[i].Arg:
			return true
		}
		return false
	}
	return false
}

// step compiles a step that is one cpu step.
func (b *builder) step(st *Step) cpu.Step {
	w := b.w
	switch st.Kind {
	case StepCompute:
		return &cpu.ComputeStep{Label: b.label(st), D: b.time(st.Arg)}
	case StepLoad, StepStore, StepRMW:
		return &cpu.AccessStep{Label: b.label(st), Line: b.lines[st.Arg], Op: accessOps[st.Kind], ByCPU: b.packed[st.Arg],
			Independent: st.Independent}
	case StepPingPong, StepPingPongRead:
		return &models.PingPongStep{P: b.ball(st)}
	case StepLock:
		return &models.LockStep{L: b.spin[st.Arg]}
	case StepUnlock:
		return &models.UnlockStep{L: b.spin[st.Arg]}
	case StepReadLock:
		return &models.ReadLockStep{L: b.rw[st.Arg]}
	case StepReadUnlock:
		return &models.ReadUnlockStep{L: b.rw[st.Arg]}
	case StepWriteLock:
		return &models.WriteLockStep{L: b.rw[st.Arg]}
	case StepWriteUnlock:
		return &models.WriteUnlockStep{L: b.rw[st.Arg]}
	case StepMutexLock:
		return &models.MutexLockStep{M: b.mutex[st.Arg]}
	case StepMutexUnlock:
		return &models.MutexUnlockStep{M: b.mutex[st.Arg]}
	case StepDownRead:
		return &models.DownReadStep{S: b.rwsem[st.Arg]}
	case StepUpRead:
		return &models.UpReadStep{S: b.rwsem[st.Arg]}
	case StepDownWrite:
		return &models.DownWriteStep{S: b.rwsem[st.Arg]}
	case StepUpWrite:
		return &models.UpWriteStep{S: b.rwsem[st.Arg]}
	case StepPercpuDownRead:
		return &models.PercpuDownRead{S: b.pcpuRwsem[st.Arg]}
	case StepPercpuUpRead:
		return &models.PercpuUpRead{S: b.pcpuRwsem[st.Arg]}
	case StepPercpuUpWrite:
		return &models.PercpuUpWrite{S: b.pcpuRwsem[st.Arg]}
	case StepSRCUReadLock:
		return &models.SRCUReadLock{S: b.srcu(st.Arg), Label: b.label(st)}
	case StepSRCUReadUnlock:
		return &models.SRCUReadUnlock{S: b.srcu(st.Arg), Label: b.label(st)}
	case StepSynchronizeSRCU:
		return &models.SynchronizeSRCU{S: b.srcu(st.Arg), Label: b.label(st)}
	case StepCallSRCU:
		return &models.CallSRCU{S: b.srcu(st.Arg)}
	case StepRCUReadLockTrace, StepRCUReadUnlockTrace:
		return &models.TraceReadLock{W: w, Line: b.taskLine(), Unlock: st.Kind == StepRCUReadUnlockTrace, Label: b.label(st)}
	case StepPercpuCounterInc, StepPercpuCounterDec:
		delta := int64(1)
		if st.Kind == StepPercpuCounterDec {
			delta = -1
		}
		return &models.PercpuCounterAdd{C: b.counts[st.Arg], Delta: delta, Label: b.label(st)}
	case StepSmpMb:
		return &cpu.FenceStep{Label: b.label(st)}
	case StepRCUReadLock:
		return &models.RCUReadLock{W: w}
	case StepRCUReadUnlock:
		return &models.RCUReadUnlock{W: w}
	case StepSynchronizeRCU:
		return &models.SynchronizeRCU{W: w, Label: b.label(st)}
	case StepCallRCU:
		return &models.CallRCU{W: w, Bytes: st.Bytes, Callback: b.callback(st.Callback)}
	case StepQueueRCUWork:
		return &models.CallRCU{W: w, Bytes: st.Bytes, Work: true}
	case StepKfreeRCU:
		c := &models.CallRCU{W: w, Bytes: st.Bytes, Kfree: true}
		if st.Free != "" {
			c.FreeWork, c.FreeLabel = b.time(st.Free), w.M.Label("kfree_rcu_work")
		}
		return c
	case StepSleep:
		d := b.time(st.Arg)
		if d <= 0 {
			// A sleep that wakes at once is a loop that never advances time.
			b.fail("sleep %q is 0 at this point; a sleep needs a duration longer than 0", st.Arg)
		}
		return &models.SleepStep{W: w, D: d, Label: b.label(st)}
	case StepScan:
		per := b.time(st.Arg)
		if float64(per)*float64(b.items) > float64(MaxStepTime) {
			b.fail("a scan of %v per item over %d items takes longer than %v; fewer items or a cheaper scan", per, b.items, MaxStepTime)
		}
		return &models.ScanStep{W: w, PerItem: per, Label: b.label(st)}
	}
	panic(fmt.Sprintf("scenarios: step kind %v reached the compiler unchecked", st.Kind))
}

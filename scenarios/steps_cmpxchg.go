package scenarios

// The cmpxchg loop and lockref's operations: what a scenario writes and how
// it is checked.
//
//	{ cmpxchg = "refs" }                                      # until it succeeds
//	{ cmpxchg = "refs", retries = 100, fallback = "slow" }    # CMPXCHG_LOOP
//	{ lockref_get = "d_lock" }                                # lib/lockref.c
//	{ lockref_put_return = "d_lock", fallback = "dput_slow" }
//	{ cmpxchg = "refs", retries = 3, steps = [ { lock = "l" }, ... ] } # fallback in place
//	{ lockref_get = "d_lock", relax = true }                  # cpu_relax() after a failed cmpxchg (before v6.2)

// MaxRetries bounds a cmpxchg loop's retries.
const MaxRetries = 1_000_000

// lockrefFallback is how many compiled steps a lockref get's own fallback
// adds after its loop: spin_lock, count++, spin_unlock.
const lockrefFallback = 3

// builtinSteps is how many compiled steps st adds after itself that are
// not written in the file (a lockref get's fallback).
func (st *Step) builtinSteps() int {
	switch st.Kind {
	case StepLockrefGet, StepLockrefGetNotDead:
		return lockrefFallback
	case StepReadSeqcount, StepReadSeqbegin, StepWriteSeqlock, StepWriteSequnlock:
		return 1 // read_seqcount_retry; the seqlock's spinlock step
	case StepPercpuDownWrite:
		return 2 // rcu_sync_enter's synchronize_rcu, then block and the drain
	}
	return 0
}

// loopFields checks a step's retries and fallback: only a cmpxchg loop has
// them, and a fallback names a block, which the step's Steps then call.
func (c *checker) loopFields(field string, at []string, raw *stepRaw, st *Step) {
	op := st.Kind.String()
	if raw.Retries != nil {
		a := append(at, keyNeedle("retries"))
		switch {
		case st.Kind != StepCmpxchg:
			c.fail(field+".retries", a, "%s has no retries; only a cmpxchg step takes them (lockref's loops retry %d times, as lib/lockref.c does): drop retries", op, 100)
		case *raw.Retries < 1 || *raw.Retries > MaxRetries:
			c.fail(field+".retries", a, "%d; retries is from 1 to %d cmpxchgs (leave it out to retry until one succeeds)", *raw.Retries, MaxRetries)
		}
	}
	if raw.Relax && !st.Kind.isLoop() {
		c.fail(field+".relax", append(at, keyNeedle("relax")), "%s has no cmpxchg loop to pause in; only cmpxchg and the lockref operations take relax: drop relax", op)
	}
	if st.Kind == StepCmpxchg && c.perCPU(st.Arg) {
		c.fail(field+".cmpxchg", at, "%q is a per-cpu line: no other CPU changes its word, so the cmpxchg never fails; use rmw on it, or name a shared line", st.Arg)
	}
	if raw.Fallback == "" && len(raw.Steps) == 0 {
		return
	}
	key := "fallback"
	if raw.Fallback == "" {
		key = "steps"
	}
	a := append(at, keyNeedle(key))
	switch _, ok := c.blocks[raw.Fallback]; {
	case !st.Kind.hasFallback():
		if key == "fallback" { // nested steps elsewhere are the checker's to report
			c.fail(field+".fallback", a, "%s has no fallback; only cmpxchg and lockref_put_return take one (lockref_get falls back to the lockref's spinlock itself): drop fallback", op)
		}
	case st.Kind == StepCmpxchg && raw.Retries == nil:
		c.fail(field+"."+key, a, "a cmpxchg without retries loops until it succeeds, so its fallback never runs; add retries = N (lib/lockref.c's CMPXCHG_LOOP has 100) or drop %s", key)
	case key == "steps":
		// The fallback written in place: the checker parses it.
	case len(raw.Steps) > 0:
		c.fail(field+".steps", a, "%s names its fallback (fallback = %q) and writes one in place (steps = [...]); keep one", op, raw.Fallback)
	case !ok:
		c.fail(field+".fallback", a, "%q is not a defined block; define the fallback's steps under [block] or fix the name", raw.Fallback)
	default:
		st.Steps = []Step{{Kind: StepBlock, Arg: raw.Fallback}}
	}
}

// isLoop says whether a step of kind k is a cmpxchg loop: a cmpxchg step or
// one of lockref's operations.
func (k StepKind) isLoop() bool {
	return k == StepCmpxchg || k == StepLockrefGet || k == StepLockrefGetNotDead || k == StepLockrefPutReturn
}

// hasFallback says whether a step of kind k may have a fallback of the
// file's: a cmpxchg loop's, or lockref_put_return's caller's.
func (k StepKind) hasFallback() bool { return k == StepCmpxchg || k == StepLockrefPutReturn }

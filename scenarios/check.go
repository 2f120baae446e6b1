package scenarios

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"contend/cacheline"
	"contend/cpu"
	"contend/models"
	"contend/sim"
)

// Metrics a reference point may name, besides share_of_cycles_<label> and
// offcpu_in_<label>.
var metricUnits = map[string][]string{
	"throughput_per_core":  {"Mpps", "kpps", "pps"},
	"throughput":           {"Mpps", "kpps", "pps"},
	"cost":                 {"ns"},
	"duration":             {"s", "ms"},
	"cpu_util":             {"%"},
	"grace_period":         {"ms"},
	"grace_periods":        {"batches"},
	"drops":                {"%"},
	"cycles_per_packet":    {"cycles"},
	"transfers_per_packet": {"lines"},
}

type checker struct {
	loc    *locator
	origin map[string]*locator  // included definitions, by key (see merge)
	blocks map[string][]stepRaw // every block, to check the steps that call one
	s      *Scenario
	err    *Error
	// ghz converts cycles to time when a duration is checked against its
	// bound: a profile's own clock for its latencies, else the slowest.
	ghz float64
}

// from points errors into the file that defined key (an include) until the
// returned func points them back at the scenario's own file.
func (c *checker) from(key string) func() {
	own := c.loc
	if l, ok := c.origin[key]; ok {
		c.loc = l
	}
	return func() { c.loc = own }
}

func (c *checker) fail(field string, anchors []string, format string, args ...any) {
	if c.err == nil {
		c.err = c.loc.errAt(field, anchors, format, args...)
	}
}

func check(raw *fileRaw, loc *locator) (*Scenario, error) {
	c := &checker{loc: loc, origin: raw.origin, blocks: raw.Block}
	s := &Scenario{Name: raw.Name, Description: raw.Description, File: loc.file,
		Profiles: map[string]*Profile{}, Params: map[string]Value{}, Blocks: map[string][]Step{}}
	c.s = s
	if s.Name == "" {
		c.fail("name", nil, "missing; give the scenario a name, e.g. name = \"ingress\"")
	}
	for _, name := range sortedKeys(raw.Profile) {
		back := c.from("profile." + name)
		c.profile(name, raw.Profile[name])
		back()
	}
	c.ghz = c.slowest()
	back := c.from("kernel")
	c.kernel(raw.Kernel)
	back()
	for _, name := range sortedKeys(raw.Params) {
		back := c.from("params." + name)
		if v, ok := c.value("params."+name, []string{"[params]", keyNeedle(name)}, raw.Params[name]); ok {
			s.Params[name] = v
		}
		back()
	}
	names := map[string]string{}
	for i, l := range raw.Line {
		back := c.from(fmt.Sprintf("line[%d]", i))
		c.line(i, l, names)
		back()
	}
	for i, l := range raw.Line {
		back := c.from(fmt.Sprintf("line[%d]", i))
		c.percpuCounter(l, raw.Line)
		c.percpuRef(l, raw.Line)
		back()
	}
	for i, l := range raw.Lock {
		back := c.from(fmt.Sprintf("lock[%d]", i))
		s.Locks = append(s.Locks, c.lock(i, l, names, raw.Line))
		back()
	}
	s.Lines = raw.Line
	for _, name := range sortedKeys(raw.Block) {
		back := c.from("block." + name)
		s.Blocks[name] = c.steps("block."+name, []string{"[block]", name}, raw.Block[name], names, 0)
		back()
	}
	sizes := c.blockSizes(s.Blocks)
	s.loc, s.origin, s.blockSizes = loc, raw.origin, sizes
	seen, callbacks := map[string]bool{}, map[string]int{}
	var headers []string // one "[[variant]]" per variant so far: the way to the next
	for _, v := range raw.Variant {
		headers = append(headers, "[[variant]]")
		va := append(append([]string{}, headers...), quote(v.Name))
		if v.Name == "" {
			c.fail("variant.name", va, "missing; every variant needs a name")
			continue
		}
		if seen[v.Name] {
			c.fail("variant.name", va, "variant %q defined twice; give each variant its own name", v.Name)
		}
		seen[v.Name] = true
		if len(v.Steps) == 0 {
			c.fail("variant.steps", va, "variant %q has no steps; list its code path", v.Name)
		}
		steps := c.steps("variant."+v.Name, va, v.Steps, names, 0)
		if n := expandedSize(steps, sizes); n > MaxProgramSteps {
			c.fail("variant.steps", va, "variant %q is %s steps once its blocks are inlined; a program has at most %d (MaxProgramSteps): call fewer blocks, or fewer times", v.Name, atLeast(n), MaxProgramSteps)
		}
		if n := largestCallback(steps, s.Blocks, sizes, callbacks); n > MaxProgramSteps {
			c.fail("variant.steps", va, "a call_rcu callback of variant %q is %s steps once its blocks are inlined; a program has at most %d (MaxProgramSteps): call fewer blocks, or fewer times", v.Name, atLeast(n), MaxProgramSteps)
		}
		s.Variants = append(s.Variants, &Variant{Name: v.Name, Description: v.Description, Steps: steps})
	}
	if len(s.Variants) == 0 {
		c.fail("variant", nil, "no variants; add [[variant]] tables with name and steps")
	}
	c.axes(raw.Axes)
	c.workload(raw.Workload)
	c.run(raw.Run)
	for _, axis := range sortedKeys(raw.Sweep) {
		field, at := "sweep."+axis, []string{"[sweep]", keyNeedle(axis)}
		if axis == PlacementAxis {
			c.placements(field, at, raw.Sweep[axis])
			continue
		}
		values, ok := numbers(raw.Sweep[axis])
		if !ok {
			c.fail(field, at, "%s; list the points to sweep as numbers, e.g. [1, 2, 4]", describeTOML(raw.Sweep[axis]))
			continue
		}
		c.axis(field, at, axis, values)
		s.Sweep = append(s.Sweep, Axis{Name: axis, Values: values})
	}
	for i := range raw.Series {
		c.series(i, &raw.Series[i], seen)
	}
	if c.err != nil {
		return nil, c.err
	}
	c.expandPlacements()
	if c.err != nil {
		return nil, c.err
	}
	return s, nil
}

func quote(name string) string {
	if name == "" {
		return ""
	}
	return `"` + name + `"`
}

// headers returns n copies of a table-array header: the anchors that lead to
// its nth table.
func headers(header string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = header
	}
	return out
}

// line and lock check a declaration; a duplicate is placed at the second use
// of the name, the declaration that clashes.
func (c *checker) line(i int, l lineRaw, names map[string]string) {
	a := []string{"[[line]]"}
	if l.Name == "" {
		c.fail(fmt.Sprintf("line[%d].name", i), a, "missing; every line needs a name")
		return
	}
	if k, dup := names[l.Name]; dup {
		c.fail("line.name", append(a, quote(l.Name), quote(l.Name)), "%q is already a %s; names of lines and locks are unique, rename one", l.Name, k)
	}
	names[l.Name] = "line"
}

// percpuCounter checks a line that is a percpu_counter's deltas: it is
// per-cpu, and folds into a shared line.
func (c *checker) percpuCounter(l lineRaw, lines []lineRaw) {
	a := []string{"[[line]]", quote(l.Name)}
	if l.PercpuCounter == "" {
		if l.Batch != nil {
			c.fail("line.batch", append(a, keyNeedle("batch")), "only a percpu_counter's line has a batch; add percpu_counter = \"<shared line>\" or drop batch")
		}
		return
	}
	at := append(a, keyNeedle("percpu_counter"))
	i := slices.IndexFunc(lines, func(x lineRaw) bool { return x.Name == l.PercpuCounter })
	switch {
	case !l.PerCPU:
		c.fail("line.percpu_counter", at, "a percpu_counter's deltas are per cpu; set percpu = true on %q", l.Name)
	case i < 0:
		c.fail("line.percpu_counter", at, "%q is not a defined line; declare the shared line the deltas fold into under [[line]]", l.PercpuCounter)
	case lines[i].PerCPU:
		c.fail("line.percpu_counter", at, "%q is a per-cpu line; the deltas fold into a shared count, name a shared line", l.PercpuCounter)
	}
	if l.Batch != nil && (*l.Batch < 1 || *l.Batch > MaxCount) {
		c.fail("line.batch", append(a, keyNeedle("batch")), "%d; a batch is from 1 to %d (leave it out for Linux's max(32, 2 x CPUs))", *l.Batch, int64(MaxCount))
	}
}

func (c *checker) lock(i int, l lockRaw, names map[string]string, lines []lineRaw) Lock {
	a := []string{"[[lock]]"}
	lk := Lock{Name: l.Name, Kind: l.Kind, Line: l.Line, Backoff: l.Backoff, Claim: l.Claim, Acquire: l.Acquire, Release: l.Release}
	if l.Name == "" {
		c.fail(fmt.Sprintf("lock[%d].name", i), a, "missing; every lock needs a name")
		return lk
	}
	if k, dup := names[l.Name]; dup {
		c.fail("lock.name", append(a, quote(l.Name), quote(l.Name)), "%q is already a %s; names of lines and locks are unique, rename one", l.Name, k)
	}
	lk.class, lk.spin = parseLockKind(l.Kind)
	kind := lk.class.String()
	if lk.class == notALock {
		c.fail("lock.kind", append(a, quote(l.Name), "kind"), "%q is not a lock kind; use ticket, qspinlock, cna, mcs, tas, ttas, rwlock, mutex, rw_semaphore or percpu_rw_semaphore", l.Kind)
	}
	if l.Line != "" {
		at := append(a, quote(l.Name), keyNeedle("line"))
		switch {
		case names[l.Line] != "line":
			c.fail("lock.line", at, "%q is not a defined line; declare it under [[line]] before the lock, or fix the name", l.Line)
		case slices.ContainsFunc(lines, func(x lineRaw) bool { return x.Name == l.Line && x.PerCPU }):
			c.fail("lock.line", at, "%q is a per-cpu line, and a lock word is shared; give the lock a shared line", l.Line)
		}
	}
	if l.Backoff != "" {
		at := append(a, quote(l.Name), keyNeedle("backoff"))
		if l.Kind != "ticket" {
			c.fail("lock.backoff", at, "only a ticket lock backs off in proportion to the tickets ahead; drop backoff or use kind = \"ticket\"")
		}
		c.dur("lock.backoff", at, l.Backoff, true, MaxStepTime)
	}
	if l.Claim != "" {
		at := append(a, quote(l.Name), keyNeedle("claim"))
		switch {
		case lk.spin != models.Qspinlock || lk.class != spinlockClass:
			c.fail("lock.claim", at, "only a qspinlock's queue head claims the lock; drop claim or use kind = \"qspinlock\"")
		case l.Claim != "store" && l.Claim != "cmpxchg":
			c.fail("lock.claim", at, "%q; use \"store\" (set_locked, Linux 4.2 on) or \"cmpxchg\" (before commit 2c83e8e9492d)", l.Claim)
		}
	}
	names[l.Name] = kind
	return lk
}

// dur parses a duration (or, with allowParam, names a param) and checks that
// it lies within most at the checker's clock.
func (c *checker) dur(field string, anchors []string, s string, allowParam bool, most sim.Time) Dur {
	d, literal, err := parseDur(s)
	if err != nil {
		c.fail(field, anchors, "%v", err)
		return d
	}
	if literal {
		c.bound(field, anchors, s, d, most)
	}
	if !literal {
		if !allowParam {
			c.fail(field, anchors, "%q is not a duration; write a number with a unit such as \"25ns\"", s)
			return d
		}
		p, ok := c.s.Params[s]
		switch {
		case !ok:
			c.fail(field, anchors, "%q is neither a duration nor a param; define it under [params] or write e.g. \"25ns\"", s)
		case !p.IsTime:
			c.fail(field, anchors, "param %q is a plain number, not a duration; give it a unit under [params] (e.g. \"25ns\") or write a duration here", s)
		}
		return p.Dur
	}
	return d
}

// bound fails a duration d, written as s, that is longer than most at the
// checker's clock.
func (c *checker) bound(field string, anchors []string, s string, d Dur, most sim.Time) {
	if c.ghz <= 0 {
		return // the clock is wrong, and already reported
	}
	if _, ok := timeAt(d, c.ghz, most); !ok {
		c.fail(field, anchors, "%q is %s at %v GHz; contend takes durations of at most %v here: give a shorter one", s, describeTime(d, c.ghz), c.ghz, most)
	}
}

// describeTime says how long d is at ghz, in words that survive overflow.
func describeTime(d Dur, ghz float64) string {
	ps := d.PS + d.Cycles/ghz*1000
	if !finite(ps) || ps > 1e30 {
		return "beyond any clock"
	}
	return fmt.Sprintf("%.3g s", ps/1e12)
}

// slowest returns the slowest valid clock of the scenario's profiles: the one
// at which a number of cycles lasts longest.
func (c *checker) slowest() float64 {
	ghz := 0.0
	for _, p := range c.s.Profiles {
		if p.GHz >= MinGHz && p.GHz <= 100 && (ghz == 0 || p.GHz < ghz) {
			ghz = p.GHz
		}
	}
	return ghz
}

func (c *checker) value(field string, anchors []string, v any) (Value, bool) {
	switch x := v.(type) {
	case string:
		d, literal, err := parseDur(x)
		if err != nil && literal {
			c.fail(field, anchors, "%v; a param is a duration (\"25ns\") or a number", err)
			return Value{}, false
		}
		if err != nil || !literal {
			c.fail(field, anchors, "%q is not a duration; a param is a duration (\"25ns\") or a number", x)
			return Value{}, false
		}
		c.bound(field, anchors, x, d, MaxStepTime)
		return Value{Dur: d, IsTime: true}, true
	case int64:
		return Value{Num: float64(x)}, true
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			c.fail(field, anchors, "not a finite number")
			return Value{}, false
		}
		return Value{Num: x}, true
	}
	c.fail(field, anchors, "%s; a param is a duration (\"25ns\") or a number", valueType(v))
	return Value{}, false
}

func (c *checker) profile(name string, p profileRaw) {
	a := []string{"[profile." + name + "]"}
	pr := &Profile{Description: p.Description, Source: p.Source, durs: map[string]Dur{}, Spread: map[string]Dur{}}
	pr.Name = name
	need := func(field string, ok bool) {
		if !ok {
			c.fail("profile."+name+"."+field, a, "missing; every profile gives %s", field)
		}
	}
	need("ghz", p.GHz != nil)
	need("sockets", p.Sockets != nil)
	need("cores_per_socket", p.CoresPerSocket != nil)
	if p.GHz != nil {
		pr.GHz = *p.GHz
		if pr.GHz > 0 && pr.GHz < MinGHz {
			c.fail("profile."+name+".ghz", append(a, keyNeedle("ghz")), "%v GHz; contend takes clocks from %v GHz (MinGHz): give the core clock in GHz, e.g. 2.8", pr.GHz, MinGHz)
		}
	}
	c.ghz = pr.GHz
	if p.Sockets != nil {
		pr.Sockets = *p.Sockets
	}
	if p.CoresPerSocket != nil {
		pr.CoresPerSocket = *p.CoresPerSocket
	}
	pr.ThreadsPerCore = 1
	if p.ThreadsPerCore != nil {
		pr.ThreadsPerCore = *p.ThreadsPerCore
	}
	if p.AtomicOverlap != nil {
		pr.AtomicOverlap = *p.AtomicOverlap
	}
	if p.CoresPerLLC != nil {
		pr.CoresPerLLC = *p.CoresPerLLC
	}
	if p.StoreBuffer != nil {
		pr.StoreBuffer = *p.StoreBuffer
	}
	// cpu takes 0 in these counts for its default, which is not what a
	// file that writes 0 says.
	for _, f := range []struct {
		key string
		v   *int
		why string
	}{
		{"store_buffer", p.StoreBuffer, fmt.Sprintf("0 entries; a store buffer holds at least 1 store: give its size, or leave store_buffer out for the default of %d", cpu.DefaultStoreBuffer)},
		{"cores_per_llc", p.CoresPerLLC, "0 cores; at least 1 core shares an LLC: give how many do, or leave cores_per_llc out for one LLC per socket"},
	} {
		if f.v != nil && *f.v == 0 {
			c.fail("profile."+name+"."+f.key, append(a, keyNeedle(f.key)), "%s", f.why)
		}
	}
	pr.Snoop = cpu.DefaultSnoop
	if p.Snoop != nil {
		pr.Snoop = *p.Snoop
	}
	pr.SnoopGiven = p.Snoop != nil || p.SnoopWindow != ""
	for _, f := range []struct{ key, val string }{
		{"l1_hit", p.L1Hit}, {"smt_sibling", p.SMTSibling}, {"same_socket", p.SameSocket},
		{"other_socket", p.OtherSocket}, {"memory", p.Memory}, {"atomic", p.Atomic}, {"wakeup", p.Wakeup},
		{"store_drain", p.StoreDrain}, {"llc_hit", p.LLCHit}, {"other_llc", p.OtherLLC}, {"pause", p.Pause},
		{"llc_occupancy", p.LLCOccupancy}, {"snoop_window", p.SnoopWindow},
	} {
		if f.val == "" && optionalLatency[f.key] {
			continue
		}
		if f.val == "" {
			c.fail("profile."+name+"."+f.key, a, "missing; give it as a duration, e.g. %s = \"40ns\"", f.key)
			continue
		}
		val, spread, ok := strings.Cut(f.val, "±")
		pr.durs[f.key] = c.dur("profile."+name+"."+f.key, append(a, keyNeedle(f.key)), val, false, MaxStepTime)
		if ok {
			pr.Spread[f.key] = c.dur("profile."+name+"."+f.key+" spread", append(a, keyNeedle(f.key)), spread, false, MaxStepTime)
		}
	}
	switch p.Coherence {
	case "", "mesif":
	case "moesi":
		pr.Forward = cacheline.ForwardOwner
	default:
		c.fail("profile."+name+".coherence", append(a, keyNeedle("coherence")), "%q; use \"mesif\" (Intel: the LLC serves a shared line, the default) or \"moesi\" (AMD: the core that shared it forwards it)", p.Coherence)
	}
	switch p.LoadModified {
	case "", "share":
	case "migrate":
		pr.Migrate = true
	default:
		c.fail("profile."+name+".load_modified", append(a, keyNeedle("load_modified")), "%q; use \"share\" (a load of a line modified elsewhere leaves its owner a copy, the default) or \"migrate\" (the reader takes the line, as contend calibrate finds on some Intel parts)", p.LoadModified)
	}
	if p.SnoopWindow != "" && p.Snoop != nil {
		c.fail("profile."+name+".snoop", append(a, keyNeedle("snoop")), "snoop and snoop_window both say how long an owner keeps a line being taken; give one")
	}
	switch p.Jitter {
	case "", "uniform":
		pr.Jitter, pr.CV = cpu.UniformJitter, cpu.DefaultCV
	case "none":
	case "exponential":
		pr.Jitter = cpu.ExponentialJitter
	default:
		c.fail("profile."+name+".jitter", append(a, keyNeedle("jitter")), "%q; use \"uniform\" (the default), \"none\" or \"exponential\"", p.Jitter)
	}
	if p.CV != nil {
		if pr.Jitter != cpu.UniformJitter {
			c.fail("profile."+name+".cv", append(a, keyNeedle("cv")), "cv sets uniform jitter's spread, but jitter = %q; drop cv or use jitter = \"uniform\"", p.Jitter)
		}
		pr.CV = *p.CV
	}
	if c.err == nil {
		pr.resolve()
		if p.Pause == "" {
			pr.Pause = pr.Cycles(cpu.DefaultPauseCycles)
		}
		if err := pr.Validate(); err != nil {
			field, anchors, msg := "profile."+name, a, err.Error()
			// cpu names the field: `profile "NAME": FIELD: what is wrong; the fix`.
			if rest, ok := strings.CutPrefix(msg, fmt.Sprintf("profile %q: ", name)); ok {
				if key, why, ok := strings.Cut(rest, ": "); ok {
					field, anchors, msg = field+"."+key, append(a, keyNeedle(key)), why
				}
			}
			c.fail(field, anchors, "%s", msg)
		}
	}
	c.s.Profiles[name] = pr
}

// optionalLatency are the profile latencies a file may leave out: a zero
// store_drain and pause, an llc_hit and other_llc equal to same_socket.
var optionalLatency = map[string]bool{"store_drain": true, "llc_hit": true, "other_llc": true, "pause": true, "llc_occupancy": true, "snoop_window": true}

// resolve turns the written latencies into times at the profile's clock.
func (p *Profile) resolve() {
	for key, d := range p.durs {
		*p.field(key) = d.Time(p.GHz)
	}
}

func (p *Profile) field(key string) *sim.Time {
	switch key {
	case "l1_hit":
		return &p.L1Hit
	case "smt_sibling":
		return &p.SMTSibling
	case "same_socket":
		return &p.SameSocket
	case "other_socket":
		return &p.OtherSocket
	case "memory":
		return &p.Memory
	case "atomic":
		return &p.Atomic
	case "wakeup":
		return &p.Wakeup
	case "store_drain":
		return &p.StoreDrain
	case "llc_hit":
		return &p.LLCHit
	case "other_llc":
		return &p.OtherLLC
	case "pause":
		return &p.Pause
	case "llc_occupancy":
		return &p.LLCOccupancy
	case "snoop_window":
		return &p.Window
	}
	return nil
}

func (c *checker) kernel(k *kernelRaw) {
	kern := models.DefaultKernel()
	if k != nil {
		c.kernelPreset(k, &kern)
		c.kernelOverrides(k, &kern)
	}
	a := []string{"[kernel]"}
	hz := models.DefaultKernel()
	hz.HZ = kern.HZ
	if err := models.CheckKernel(&hz); err != nil {
		c.fail("kernel.hz", append(a, keyNeedle("hz")), "%s", strings.TrimPrefix(err.Error(), "kernel: hz: "))
	}
	for _, f := range []struct {
		key string
		v   int
	}{
		{"jiffies_till_first_fqs", kern.JiffiesTillFirstFQS}, {"jiffies_till_next_fqs", kern.JiffiesTillNextFQS},
		{"jiffies_to_sched_qs", kern.JiffiesToSchedQS},
	} {
		if f.v < 0 {
			c.fail("kernel."+f.key, append(a, keyNeedle(f.key)), "%d; give a number of jiffies, at least 0 (0 takes the kernel's default)", f.v)
		}
		if most := maxJiffies(f.key, kern.HZ); f.v > most {
			c.fail("kernel."+f.key, append(a, keyNeedle(f.key)), "%d jiffies; give at most %d at hz = %d (%s)", f.v, most, kern.HZ, jiffiesWhy[f.key])
		}
	}
	if kern.NrCPUIDs < 0 || kern.NrCPUIDs > cpu.MaxCPUs {
		c.fail("kernel.nr_cpu_ids", append(a, keyNeedle("nr_cpu_ids")), "%d; give the number of possible CPUs, 1 to %d (0 takes the machine's)", kern.NrCPUIDs, cpu.MaxCPUs)
	}
	probe := kern
	if err := models.CheckKernel(&probe); err != nil {
		c.fail("kernel", a, "%v", err)
	}
	c.s.Kernel = kern
}

// kernelPreset applies the version's defaults and refuses a setting the
// version does not have.
func (c *checker) kernelPreset(k *kernelRaw, kern *models.Kernel) {
	if k.Version == "" {
		return
	}
	at := []string{"[kernel]", keyNeedle("version")}
	p, err := models.FindPreset(k.Version)
	if err != nil {
		c.fail("kernel.version", at, "%s", strings.TrimPrefix(err.Error(), "kernel: "))
		return
	}
	p.Apply(kern)
	if k.Lazy != nil && *k.Lazy && !p.LazyAvail {
		c.fail("kernel.lazy", []string{"[kernel]", keyNeedle("lazy")}, "kernel %s has no CONFIG_RCU_LAZY (6.2 and later); remove lazy or name a later version", p.Version)
	}
	if k.FastNoHZ != nil && *k.FastNoHZ && !p.FastNoHZAvail {
		c.fail("kernel.fast_no_hz", []string{"[kernel]", keyNeedle("fast_no_hz")}, "kernel %s has no CONFIG_RCU_FAST_NO_HZ (removed in 5.17); remove fast_no_hz or name an earlier version", p.Version)
	}
}

// kernelOverrides sets what the file gives one by one over the preset.
func (c *checker) kernelOverrides(k *kernelRaw, kern *models.Kernel) {
	set := func(dst *int, src *int) {
		if src != nil {
			*dst = *src
		}
	}
	set(&kern.HZ, k.HZ)
	set(&kern.NrCPUIDs, k.NrCPUIDs)
	set(&kern.JiffiesTillFirstFQS, k.JiffiesTillFirstFQS)
	set(&kern.JiffiesTillNextFQS, k.JiffiesTillNextFQS)
	set(&kern.JiffiesToSchedQS, k.JiffiesToSchedQS)
	flag := func(dst *bool, src *bool) {
		if src != nil {
			*dst = *src
		}
	}
	flag(&kern.SoftirqQS, k.SoftirqQS)
	flag(&kern.Expedited, k.Expedited)
	flag(&kern.FastNoHZ, k.FastNoHZ)
	flag(&kern.Lazy, k.Lazy)
	flag(&kern.TimerWheel, k.TimerWheel)
	flag(&kern.NodeWalk, k.NodeWalk)
	flag(&kern.NOCB, k.NOCB)
	flag(&kern.KthreadCPU, k.KthreadCPU)
	flag(&kern.SkewTick, k.SkewTick)
	if k.IdleWakeups != nil {
		if v := *k.IdleWakeups; v < 0 || v > 1e6 {
			c.fail("kernel.idle_wakeups", []string{"[kernel]", keyNeedle("idle_wakeups")}, "%g; give how often an idle CPU wakes on its own, 0 to 1e6 a second (0: never)", v)
		} else {
			kern.IdleWakeups = v
		}
	}
	if k.IdleWakeupTime != "" {
		kern.IdleWakeupTime = c.dur("kernel.idle_wakeup_time", []string{"[kernel]", keyNeedle("idle_wakeup_time")}, k.IdleWakeupTime, false, MaxStepTime).Time(1)
	}
	if (kern.IdleWakeups > 0) != (kern.IdleWakeupTime > 0) {
		c.fail("kernel.idle_wakeups", []string{"[kernel]"}, "idle_wakeups and idle_wakeup_time go together: give both (e.g. idle_wakeups = 100, idle_wakeup_time = \"20us\") or neither")
	}
	if k.UseSoftirq != nil {
		kern.RCUC = !*k.UseSoftirq
	}
	if k.WakeFromGP != nil {
		kern.WakeFromGP = models.Off
		if *k.WakeFromGP {
			kern.WakeFromGP = models.On
		}
	}
	if k.KfreeBatch != nil {
		kern.Kfree = models.KfreePerObject
		if *k.KfreeBatch {
			kern.Kfree = models.KfreeBatch
		}
	}
	if k.IPI != "" {
		kern.IPI = c.dur("kernel.ipi", []string{"[kernel]", keyNeedle("ipi")}, k.IPI, false, MaxStepTime).Time(1)
	}
}

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

// placement reads where the workload's threads run: a CPU list or a
// placement policy, not both.
func (c *checker) placement(w *workloadRaw, wl *Workload) {
	a := []string{"[workload]"}
	if w.Placement != "" {
		p, ok := cpu.ParsePlacement(w.Placement)
		if !ok {
			c.fail("workload.placement", append(a, keyNeedle("placement")), "%q; use %s", w.Placement, orList(cpu.PlacementNames()))
		}
		wl.Placement = p
	}
	if w.CPUs == "" {
		return
	}
	if w.Placement != "" {
		c.fail("workload.cpus", append(a, keyNeedle("cpus")), "cpus and placement both say where the threads run; keep one")
		return
	}
	cpus, err := cpu.ParseCPUList(w.CPUs)
	if err != nil {
		c.fail("workload.cpus", append(a, keyNeedle("cpus")), "%v", err)
	}
	wl.CPUs = cpus
}

func (c *checker) workload(w *workloadRaw) {
	a := []string{"[workload]"}
	wl := Workload{Kind: WorkloadFlood, Cores: 1, Ring: 1024, BatchOps: 1, BatchCPU: -1}
	if w == nil {
		c.fail("workload", nil, "missing; add a [workload] table with kind = \"flood\", \"batch\" or \"both\"")
		return
	}
	if w.Kind != "" {
		k, ok := parseWorkloadKind(w.Kind)
		if !ok {
			c.fail("workload.kind", append(a, keyNeedle("kind")), "%q; use \"flood\", \"batch\" or \"both\"", w.Kind)
		}
		wl.Kind = k
	}
	if w.Cores != nil {
		wl.Cores = *w.Cores
	}
	if w.Rate != nil {
		wl.Rate = *w.Rate
	}
	if w.Ring != nil {
		wl.Ring = *w.Ring
	}
	if w.BatchOps != nil {
		wl.BatchOps = *w.BatchOps
	}
	if w.BatchCPU != nil {
		wl.BatchCPU = *w.BatchCPU
	}
	if w.InitialItems != nil {
		wl.InitialItems = *w.InitialItems
	}
	wl.BatchVariant, wl.FloodVariant = w.BatchVariant, w.FloodVariant
	c.placement(w, &wl)
	switch w.Spin {
	case "", "pause":
	case "tight":
		wl.TightSpin = true
	default:
		c.fail("workload.spin", append(a, keyNeedle("spin")), "%q; use \"pause\" (a PAUSE between reads, as the kernel's cpu_relax) or \"tight\" (reads back to back, as a user-space loop without one)", w.Spin)
	}
	wl.Unit = "packet"
	if w.Unit != "" {
		if !isWord(w.Unit) {
			c.fail("workload.unit", append(a, keyNeedle("unit")), "%q; name one run of the program with one lowercase word, e.g. \"op\" or \"call\"", w.Unit)
		}
		wl.Unit = w.Unit
	}
	switch {
	case wl.Cores < 1 || wl.Cores > cpu.MaxCPUs:
		c.fail("workload.cores", append(a, keyNeedle("cores")), "%d; give between 1 and %d flood CPUs", wl.Cores, cpu.MaxCPUs)
	case wl.Rate != 0 && !(wl.Rate >= MinRate && wl.Rate <= MaxRate):
		c.fail("workload.rate", append(a, keyNeedle("rate")), "%v; the offered rate is packets per second per CPU: 0 for a closed loop, else from %g (one packet per %v) to %g (one per picosecond)", wl.Rate, MinRate, MaxStepTime, MaxRate)
	case wl.Ring < 0:
		c.fail("workload.ring", append(a, keyNeedle("ring")), "%d; the ring holds at least 0 packets", wl.Ring)
	case wl.BatchOps < 1 || wl.BatchOps > MaxCount:
		c.fail("workload.batch_ops", append(a, keyNeedle("batch_ops")), "%d; a batch has at least 1 operation and at most %d", wl.BatchOps, MaxCount)
	case wl.InitialItems < 0 || wl.InitialItems > MaxCount:
		c.fail("workload.initial_items", append(a, keyNeedle("initial_items")), "%d; give 0 to %d items", wl.InitialItems, MaxCount)
	case wl.BatchCPU < -1 || wl.BatchCPU >= cpu.MaxCPUs:
		c.fail("workload.batch_cpu", append(a, keyNeedle("batch_cpu")), "%d is not a CPU number", wl.BatchCPU)
	}
	if wl.Kind == WorkloadBoth && (wl.BatchVariant == "") == (wl.FloodVariant == "") {
		c.fail("workload.batch_variant", a, "a \"both\" workload fixes one side: batch_variant = \"...\" (variants then differ in the flood) or flood_variant = \"...\" (variants differ in the batch)")
	}
	if wl.Kind != WorkloadBoth && (wl.BatchVariant != "" || wl.FloodVariant != "") {
		k := "flood_variant"
		if wl.BatchVariant != "" {
			k = "batch_variant"
		}
		c.fail("workload.kind", append(a, keyNeedle(k)), "batch_variant and flood_variant only apply to kind = \"both\"")
	}
	c.s.Workload = wl
}

func (c *checker) run(r *runRaw) {
	a := []string{"[run]"}
	rc := RunConfig{Warmup: Dur{PS: 20e6}, Duration: Dur{PS: 1e9}, Limit: Dur{PS: 1e15}, Seed: 1, Replications: 1, MaxEvents: DefaultMaxEvents}
	if r != nil {
		if r.Warmup != "" {
			rc.Warmup = c.dur("run.warmup", append(a, keyNeedle("warmup")), r.Warmup, false, MaxRunTime)
		}
		if r.Duration != "" {
			rc.Duration = c.dur("run.duration", append(a, keyNeedle("duration")), r.Duration, false, MaxRunTime)
		}
		if r.Limit != "" {
			rc.Limit = c.dur("run.limit", append(a, keyNeedle("limit")), r.Limit, false, MaxRunTime)
		}
		if r.Seed != nil {
			rc.Seed = *r.Seed
		}
		if r.Replications != nil {
			rc.Replications = *r.Replications
		}
		if r.MaxEvents != nil {
			rc.MaxEvents = *r.MaxEvents
		}
	}
	if rc.MaxEvents < 1 {
		c.fail("run.max_events", append(a, keyNeedle("max_events")), "%d; give the most simulated events one point may take, at least 1 (the default is %d)", rc.MaxEvents, int64(DefaultMaxEvents))
	}
	if c.s.Workload.Kind == WorkloadFlood && c.ghz > 0 {
		end := rc.Warmup.Time(c.ghz) + rc.Duration.Time(c.ghz)
		if end > rc.Limit.Time(c.ghz) {
			c.fail("run.limit", append(a, keyNeedle("limit"), keyNeedle("duration")), "warmup + duration is %v, past the limit of %v; shorten the run or raise limit (at most %v)", end, rc.Limit.Time(c.ghz), MaxRunTime)
		}
	}
	if rc.Duration.PS <= 0 {
		c.fail("run.duration", append(a, keyNeedle("duration")), "must be longer than 0, e.g. \"2ms\"")
	}
	if rc.Replications < 1 || rc.Replications > 1000 {
		c.fail("run.replications", append(a, keyNeedle("replications")), "%d; use 1 to 1000", rc.Replications)
	}
	c.s.Run = rc
}

func (c *checker) axis(field string, anchors []string, name string, values []float64) {
	if !c.s.isAxis(name, c.s.Params) {
		c.fail(field, anchors, "%s", notAnAxis(name))
		return
	}
	if len(values) == 0 {
		c.fail(field, anchors, "no values; list the points to sweep, e.g. [1, 2, 4]")
	}
	if len(values) > MaxAxisValues {
		c.fail(field, anchors, "%d values; an axis has at most %d (MaxAxisValues): sweep fewer points", len(values), MaxAxisValues)
	}
	for i, v := range values {
		if _, msg := c.s.axisValue(name, v, c.s.Params); msg != "" {
			c.fail(field, anchors, "%s", msg)
			return
		}
		if slices.Contains(values[:i], v) {
			c.fail(field, anchors, "%v twice; list each point once", v)
			return
		}
	}
}

func (c *checker) series(i int, sr *seriesRaw, variants map[string]bool) {
	a := headers("[[series]]", i+1)
	s := &Series{Name: sr.Name, Description: sr.Description, Profile: sr.Profile, Variants: sr.Variants,
		Params: map[string]Value{}, Free: sr.Free, Axis: sr.Axis, Points: sr.Points}
	if s.Name == "" {
		c.fail("series.name", a, "missing; name the measured series")
	}
	if slices.ContainsFunc(c.s.Series, func(o *Series) bool { return o.Name == s.Name }) {
		c.fail("series.name", append(a, sameLine(keyNeedle("name"), quote(s.Name))), "series %q is defined twice; give each series its own name", s.Name)
	}
	if _, ok := c.s.Profiles[s.Profile]; !ok {
		c.fail("series.profile", append(a, sameLine(keyNeedle("profile"), quote(s.Profile))), "%q is not a defined profile; define [profile.%s] or fix the name", s.Profile, s.Profile)
	}
	if sr.Placement != "" {
		pl, ok := cpu.ParsePlacement(sr.Placement)
		if !ok {
			c.fail("series.placement", append(a, keyNeedle("placement")), "%q; use %s", sr.Placement, orList(cpu.PlacementNames()))
		}
		s.Placement = &pl
	}
	for i, v := range s.Variants {
		if !variants[v] {
			c.fail("series.variants", append(a, quote(v)), "%q is not a variant of this scenario; use one of its [[variant]] names", v)
		}
		if slices.Contains(s.Variants[:i], v) {
			c.fail("series.variants", append(a, keyNeedle("variants"), quote(v), quote(v)), "%q twice; list each variant once", v)
		}
	}
	if s.Base = sr.Base; s.Base != "" && (!variants[s.Base] || len(s.Variants) > 0 && !slices.Contains(s.Variants, s.Base)) {
		c.fail("series.base", append(a, keyNeedle("base")), "%q is not a variant of this series; name the variant the others change (the before)", s.Base)
	}
	for _, name := range sortedKeys(sr.Params) {
		if _, ok := c.s.Params[name]; !ok {
			c.fail("series.params."+name, append(a, keyNeedle(name)), "%q is not a param of this scenario; define it under [params] first", name)
		}
		if v, ok := c.value("series.params."+name, append(a, keyNeedle(name)), sr.Params[name]); ok {
			if base, known := c.s.Params[name]; known && base.IsTime != v.IsTime {
				as := "a plain number"
				if base.IsTime {
					as = "a duration (\"25ns\")"
				}
				c.fail("series.params."+name, append(a, keyNeedle(name)), "[params] gives %q as %s; give it the same way here", name, as)
			}
			s.Params[name] = v
		}
	}
	if s.Axis == "" {
		s.Axis = "cores"
	}
	if len(s.Points) > 0 {
		c.axis("series.points", append(a, keyNeedle("points")), s.Axis, s.Points)
	}
	for i, f := range s.Free {
		if !c.knownFree(f) {
			c.fail("series.free", append(a, quote(f)), "%q is not a parameter that can be fitted; use params.<name> or profile.<latency field>", f)
		}
		if slices.Contains(s.Free[:i], f) {
			c.fail("series.free", append(a, keyNeedle("free"), quote(f), quote(f)), "%q twice; list each parameter once (a parameter freed twice counts twice towards the calibrate points)", f)
		}
	}
	c.fitBounds(a, s)
	if len(sr.Reference) > MaxAxisValues {
		c.fail("series.reference", a, "%d reference points; a series has at most %d (MaxAxisValues): split it", len(sr.Reference), MaxAxisValues)
	}
	ncal := 0
	points := map[string]int{} // reference number, by what it measures
	for j, r := range sr.Reference {
		ref := Reference{Scenario: r.Scenario, Variant: r.Variant, Axis: r.Axis, Metric: r.Metric, Unit: r.Unit, Role: r.Role, Source: r.Source}
		ra := append(append([]string{}, a...), headers("[[series.reference]]", j+1)...)
		key := func(k string) []string { return append(append([]string{}, ra...), keyNeedle(k)) }
		if ref.Scenario == "" {
			ref.Scenario = s.Name
		}
		if ref.Axis == "" {
			ref.Axis = s.Axis
		}
		if !variants[r.Variant] {
			c.fail("series.reference.variant", key("variant"), "%q is not a variant of this scenario; use one of its [[variant]] names", r.Variant)
		}
		if r.X == nil || r.Value == nil {
			c.fail("series.reference", ra, "a reference point needs x and value")
			continue
		}
		ref.X, ref.Value = *r.X, *r.Value
		if r.Axis != "" {
			c.axis("series.reference.axis", key("axis"), ref.Axis, []float64{ref.X})
		} else {
			c.axis("series.reference.x", key("x"), ref.Axis, []float64{ref.X})
		}
		switch {
		case !(ref.Value >= MinRefValue && ref.Value <= MaxRefValue):
			c.fail("series.reference.value", key("value"), "%v; a measured value is a finite number above 0 (an error is relative to it), from %g to %g (MinRefValue, MaxRefValue), beyond which errors overflow: give the figure in the unit it was measured in", ref.Value, MinRefValue, MaxRefValue)
		case ref.Unit == "%" && ref.Value > 100:
			c.fail("series.reference.value", key("value"), "%v%%; a share is at most 100%%: give the percentage, e.g. 12.5", ref.Value)
		}
		if units, ok := c.s.unitsFor(ref.Metric); !ok {
			c.fail("series.reference.metric", key("metric"), "%q is not a metric contend predicts; use throughput_per_core, throughput (Mpps/kpps/pps), cost (ns), duration (s), cpu_util (%%), grace_period (ms), <stat>_grace_period (ms, us), <stat>_latency_<rcu call> (ms, us), drops (%%), cycles_per_packet (cycles), transfers_per_packet (lines), share_of_cycles_<label> (%%) or offcpu_in_<label> (s); <stat> is one of %s", ref.Metric, strings.Join(models.LatencyStats, ", "))
		} else if !slices.Contains(units, ref.Unit) {
			c.fail("series.reference.unit", key("unit"), "%q is not a unit of %s; use %s", ref.Unit, ref.Metric, orList(units))
		} else {
			c.labelMetric(key("metric"), &ref)
		}
		pt := fmt.Sprintf("variant %q at %s = %v, %s", ref.Variant, ref.Axis, ref.X, ref.Metric)
		if k, dup := points[pt]; dup {
			c.fail("series.reference", ra, "reference %d gives %s again (reference %d gave it first); keep one", j+1, pt, k)
		}
		points[pt] = j + 1
		switch ref.Role {
		case "calibrate":
			if ncal++; ncal == len(s.Free)+1 {
				c.fail("series.reference.role", key("role"), "calibrate point %d of a series with %d free parameters; a series calibrates at most as many points as it has free parameters: mark it \"validate\" or free another parameter", ncal, len(s.Free))
			}
		case "validate":
		default:
			c.fail("series.reference.role", key("role"), "%q; a reference is used to \"calibrate\" or only to \"validate\"", ref.Role)
		}
		s.Refs = append(s.Refs, ref)
	}
	c.s.Series = append(c.s.Series, s)
}

// fitBounds checks that each free parameter of se has a range to be fitted
// in (Bounds): finite and not empty. Fit maps its search onto that range,
// and an empty or infinite one makes every value NaN.
func (c *checker) fitBounds(a []string, se *Series) {
	pr, ok := c.s.Profiles[se.Profile]
	if c.err != nil || !ok {
		return // the profile is not resolved, and what is wrong already said
	}
	for _, f := range se.Free {
		if !c.knownFree(f) {
			continue
		}
		lo, hi := c.s.Bounds(se, f)
		if finite(lo) && finite(hi) && lo < hi {
			continue
		}
		at := append(slices.Clone(a), keyNeedle("free"), quote(f))
		cur, _ := c.s.Current(&Series{Profile: se.Profile, Params: se.Params, Free: []string{f}})
		if _, isProfile := strings.CutPrefix(f, "profile."); isProfile {
			c.fail("series.free", at, "%s is fitted from %g ns up to the profile's memory latency (%g ns), or its own %g ns if more: nothing lies between; give profile %q its memory latency, e.g. memory = \"90ns\"", f, lo, pr.Memory.Nanoseconds(), cur[f], se.Profile)
			continue
		}
		c.fail("series.free", at, "%s is %g, and a free param is fitted from %g up to 100 times its value, which overflows; give it a value of at most 1e300 or do not free it", f, cur[f], lo)
	}
}

func (c *checker) knownFree(f string) bool {
	if name, ok := strings.CutPrefix(f, "params."); ok {
		_, known := c.s.Params[name]
		return known
	}
	if key, ok := strings.CutPrefix(f, "profile."); ok {
		return key == "atomic_overlap" || (&Profile{}).field(key) != nil
	}
	return false
}

// CheckMetric says whether contend predicts metric in unit, and if not,
// what to write instead.
func CheckMetric(metric, unit string) error {
	units, ok := unitsOf(metric)
	switch {
	case !ok:
		return fmt.Errorf("%q is not a metric contend predicts; use throughput_per_core, throughput, cost, duration, cpu_util, grace_period, <stat>_grace_period, <stat>_latency_<rcu call>, drops, cycles_per_packet, transfers_per_packet, share_of_cycles_<label> or offcpu_in_<label>; <stat> is one of %s", metric, strings.Join(models.LatencyStats, ", "))
	case !slices.Contains(units, unit):
		return fmt.Errorf("%q is not a unit of %s; use %s", unit, metric, orList(units))
	}
	return nil
}

// unitsOf returns the units metric may be given in, and whether contend
// predicts it at all.
func isWord(s string) bool {
	for _, r := range s {
		if r < 'a' || r > 'z' {
			return false
		}
	}
	return s != "" && len(s) <= 20
}

// BatchUnit is what one operation of the batch is called: the scenario's
// unit of work when the batch runs alone and the scenario names one, else
// "op" (beside a flood, the unit names the flood's work).
func (s *Scenario) BatchUnit() string {
	if s.Workload.Kind == WorkloadBatch && s.Workload.Unit != "" && s.Workload.Unit != "packet" {
		return s.Workload.Unit
	}
	return "op"
}

// RateUnit is the unit tables give rates in: Mpps for packets, else
// M<unit>s/s (Mops/s, Mcalls/s).
func (s *Scenario) RateUnit() string {
	if s.Workload.Unit == "" || s.Workload.Unit == "packet" {
		return "Mpps"
	}
	return "M" + s.Workload.Unit + "s/s"
}

// unitsFor returns the units a reference of metric may use in s: a rate
// may also be given in the scenario's own unit of work.
func (s *Scenario) unitsFor(metric string) ([]string, bool) {
	units, ok := unitsOf(metric)
	if ok && (metric == "throughput" || metric == "throughput_per_core") && s.Workload.Unit != "" && s.Workload.Unit != "packet" {
		per := s.Workload.Unit + "s/s"
		units = append(slices.Clone(units), "M"+per, "k"+per, per)
	}
	return units, ok
}

func unitsOf(metric string) ([]string, bool) {
	if units, ok := metricUnits[metric]; ok {
		return units, true
	}
	if strings.HasPrefix(metric, "share_of_cycles_") {
		return []string{"%"}, true
	}
	if strings.HasPrefix(metric, "offcpu_in_") {
		return []string{"s"}, true
	}
	if _, _, ok := latencyMetric(metric); ok {
		return []string{"ms", "us"}, true
	}
	return nil, false
}

// orList joins words as "a, b or c".
func orList(words []string) string {
	if len(words) < 2 {
		return strings.Join(words, "")
	}
	return strings.Join(words[:len(words)-1], ", ") + " or " + words[len(words)-1]
}

// Most jiffies each RCU delay may be. Linux clamps the force-quiescent-state
// delays to HZ (rcu/tree.c, param_set_first_fqs_jiffies); beyond the CPU
// stall timeout (21 s) a CPU that owes a quiescent state is a stall.
func maxJiffies(key string, hz int) int {
	if key == "jiffies_to_sched_qs" {
		return 21 * hz
	}
	return hz
}

var jiffiesWhy = map[string]string{
	"jiffies_till_first_fqs": "Linux clamps it to one second of jiffies",
	"jiffies_till_next_fqs":  "Linux clamps it to one second of jiffies",
	"jiffies_to_sched_qs":    "beyond the 21 s RCU CPU stall timeout the kernel reports a stall",
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

// atLeast prints a saturated count.
func atLeast(n int) string {
	if n > MaxProgramSteps {
		return fmt.Sprintf("more than %d", MaxProgramSteps)
	}
	return fmt.Sprint(n)
}

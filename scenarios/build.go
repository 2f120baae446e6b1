package scenarios

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"contend/cacheline"
	"contend/cpu"
	"contend/models"
	"contend/sim"
)

// Point is one simulation: a variant of a series at one value of an axis.
type Point struct {
	Series  *Series // nil: the scenario's first profile, no series params
	Variant string
	Axis    string  // "" for none
	X       float64 // value on Axis
	Seed    int64
	// Overrides set fitted parameters: "params.<name>" (ns for durations) or
	// "profile.<field>" (ns, or the fraction for atomic_overlap).
	Overrides map[string]float64
}

// Outcome is a simulated point.
type Outcome struct {
	Point  Point
	Result *models.Result
}

// Variant returns the variant called name.
func (s *Scenario) Variant(name string) *Variant {
	for _, v := range s.Variants {
		if v.Name == name {
			return v
		}
	}
	return nil
}

// ProfileNames returns the profile names in order.
func (s *Scenario) ProfileNames() []string { return sortedKeys(s.Profiles) }

type builder struct {
	s      *Scenario
	w      *models.World
	params map[string]Value
	ghz    float64
	lines  map[string]*cacheline.Line
	spin   map[string]*models.Spinlock
	rw     map[string]*models.RWLock
	mutex  map[string]*models.Mutex
	rwsem  map[string]*models.RWSem
	// pcpuRwsem are the percpu_rw_semaphores, by name.
	pcpuRwsem map[string]*models.PercpuRWSem
	balls     map[string]*models.PingPong      // pingpong steps, one ball per line
	counts    map[string]*models.PercpuCounter // percpu_counters, by their per-cpu line
	words     map[*cacheline.Line]*models.Word // the words cmpxchg loops update, by line
	seqs      map[*cacheline.Line]*models.Seqcount
	refs      map[string]*models.PercpuRef // percpu_refs, by their per-cpu line
	srcus     map[string]*models.SRCU      // srcu_structs, by their line
	task      *cacheline.Line              // the tasks' own lines (trc_reader_nesting)
	err       error                        // the first step that cannot run as set (a param set to 0)
	items     int64                        // the most items a scan may walk
	v         *Variant
	at        []frame // where compile is in v, for errors
	// callbacks are the compiled callback blocks, by name.
	callbacks map[string][]cpu.Step
	threads   []int                        // the point's threads' CPUs, thread 0 first
	packed    map[string][]*cacheline.Line // packed per-cpu arrays' lines, by CPU
}

// program compiles variant v. A variant whose call_rcu callbacks have steps
// runs its CPU's ready callbacks before each packet (models.RCUSoftirq).
func (b *builder) program(v *Variant) *cpu.Program {
	b.v = v
	steps := b.compile(v.Steps, 0, "")
	if b.s.RunsCallbacks(v) {
		steps = append([]cpu.Step{&models.RCUSoftirq{W: b.w}}, steps...)
	}
	return &cpu.Program{Name: "variant " + v.Name, Steps: steps}
}

// callback returns the compiled steps of a call_rcu's callback block.
func (b *builder) callback(name string) []cpu.Step {
	if name == "" {
		return nil
	}
	if steps, ok := b.callbacks[name]; ok {
		return steps
	}
	if b.callbacks == nil {
		b.callbacks = map[string][]cpu.Step{}
	}
	steps := b.compile(b.s.Blocks[name], len(b.at), name)
	b.callbacks[name] = steps
	return steps
}

// fail records the first step that cannot run as set, placed where compile
// is.
func (b *builder) fail(format string, args ...any) {
	if b.err == nil {
		b.err = b.s.stepError(b.v, slices.Clone(b.at), fmt.Sprintf(format, args...))
	}
}

// Simulate runs one point.
func (s *Scenario) Simulate(p Point) (*models.Result, error) {
	w, spec, err := s.Build(p)
	if err != nil {
		return nil, err
	}
	res, err := w.Run(spec)
	if errors.Is(err, sim.ErrEventLimit) {
		err = fmt.Errorf("%w; raise [run] max_events (or --max-events) if the run is meant to be that long, or shorten [run] duration", err)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: variant %s, %s=%v: %w", s.Name, p.Variant, p.Axis, p.X, s.Locate(err))
	}
	return res, nil
}

// Build makes the world and run spec for p: the machine of the point's
// profile, the lines and locks on it, the variant's program and the
// workload that runs it.
func (s *Scenario) Build(p Point) (*models.World, models.RunSpec, error) {
	prof, params, wl, err := s.settings(p)
	if err != nil {
		return nil, models.RunSpec{}, err
	}
	m, order, err := s.machine(prof, wl, p.Seed)
	if err != nil {
		return nil, models.RunSpec{}, err
	}
	w, err := models.NewWorld(m, s.Kernel)
	if err != nil {
		return nil, models.RunSpec{}, err
	}
	w.Items = wl.InitialItems
	b := &builder{s: s, w: w, params: params, ghz: prof.GHz, items: wl.InitialItems + wl.BatchOps, lines: map[string]*cacheline.Line{},
		spin: map[string]*models.Spinlock{}, rw: map[string]*models.RWLock{}, mutex: map[string]*models.Mutex{}, rwsem: map[string]*models.RWSem{},
		pcpuRwsem: map[string]*models.PercpuRWSem{}, threads: threadCPUs(wl, order)}
	if err := b.declare(); err != nil {
		return nil, models.RunSpec{}, err
	}
	b.markReadOnly()
	v := s.Variant(p.Variant)
	if v == nil {
		return nil, models.RunSpec{}, fmt.Errorf("%s: no variant %q; the variants are %s", s.Name, p.Variant, strings.Join(s.VariantNames(), ", "))
	}
	spec, err := b.runSpec(wl, order, b.program(v))
	if err != nil {
		return nil, spec, err
	}
	if b.err != nil {
		return nil, spec, b.err
	}
	return w, spec, nil
}

// settings returns what p runs with: its profile, params and workload, as
// the series, the fitted overrides and the axis value set them.
func (s *Scenario) settings(p Point) (Profile, map[string]Value, Workload, error) {
	var wl Workload
	prof, err := s.profileFor(p.Series)
	if err != nil {
		return prof, nil, wl, err
	}
	params := map[string]Value{}
	maps.Copy(params, s.Params)
	if p.Series != nil {
		maps.Copy(params, p.Series.Params)
	}
	for _, key := range sortedKeys(p.Overrides) {
		if err := s.override(key, p.Overrides[key], &prof, params); err != nil {
			return prof, nil, wl, err
		}
	}
	wl = s.Workload
	if p.Series != nil && p.Series.Placement != nil {
		wl.CPUs, wl.Placement = nil, *p.Series.Placement
	}
	if p.Axis != "" {
		a, msg := s.axisValue(p.Axis, p.X, params)
		if msg != "" {
			return prof, nil, wl, fmt.Errorf("%s: %s: %s", s.Name, p.Axis, msg)
		}
		a.set(&wl, params)
	}
	prof.resolve()
	return prof, params, wl, nil
}

// profileFor returns a copy of the series' profile (the first, with no
// series) that overrides may change.
func (s *Scenario) profileFor(se *Series) (Profile, error) {
	name := ""
	if se != nil {
		name = se.Profile
	} else if names := s.ProfileNames(); len(names) > 0 {
		name = names[0]
	}
	pr, ok := s.Profiles[name]
	if !ok {
		return Profile{}, fmt.Errorf("%s: no hardware profile; define a [profile.<name>] table", s.Name)
	}
	prof := *pr
	prof.durs = map[string]Dur{}
	maps.Copy(prof.durs, pr.durs)
	return prof, nil
}

// override sets a fitted parameter, "params.<name>" or "profile.<field>",
// to x (ns, or the fraction for atomic_overlap).
func (s *Scenario) override(key string, x float64, prof *Profile, params map[string]Value) error {
	if !finite(x) || x < 0 || x > MaxStepTime.Nanoseconds() {
		return fmt.Errorf("%s: %s = %v; a fitted value is from 0 to %v ns", s.Name, key, x, MaxStepTime.Nanoseconds())
	}
	if name, ok := strings.CutPrefix(key, "params."); ok {
		v, known := params[name]
		if !known {
			return fmt.Errorf("%s: no param %q to override", s.Name, name)
		}
		if v.IsTime {
			v.Dur = Dur{PS: x * 1000}
		} else {
			v.Num = x
		}
		params[name] = v
		return nil
	}
	field, ok := strings.CutPrefix(key, "profile.")
	switch {
	case !ok:
		return fmt.Errorf("%s: override %q must start with \"params.\" or \"profile.\"", s.Name, key)
	case field == "atomic_overlap":
		prof.AtomicOverlap = x
	case field == "miss_overlap":
		if x > 1 {
			return fmt.Errorf("%s: %s = %v; miss_overlap is a fraction of an atomic's wait, from 0 to 1", s.Name, key, x)
		}
		prof.MissOverlap = x
	case field == "snoop":
		if x > 1 {
			return fmt.Errorf("%s: %s = %v; snoop is a fraction of a transfer, from 0 to 1", s.Name, key, x)
		}
		prof.Snoop = x
	case prof.field(field) != nil:
		prof.durs[field] = Dur{PS: x * 1000}
	default:
		return fmt.Errorf("%s: no profile field %q to override", s.Name, field)
	}
	return nil
}

// machine makes the profile's machine and returns it with the CPUs the
// workload takes, in order.
func (s *Scenario) machine(prof Profile, wl Workload, seed int64) (*cpu.Machine, []int, error) {
	if wl.TightSpin {
		// A spin iteration is the load of the line, from L1; with no
		// PAUSE to say it spins, the core's reads run ahead, and a write
		// by its SMT sibling clears them.
		prof.Profile.Pause = prof.Profile.L1Hit
		if !prof.spinClearGiven() {
			prof.Profile.SpinClear = prof.Profile.Cycles(cpu.DefaultSpinClearCycles)
		}
	} else {
		prof.Profile.SpinClear = 0
	}
	m, err := cpu.NewMachine(prof.Profile, uint64(seed))
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", s.Name, err)
	}
	ncpu := m.NumCPUs()
	needed := cpusNeeded(wl)
	if needed > ncpu {
		return nil, nil, fmt.Errorf("%s: the workload needs %d CPUs but profile %q has %d; use a bigger profile or fewer cores", s.Name, needed, prof.Name, ncpu)
	}
	order, err := cpuOrder(wl, m, needed)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", s.Name, err)
	}
	return m, order, nil
}

// runSpec says how long the run lasts and what drives its CPUs: the flood
// on the first CPUs of order, the batch on its own CPU, or both, where the
// side the workload fixes runs its own variant.
func (b *builder) runSpec(wl Workload, order []int, prog *cpu.Program) (models.RunSpec, error) {
	s, ghz := b.s, b.ghz
	spec := models.RunSpec{Warmup: s.Run.Warmup.Time(ghz), Duration: s.Run.Duration.Time(ghz),
		Limit: s.Run.Limit.Time(ghz), MaxEvents: uint64(s.Run.MaxEvents)}
	batchCPU := batchCPUOf(wl, order)
	switch wl.Kind {
	case WorkloadFlood:
		spec.Flood = &models.Flood{CPUs: order[:wl.Cores], Program: prog, Rate: wl.Rate, Ring: wl.Ring}
	case WorkloadBatch:
		spec.Batch = &models.Batch{CPU: batchCPU, Program: prog, Ops: wl.BatchOps}
		spec.Warmup = 0
	case WorkloadBoth:
		fixed := or(wl.FloodVariant, wl.BatchVariant)
		fv := s.Variant(fixed)
		if fv == nil {
			return spec, fmt.Errorf("%s: workload variant %q is not a variant", s.Name, fixed)
		}
		floodProg, batchProg := prog, b.program(fv)
		if wl.FloodVariant != "" {
			floodProg, batchProg = batchProg, prog
		}
		spec.Flood = &models.Flood{CPUs: order[:wl.Cores], Program: floodProg, Rate: wl.Rate, Ring: wl.Ring}
		spec.Batch = &models.Batch{CPU: batchCPU, Program: batchProg, Ops: wl.BatchOps}
	}
	return spec, nil
}

// VariantNames lists the variants in file order.
func (s *Scenario) VariantNames() []string {
	out := make([]string, len(s.Variants))
	for i, v := range s.Variants {
		out[i] = v.Name
	}
	return out
}

func (b *builder) declare() error {
	w := b.w
	for _, l := range b.s.Lines {
		if l.PerLine > 1 {
			if err := b.declarePacked(l, b.threads); err != nil {
				return err
			}
			continue
		}
		line, err := w.M.NewLine(l.Name, l.PerCPU)
		if err != nil {
			return err
		}
		b.lines[l.Name] = line
	}
	for _, l := range b.s.Lines {
		if l.PercpuCounter != "" {
			var batch int64
			if l.Batch != nil {
				batch = *l.Batch
			}
			if b.counts == nil {
				b.counts = map[string]*models.PercpuCounter{}
			}
			b.counts[l.Name] = w.NewPercpuCounter(b.lines[l.PercpuCounter], b.lines[l.Name], batch, foldLabel)
		}
	}
	for _, l := range b.s.Locks {
		acq, rel := l.labels()
		var err error
		switch l.class {
		case rwlockClass:
			if l.Line != "" {
				b.rw[l.Name] = w.NewRWLockOn(b.lines[l.Line], l.Name, acq, rel)
			} else {
				b.rw[l.Name], err = w.NewRWLock(l.Name, acq, rel)
			}
		case percpuRwsemClass:
			line := b.lines[l.Line]
			if line == nil {
				line, err = w.M.NewLine(l.Name, false)
			}
			var counts *cacheline.Line
			if err == nil {
				counts, err = w.M.NewLine(l.Name+".read_count", true) // a name the file takes is refused here
			}
			if err == nil {
				b.pcpuRwsem[l.Name] = w.NewPercpuRWSem(l.Name, line, counts, acq)
			}
		case rwsemClass:
			line := b.lines[l.Line]
			if line == nil {
				line, err = w.M.NewLine(l.Name, false)
			}
			if err == nil {
				b.rwsem[l.Name] = w.NewRWSemOn(line, l.Name, acq, rel)
			}
		case mutexClass:
			if l.Line != "" {
				b.mutex[l.Name] = w.NewMutexOn(b.lines[l.Line], l.Name, acq)
			} else {
				b.mutex[l.Name], err = w.NewMutex(l.Name, acq)
			}
		default:
			if l.Line != "" {
				b.spin[l.Name] = w.NewSpinlockOn(b.lines[l.Line], l.Name, l.spin, acq, rel)
			} else {
				b.spin[l.Name], err = w.NewSpinlock(l.Name, l.spin, acq, rel)
			}
			if err == nil && l.Backoff != "" {
				b.spin[l.Name].Backoff = b.time(l.Backoff)
			}
			if err == nil {
				b.spin[l.Name].CmpxchgClaim = l.Claim == "cmpxchg"
				b.spin[l.Name].PrefetchNext = l.PrefetchNext == nil || *l.PrefetchNext
			}
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func or(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// time converts a step's duration at the profile's clock. A value an
// override or a sweep set beyond MaxStepTime (or below 0) is refused: it
// would overflow the clock and silently become no work at all.
func (b *builder) time(s string) sim.Time {
	d, literal, _ := parseDur(s)
	if !literal {
		d = b.params[s].Dur
	}
	t, ok := timeAt(d, b.ghz, MaxStepTime)
	if !ok {
		b.fail("%q is %s at this point; a step takes from 0 to %v", s, describeTime(d, b.ghz), MaxStepTime)
	}
	return t
}

// cpuOrder returns the CPUs a workload takes, in order: its list, or every
// CPU in the order of its placement. The list must name at least the CPUs
// the point needs, all of them on the machine.
func cpuOrder(wl Workload, m *cpu.Machine, needed int) ([]int, error) {
	if wl.CPUs == nil {
		return m.Topology().Order(wl.Placement), nil
	}
	if len(wl.CPUs) < needed {
		return nil, fmt.Errorf("workload cpus lists %d CPUs, but this point needs %d; list more CPUs or run fewer cores", len(wl.CPUs), needed)
	}
	for _, c := range wl.CPUs {
		if c >= m.NumCPUs() {
			return nil, fmt.Errorf("workload cpus names CPU %d, but the machine has CPUs 0-%d; fix the list or use a bigger profile", c, m.NumCPUs()-1)
		}
	}
	return wl.CPUs, nil
}

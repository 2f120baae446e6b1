package scenarios

import (
	"slices"

	"contend/cpu"
)

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
	if w.BatchUnit != "" {
		switch {
		case !isWord(w.BatchUnit):
			c.fail("workload.batch_unit", append(a, keyNeedle("batch_unit")), "%q; name one run of the batch's program with one lowercase word, e.g. \"filter\" or \"call\"", w.BatchUnit)
		case w.Kind != "both":
			c.fail("workload.batch_unit", append(a, keyNeedle("batch_unit")), "batch_unit names the batch's operation beside a flood (kind = \"both\"); with kind = %q, unit names the program's run: use unit or drop batch_unit", w.Kind)
		}
		wl.BatchUnitName = w.BatchUnit
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

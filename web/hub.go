package web

import (
	"cmp"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	"contend/band"
	"contend/cpu"
	"contend/models"
	"contend/scenarios"
	"contend/sim"
)

// samplesPerRun is how many samples a run's measured interval is cut into:
// enough for a smooth chart, few enough for a page to draw.
const samplesPerRun = 200

// batchSampleEvery is the first sampling interval of a run whose length is
// not known in advance.
const batchSampleEvery = 50 * sim.Microsecond

// thinning keeps every k-th sample, doubling k whenever samplesPerRun have
// been kept at the current k: a run of any length sends a number of samples
// that grows with the logarithm of its length.
type thinning struct {
	n, k, kept int
}

func (t *thinning) keep() bool {
	t.k = max(t.k, 1)
	t.n++
	if (t.n-1)%t.k != 0 {
		return false
	}
	t.kept++
	if t.kept == samplesPerRun {
		t.k *= 2
		t.kept = 0
		t.n = 0
	}
	return true
}

// hub owns the runs going on and who watches them. At most maxRuns go at
// once; the next maxQueued wait for a slot in the order they came.
type hub struct {
	maxRuns   int
	maxQueued int
	now       func() time.Time

	mu      sync.Mutex
	runs    map[string]*run
	next    int
	slots   int    // runs going (a sweep counts as one)
	waiting []*run // for a slot, first come first
	done    sync.WaitGroup
}

// run is one simulation (or a sweep) and the pages watching it.
type run struct {
	id string
	h  *hub

	// ready is closed when r has a slot to run in, quit when it is
	// stopped: a queued run waits for either.
	ready, quit chan struct{}
	slot        bool // r holds a slot (under h.mu)

	mu       sync.Mutex
	watchers []*client
	started  *Started // once announced, for pages that join later
	queued   *Queued  // while r waits for a slot, its place
	stopped  bool
	machine  *cpu.Machine // of the replication in progress, to cancel it
}

func newHub(maxRuns, maxQueued int, now func() time.Time) *hub {
	return &hub{maxRuns: maxRuns, maxQueued: maxQueued, now: now, runs: map[string]*run{}}
}

var errBusy = errors.New("busy")

// begin makes a new run watched by c: it has a slot at once if one is
// free, else it joins the queue and c is told its place. Only a full queue
// refuses it.
func (h *hub) begin(c *client) (*run, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.slots >= h.maxRuns && len(h.waiting) >= h.maxQueued {
		return nil, fmt.Errorf("%w: %d runs are going, the most this server allows (serve --max-runs), and %d more wait, the most it queues; wait for one to end or stop yours", errBusy, h.slots, len(h.waiting))
	}
	h.next++
	r := &run{id: "r" + strconv.Itoa(h.next), h: h, ready: make(chan struct{}), quit: make(chan struct{})}
	h.runs[r.id] = r
	h.done.Add(1)
	r.join(c)
	if h.slots < h.maxRuns {
		h.grant(r)
	} else {
		h.waiting = append(h.waiting, r)
		r.place(len(h.waiting), h.slots)
	}
	return r, nil
}

// grant gives r a slot; h.mu is held.
func (h *hub) grant(r *run) {
	h.slots++
	r.slot = true
	close(r.ready)
}

// wait blocks until r has a slot, and reports false if r was stopped
// first (then it never gets one).
func (h *hub) wait(r *run) bool {
	select {
	case <-r.ready:
		return true
	case <-r.quit:
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if r.slot {
		return true // granted as it was stopped: end frees the slot
	}
	h.dequeue(r)
	return false
}

// dequeue takes r out of the queue and tells those behind it their new
// places; h.mu is held.
func (h *hub) dequeue(r *run) {
	for i, q := range h.waiting {
		if q == r {
			h.waiting = append(h.waiting[:i], h.waiting[i+1:]...)
			for k, q := range h.waiting[i:] {
				q.place(i+k+1, h.slots)
			}
			return
		}
	}
}

// end frees r's slot, if it had one, for the first run waiting.
func (h *hub) end(r *run) {
	h.mu.Lock()
	defer h.mu.Unlock()
	delete(h.runs, r.id)
	h.done.Done()
	if !r.slot {
		return
	}
	h.slots--
	if len(h.waiting) > 0 {
		next := h.waiting[0]
		h.dequeue(next)
		next.place(0, h.slots)
		h.grant(next)
	}
}

// place tells r's watchers, and those who join later, where r stands in
// the queue: position 1 is next; 0 means it has its slot now.
func (r *run) place(position, going int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	q := Queued{Type: "queued", Run: r.id, Position: position, Going: going}
	r.queued = &q
	if position == 0 {
		r.queued = nil
	}
	for _, c := range r.watchers {
		c.sendFor(r, q)
	}
}

func (h *hub) lookup(id string) *run {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.runs[id]
}

// stopAll cancels every run, for shutdown.
func (h *hub) stopAll() {
	h.mu.Lock()
	runs := make([]*run, 0, len(h.runs))
	for _, r := range h.runs {
		runs = append(runs, r)
	}
	h.mu.Unlock()
	for _, r := range runs {
		r.stop()
	}
	h.done.Wait()
}

// join makes c watch r (and stop watching what it watched before). A page
// that joins a run going gets its started before any sample: r.mu orders
// the two, as each takes it to find the watchers.
func (r *run) join(c *client) {
	old := c.swap(r)
	if old == r {
		return
	}
	if old != nil {
		old.leave(c)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.watchers = append(r.watchers, c)
	if r.queued != nil {
		c.sendFor(r, *r.queued)
	}
	if r.started != nil {
		c.sendFor(r, *r.started)
	}
}

// announce tells the watchers, and those who join later, what r runs:
// under r.mu, so that each page hears it once, from here or from join.
func (r *run) announce(st Started) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.started = &st
	for _, c := range r.watchers {
		c.sendFor(r, st)
	}
}

// leave stops c watching r; a run nobody watches is cancelled.
func (r *run) leave(c *client) {
	r.mu.Lock()
	for i, w := range r.watchers {
		if w == c {
			r.watchers = append(r.watchers[:i:i], r.watchers[i+1:]...)
			break
		}
	}
	empty := len(r.watchers) == 0
	r.mu.Unlock()
	if empty {
		r.stop()
	}
}

func (r *run) stop() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.stopped {
		close(r.quit)
	}
	r.stopped = true
	if r.machine != nil {
		r.machine.Cancel()
	}
}

// attach records the machine of the replication about to run; it reports
// false if the run was stopped meanwhile.
func (r *run) attach(m *cpu.Machine) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.machine = m
	return !r.stopped
}

func (r *run) each(f func(c *client)) {
	r.mu.Lock()
	ws := append([]*client(nil), r.watchers...)
	r.mu.Unlock()
	for _, c := range ws {
		f(c)
	}
}

func (r *run) broadcast(m any) { r.each(func(c *client) { c.sendFor(r, m) }) }

// swap sets the run c watches and returns the previous one. The samples
// queued belong to the old run and go; control messages stay. No frame goes
// until the new run's started has.
func (c *client) swap(r *run) *run {
	c.mu.Lock()
	defer c.mu.Unlock()
	old := c.run
	if old != r {
		kept := c.queue[:0]
		for _, e := range c.queue {
			if e.ctrl != nil {
				kept = append(kept, e)
			}
		}
		c.queue, c.samples, c.live = kept, 0, false
	}
	c.run = r
	return old
}

// detach stops c watching anything and returns what it watched.
func (c *client) detach() *run {
	return c.swap(nil)
}

// job is a run of one point, resolved and built.
type job struct {
	s        *scenarios.Scenario
	bands    *band.File
	pt       scenarios.Point
	duration sim.Time // 0: the scenario's
	est      estimate // the probe's
}

// build makes the world of replication i.
func (j *job) build(i int) (*models.World, models.RunSpec, error) {
	p := j.pt
	p.Seed += int64(i)
	w, spec, err := j.s.Build(p)
	if err == nil && j.duration > 0 {
		spec.Duration = j.duration
	}
	return w, spec, err
}

// simulate runs every replication of j, streaming the first to the
// watchers of r, and sends the final figures.
func (h *hub) simulate(r *run, j *job) {
	defer h.end(r)
	if !h.wait(r) {
		return
	}
	reps := max(j.s.Run.Replications, 1)
	results := make([]*models.Result, reps)
	trace := func() []models.Transfer { return nil }
	var first *models.World
	for i := range reps {
		w, spec, err := j.build(i)
		if err == nil && i == 0 {
			first = w
			r.announce(started(r.id, j, w, spec, reps))
			trace = w.RecordTransfers(spec, 0, traceLen)
			conv := newConverter(spec)
			spec.SampleEvery = max(1, (spec.Warmup+spec.Duration)/samplesPerRun)
			var thin thinning
			switch {
			case spec.Batch != nil && j.est.end > 0:
				// A batch runs until it is done: spread the samples over
				// the end the probe expects, and thin them out if it
				// goes on longer.
				spec.SampleEvery = max(1, j.est.end/samplesPerRun)
			case spec.Batch != nil:
				spec.SampleEvery = batchSampleEvery
			}
			spec.Observe = func(s models.Sample) {
				if !thin.keep() {
					return
				}
				out := conv.convert(s)
				now := h.now()
				r.each(func(c *client) { c.push(r, out, now) })
			}
		}
		if err == nil {
			if !r.attach(w.M) {
				return
			}
			results[i], err = w.Run(spec)
		}
		if errors.Is(err, sim.ErrCanceled) {
			return
		}
		if err != nil {
			r.broadcast(errorMsg(r.id, err))
			return
		}
	}
	ms, err := metrics(j.s, pointMetrics(j.s, j.pt.Series, j.pt.Variant), results)
	if err != nil {
		r.broadcast(errorMsg(r.id, err))
		return
	}
	cl := band.NewClassifier(j.s)
	for i, m := range ms {
		ms[i].Band = predictionBand(j.bands, cl, j.pt.Series, j.pt.Axis, j.pt.X, m.Metric, m.Value)
	}
	unit := cmp.Or(j.s.Workload.Unit, "packet")
	if results[0].Batch != nil && results[0].Packets == 0 {
		unit = j.s.BatchUnit()
	}
	r.broadcast(Done{Type: "done", Run: r.id, Metrics: ms, Result: results[0], Trace: nonNil(trace()),
		Explain: explainOf(first, results[0], unit)})
}

// metrics are the figures mus of a point, the mean over its replications
// as contend run gives them. The headline, the first, must be there; a
// later figure the run cannot give (a cost with no packet) is left out.
func metrics(s *scenarios.Scenario, mus []metricUnit, results []*models.Result) ([]Metric, error) {
	out := make([]Metric, 0, len(mus))
	for i, mu := range mus {
		v, err := s.MeanMetric(results, 0, mu.metric, mu.unit)
		if err != nil && i == 0 {
			return nil, err
		}
		if err == nil {
			out = append(out, Metric{Metric: mu.metric, Unit: mu.unit, Value: v})
		}
	}
	return out, nil
}

func started(id string, j *job, w *models.World, spec models.RunSpec, reps int) Started {
	st := Started{Type: "started", Run: id, Scenario: j.s.Name, Variant: j.pt.Variant, Axis: j.pt.Axis,
		X: j.pt.X, Seed: j.pt.Seed, WarmupNs: spec.Warmup.Nanoseconds(), CPUs: []int{}, Lines: []string{},
		Replications: reps, Metrics: []MetricUnit{}, RateUnit: j.s.RateUnit(), WorkUnit: cmp.Or(j.s.Workload.Unit, "packet"),
		BatchUnit: j.s.BatchUnit(), EndNs: j.est.end.Nanoseconds(), AxisCounts: countingAxis(j.s, j.pt.Axis)}
	for _, mu := range pointMetrics(j.s, j.pt.Series, j.pt.Variant) {
		st.Metrics = append(st.Metrics, MetricUnit{Metric: mu.metric, Unit: mu.unit})
	}
	if j.pt.Series != nil {
		st.Series = j.pt.Series.Name
	}
	if spec.Flood != nil {
		st.CPUs = append(st.CPUs, spec.Flood.CPUs...)
		st.FloodCPUs = len(spec.Flood.CPUs)
		if spec.Batch == nil {
			st.DurationNs = spec.Duration.Nanoseconds()
		}
	}
	if spec.Batch != nil {
		st.CPUs = append(st.CPUs, spec.Batch.CPU)
	}
	for _, l := range w.M.Lines() {
		if !l.PerCPU {
			st.Lines = append(st.Lines, l.Name)
		}
	}
	for s := range cpuStates {
		st.States = append(st.States, cpuStates[s].String())
	}
	return st
}

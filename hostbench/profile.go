package hostbench

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// figures finds measured figures by name.
type figures []Figure

func (fs figures) get(name string) (Figure, bool) {
	for _, f := range fs {
		if f.Name == name {
			return f, true
		}
	}
	return Figure{}, false
}

func (fs figures) median(name string) (float64, bool) {
	f, ok := fs.get(name)
	return f.Stat.Median, ok && f.Stat.N > 0
}

// Value is one profile value and how it was obtained.
type Value struct {
	V      float64 // ns for latencies
	From   []string
	How    string // how V follows from the figures
	Fitted bool   // adjusted by contend fit so that simulating its loops gives them back
	// SD is the spread of a latency, one standard deviation in ns: its
	// figures' interquartile ranges read as normal ones (IQR/1.349),
	// carried through how V follows from them.
	SD float64
}

// unitNS is the cost of one unit of work: the per-unit time of the longer
// work loop, whose loop overhead is spread thinnest.
func unitNS(fs figures) (float64, bool) {
	w, ok := fs.median("work50")
	return w / 50, ok
}

// cyclesPerUnit is the latency of one unit of work in cycles: imul r64 (3)
// then add (1), on every x86 core since the Pentium M.
const cyclesPerUnit = 4

// field is one key of the profile and how calibrate obtains it. A new
// profile field is one more entry.
type field struct {
	key   string
	kind  byte // 'd' a duration in ns, 'n' a number, 'i' an integer
	from  []string
	value func(fs figures, t Topology) (float64, string, bool)
}

// pingpongOf returns the figure name of the ping-pong between a pair class.
func pingpongOf(c PairClass) string { return "pingpong " + c.String() }

// pingpongCASOf returns the figure name of the ping-pong whose waiters spin
// on the CAS, between a pair class.
func pingpongCASOf(c PairClass) string { return "pingpong-cas " + c.String() }

// oneWay is a profile distance: the one-way CAS ping-pong time between two
// CPUs of a class, one transfer of the line and the atomic that wanted it.
// The loop's pass (half its round trip) waits with loads, so it is two
// transfers and the atomic (models.PingPong): the profile's one-way is the
// mean of the pass and the atomic.
//
// Where a load takes a modified line (loadModified), the CAS after the
// load hits, and a pass is one transfer and the atomic: the one-way itself.
func oneWay(fs figures, c PairClass) (float64, string, bool) {
	rt, ok := fs.median(pingpongOf(c))
	atomic, _ := fs.median("add")
	if m, _, known := loadModified(fs, Topology{}); known && m > 0 {
		return rt / 2, fmt.Sprintf("one-way: half the round trip of %s, a load that takes the line and a CAS that hits", pingpongOf(c)), ok
	}
	return (rt/2 + atomic) / 2, fmt.Sprintf("one-way: (half the round trip of %s, two transfers and a CAS, + add) / 2", pingpongOf(c)), ok
}

// classFor returns the measured pair class that stands for a profile
// distance, nearest measured first when the host has no such pair.
func classFor(fs figures, want ...PairClass) (PairClass, bool) {
	return firstOf(fs.measured, want...)
}

// measured says whether the ping-pong of pair class c was measured.
func (fs figures) measured(c PairClass) bool {
	_, ok := fs.get(pingpongOf(c))
	return ok
}

// firstOf returns the first of want that has says is there.
func firstOf(has func(PairClass) bool, want ...PairClass) (PairClass, bool) {
	for _, c := range want {
		if has(c) {
			return c, true
		}
	}
	return 0, false
}

var fields = []field{
	{"ghz", 'n', []string{"work50"}, func(fs figures, _ Topology) (float64, string, bool) {
		u, ok := unitNS(fs)
		return cyclesPerUnit / u, fmt.Sprintf("effective clock: a unit of work is %d cycles, and took %.3f ns", cyclesPerUnit, u), ok && u > 0
	}},
	{"sockets", 'i', nil, shape(0)},
	{"cores_per_socket", 'i', nil, shape(1)},
	{"threads_per_core", 'i', nil, shape(2)},
	{"cores_per_llc", 'i', nil, coresPerLLC},
	{"l1_hit", 'd', []string{"l1-load"}, direct("l1-load", 1, "a dependent load through 16 KiB")},
	{"llc_hit", 'd', []string{"llc-load"}, direct("llc-load", 1, "a dependent load through 4 MiB: past L2, inside the last-level cache of current x86 parts")},
	{"smt_sibling", 'd', nil, distance(SMTSibling, SameLLC, OtherLLC, OtherSocket)},
	{"same_socket", 'd', nil, distance(SameLLC, OtherLLC, SMTSibling, OtherSocket)},
	{"other_llc", 'd', nil, distance(OtherLLC, SameLLC, OtherSocket, SMTSibling)},
	{"other_socket", 'd', nil, distance(OtherSocket, OtherLLC, SameLLC, SMTSibling)},
	{"memory", 'd', []string{"memory-load"}, direct("memory-load", 1, "a dependent load through 64 MiB, TLB misses included")},
	{"atomic", 'd', []string{"add"}, direct("add", 1, "LOCK XADD on an owned line, tight loop")},
	{"atomic_overlap", 'n', []string{"add-work10", "work10", "add"}, overlap},
	{"store_drain", 'd', []string{"store-add", "add", "work50"}, drain},
	{"load_after_atomic", 'd', []string{"shared-load-add x1", "add"}, afterAdd("shared-load-add x1", "a load of the word the add before it wrote")},
	{"store_after_atomic", 'd', []string{"add-store-line", "add"}, afterAdd("add-store-line", "a store to the line the add before it wrote")},
	{"wakeup", 'd', []string{"wakeup"}, direct("wakeup", 0.5, "half a pipe round trip between threads blocked in read(2)")},
	{"pause", 'd', []string{"pause"}, direct("pause", 1, "one PAUSE in a loop of them")},
	{"load_modified", 'm', []string{"readers x1", pingpongOf(SameLLC), pingpongCASOf(SameLLC)}, loadModified},
	{"snoop_window", 'd', []string{"shared-add x2", "add"}, window},
	{"miss_overlap", 'n', []string{"shared-add-work10 x2", "shared-add x2", "work10"}, missOverlap},
	{"run_ahead", 'n', nil, runAhead},
	{"reorder_reach", 'n', nil, reorderReach},
}

// hiddenPair returns the pair class the RMWWork figures were measured
// between, the rmw-modified figure of that pair (the atomic's whole wait)
// and what each of the two stretches of work hid.
func hiddenPair(fs figures) (c PairClass, wait, short, long float64, ok bool) {
	for c := SMTSibling; c <= OtherSocket; c++ {
		s, ok1 := fs.median(hiddenOf(hiddenWork[0], c))
		l, ok2 := fs.median(hiddenOf(hiddenWork[1], c))
		w, ok3 := fs.median(transactionOf(RMWModified, c))
		if ok1 && ok2 && ok3 && w > 0 {
			return c, w, s, l, true
		}
	}
	return 0, 0, 0, 0, false
}

// runAhead is the share of the work after an atomic waiting for its line
// that runs meanwhile, timed alone: what 20 units of work (80 cycles, within
// the reorder window of current x86 cores and shorter than a transfer)
// hid, over their time. The 2-thread adds with work after them are then
// predictions, miss_overlap's share of the wait not needed.
func runAhead(fs figures, _ Topology) (float64, string, bool) {
	c, wait, short, _, ok := hiddenPair(fs)
	u, ok1 := unitNS(fs)
	work := float64(hiddenWork[0]) * u
	if !(ok && ok1) || work <= 0 || short <= 0 || short >= wait {
		return 0, "", false
	}
	return min(short/work, 1), fmt.Sprintf("%s over %d units of work (%.4g ns): the share of the work after an atomic waiting for its line that ran while it waited",
		hiddenOf(hiddenWork[0], c), hiddenWork[0], work), true
}

// timedRunAhead says whether the figures give run_ahead, so that the
// 2-thread add with 10 units of work is a prediction instead of
// miss_overlap's calibrate figure.
func timedRunAhead(fs figures) bool {
	_, _, ok := runAhead(fs, Topology{})
	return ok
}

// reorderReach is how far the work after a waiting atomic runs, in cycles:
// what 100 units of work after it hid, timed alone (RMWWork), when that is
// more than 20 units hid (so the short stretch ran whole or as far as the
// wait let it, not as far as the window) and less than both the long
// stretch and the wait (so neither stopped it): the window did. When the
// figures do not say, the default stands (cpu.DefaultReorderReach).
func reorderReach(fs figures, _ Topology) (float64, string, bool) {
	c, wait, short, long, ok := hiddenPair(fs)
	u, ok1 := unitNS(fs)
	if !(ok && ok1) || u <= 0 || short <= 0 {
		return 0, "", false
	}
	work := float64(hiddenWork[1]) * u
	if long < 1.1*short || long >= 0.9*min(work, wait) {
		return 0, "", false
	}
	return long * cyclesPerUnit / u, fmt.Sprintf("%s at the effective clock: of %d units of work after an atomic that waited %.4g ns for its line, what the reorder window let run meanwhile (%d units hid %.4g ns)",
		hiddenOf(hiddenWork[1], c), hiddenWork[1], wait, hiddenWork[0], short), true
}

// loadModified says whether a load of a line another core modified takes
// the line (migrate, 1) or leaves the writer a copy (share, 0), from two
// loops that each say it (loadModifiedReaders, loadModifiedCAS). Where
// both give a verdict and the verdicts differ, the machine changed between
// the loops, and the verdict whose ratio lies nearer the value it stands
// for wins (in ratio, so 1.58 against 2 is as far as 2.53): the Sapphire
// Rapids guest's run 13 of 2026-12-03 had its CAS ping-pong at 1.58, in
// the band of a copy left, and its readers round at 2.07 of its round
// trip, where its other 45 runs read migrate from both; taken as a copy
// left, its transfer was halved and its lock loops predicted 70-100% too
// fast. Where only the readers loop was measured, its reading stands.
func loadModified(fs figures, t Topology) (float64, string, bool) {
	cas, casOK := loadModifiedCAS(fs)
	rd, rdOK := loadModifiedReaders(fs)
	switch {
	case casOK && rdOK && rd.verdict && rd.m != cas.m:
		won, lost := cas, rd
		if rd.off < cas.off {
			won, lost = rd, cas
		}
		return won.m, won.how + "; " + lost.how + " says otherwise, farther from its value: the machine changed between the two loops", true
	case casOK:
		return cas.m, cas.how, true
	case rdOK:
		return rd.m, rd.how, true
	}
	return 0, "", false
}

// reading is what one loop says a load of a modified line does: m (1:
// migrate, 0: share), why, whether the ratio gave a verdict, and how far
// the ratio lies from the value that verdict stands for (|ln(ratio/value)|).
type reading struct {
	m       float64
	how     string
	verdict bool
	off     float64
}

// verdict is the reading m of a loop whose ratio r stands for value.
func verdict(m float64, how string, r, value float64) reading {
	return reading{m, how, true, math.Abs(math.Log(r / value))}
}

// loadModifiedReaders reads it from calibrate's readers loop, a round of
// four such transfers with plain stores between them: the writer's store,
// the reader's load, its acknowledgement's store, the writer's load of it.
// When a load leaves a copy, each store must take the line back from a
// sharer, and a ping-pong pass (a load, then a CAS that takes the line
// back) is two transfers: the round costs what a ping-pong round trip
// does. When a load takes the line, the CAS after it hits and a pass is
// one transfer: the round costs two round trips. The round trip is the
// ping-pong measured beside the readers loop, sample by sample, where
// there is one (the first ping-pong otherwise): a guest that moved between
// the first ping-pong and the loop is then compared with itself. A ratio
// near neither says the machine changed between the loops, and leaves the
// default, share, with no verdict.
func loadModifiedReaders(fs figures) (reading, bool) {
	round, ok1 := fs.median("readers x1")
	readers, ok := fs.get("readers x1")
	if !ok || len(readers.Job.CPUs) != 2 {
		return reading{}, false
	}
	// The readers loop runs on the first two CPUs, whatever their pair.
	pair := SameLLC
	for c := SMTSibling; c <= OtherSocket; c++ {
		if f, ok := fs.get(pingpongOf(c)); ok && slices.Equal(f.Job.CPUs, readers.Job.CPUs) {
			pair = c
		}
	}
	rt, ok2 := fs.beside(pingpongOf(pair), "readers x1")
	if !(ok1 && ok2) || rt <= 0 {
		return reading{}, false
	}
	r := round / rt
	how := fmt.Sprintf("readers x1 / %s = %.2f: a load of a line modified elsewhere ", pingpongOf(pair), r)
	switch {
	case r >= 1.6 && r <= 2.6:
		return verdict(1, how+"takes it (a round of readers costs two ping-pong round trips, not one)", r, 2), true
	case r >= 0.7 && r <= 1.4:
		return verdict(0, how+"leaves the writer a copy (a round of readers costs one ping-pong round trip, not two)", r, 1), true
	}
	return reading{0, how + "is taken to leave the writer a copy, but the ratio is near neither 1 (share) nor 2 (migrate): the machine changed between the two loops; calibrate again", false, 0}, true
}

// beside is the median of the ping-pong pp measured beside loop, sample by
// sample, where the record has it, and of the first pp otherwise.
func (fs figures) beside(pp, loop string) (float64, bool) {
	if v, ok := fs.median(pp + before + loop); ok {
		return v, true
	}
	return fs.median(pp)
}

// loadModifiedCAS reads the same from the two ping-pongs of one pair, when
// both were measured: a pass of the one that spins on the CAS is one
// transfer and the CAS; a pass of the one that loads is that too when the
// load takes the line (ratio 1), and two transfers and the CAS when it
// leaves a copy (ratio near 2). The loading ping-pong is the one measured
// beside the CAS ping-pong, where there is one: the Sapphire Rapids guest's
// run 20 took its first ping-pong at 314 ns, the one beside the CAS
// ping-pong at 301 and the CAS ping-pong at 205 (1.53 against the first,
// near 2, where its other runs give 1.0-1.1). A ratio near neither says
// nothing.
func loadModifiedCAS(fs figures) (reading, bool) {
	for c := SMTSibling; c <= OtherSocket; c++ {
		read, ok1 := fs.beside(pingpongOf(c), pingpongCASOf(c))
		cas, ok2 := fs.median(pingpongCASOf(c))
		if !ok1 || !ok2 || cas <= 0 {
			continue
		}
		r := read / cas
		how := fmt.Sprintf("%s / %s = %.2f: a load of a line modified elsewhere ", pingpongOf(c), pingpongCASOf(c), r)
		switch {
		case r >= 0.8 && r <= 1.3:
			return verdict(1, how+"takes it (a pass that loads costs what one that spins on the CAS does)", r, 1), true
		case r >= 1.5 && r <= 2.3:
			return verdict(0, how+"leaves the writer a copy (a pass that loads costs a transfer more than one that spins on the CAS)", r, 2), true
		}
		return reading{}, false
	}
	return reading{}, false
}

// window is how long an owner keeps a line another core is taking: two
// threads adding to one counter do 1 + window/add adds each time the line
// comes, once a one-way transfer, so window = add * (transfer * rate - 1),
// with the transfer the ping-pong's one-way estimate. Fitted afterwards.
func window(fs figures, t Topology) (float64, string, bool) {
	per, ok1 := fs.median("shared-add x2") // ns per add per thread
	at, ok2 := fs.median("add")
	pair, _, ok := simulatedPair(fs, t)
	one, _, ok3 := oneWay(fs, pair)
	if !(ok && ok1 && ok2 && ok3) || per <= 0 {
		return 0, "", false
	}
	w := at * (one*2/per - 1)
	return min(max(w, at/2), one), "how long an owner keeps a line being taken: add * (one-way * adds per ns - 1), from the 2-thread add", true
}

func shape(i int) func(figures, Topology) (float64, string, bool) {
	return func(_ figures, t Topology) (float64, string, bool) {
		s, c, th := t.Shape()
		return float64([]int{s, c, th}[i]), "from /sys/devices/system/cpu", true
	}
}

// coresPerLLC is given only when /sys names last-level caches smaller than
// a socket: the profile's 0 means the whole socket.
func coresPerLLC(_ figures, t Topology) (float64, string, bool) {
	n, known := t.CoresPerLLC()
	_, cores, _ := t.Shape()
	return float64(n), "from cache/index*/shared_cpu_list in /sys", known && n < cores
}

func direct(name string, scale float64, how string) func(figures, Topology) (float64, string, bool) {
	return func(fs figures, _ Topology) (float64, string, bool) {
		v, ok := fs.median(name)
		return v * scale, how, ok
	}
}

// distance estimates the latency of a pair class from its ping-pong, or
// from the nearest class measured when the host has no such pair.
func distance(want ...PairClass) func(figures, Topology) (float64, string, bool) {
	return func(fs figures, _ Topology) (float64, string, bool) {
		c, ok := classFor(fs, want...)
		if !ok {
			return 0, "", false
		}
		v, how, ok := oneWay(fs, c)
		if c != want[0] {
			how = fmt.Sprintf("not measured: this machine has no %s pair; %s", want[0], how)
		}
		return v, how, ok
	}
}

// overlap is the fraction of the atomic that the work after it hides.
func overlap(fs figures, _ Topology) (float64, string, bool) {
	both, ok1 := fs.median("add-work10")
	work, ok2 := fs.median("work10")
	at, ok3 := fs.median("add")
	if !(ok1 && ok2 && ok3) || at <= 0 {
		return 0, "", false
	}
	return min(max(1-(both-work)/at, 0), 1), "1 - (add-work10 - work10)/add", true
}

// missOverlap is the share of a contended atomic's wait for its line that
// the work after it runs in: two threads adding to one counter with 10
// units of work after each add take the add's time and the work's when
// the work waits (0), and about the work's alone when it runs ahead and
// the adds of several iterations then execute together (1). A first
// guess, fitted afterwards.
func missOverlap(fs figures, _ Topology) (float64, string, bool) {
	if timedRunAhead(fs) {
		return 0, "", false // run_ahead instead
	}
	both, ok1 := fs.median("shared-add-work10 x2") // ns per add per thread
	add, ok2 := fs.median("shared-add x2")
	work, ok3 := fs.median("work10")
	if !(ok1 && ok2 && ok3) || work <= 0 {
		return 0, "", false
	}
	return min(max((add+work-both)/add, 0), 1), "the share of a contended atomic's wait that the work after it runs in, from the 2-thread add with 10 units of work after it", true
}

// afterAdd is what a loop of the add and one more access costs beyond the
// add alone, uncontended: the next iteration's add waits for that access.
// load_after_atomic is shared-load-add x1's (a load of the word the add
// before it wrote returns that long after the add); store_after_atomic is
// add-store-line's (a store to another word of the add's line commits that
// long after it). Where the access is no slower after the add than after
// any atomic, the loop costs what store-add does, and the estimate is a
// bound the fit corrects.
func afterAdd(loop, how string) func(figures, Topology) (float64, string, bool) {
	return func(fs figures, _ Topology) (float64, string, bool) {
		both, ok1 := fs.median(loop)
		at, ok2 := fs.median("add")
		return math.Max(both-at, 0), loop + " - add: " + how, ok1 && ok2
	}
}

// drain is what the atomic after a store waits for beyond the store's own
// cycle: the drain of the store buffer.
func drain(fs figures, _ Topology) (float64, string, bool) {
	both, ok1 := fs.median("store-add")
	at, ok2 := fs.median("add")
	u, ok3 := unitNS(fs)
	cycle := u / cyclesPerUnit
	return math.Max(both-at-cycle, 0), "store-add - add - a cycle", ok1 && ok2 && ok3
}

// Estimate derives every profile value it can from the figures.
func Estimate(figs []Figure, t Topology) map[string]Value {
	out := map[string]Value{}
	for _, f := range fields {
		v, how, ok := f.value(figs, t)
		if !ok {
			continue
		}
		from := f.from
		if f.key == "smt_sibling" || f.key == "same_socket" || f.key == "other_socket" {
			from = nil
			for c := SMTSibling; c <= OtherSocket; c++ {
				if strings.Contains(how, pingpongOf(c)) {
					from = []string{pingpongOf(c), "add"}
				}
			}
		}
		if f.key == "reorder_reach" || f.key == "run_ahead" {
			if c, _, _, _, ok := hiddenPair(figs); ok {
				from = []string{hiddenOf(hiddenWork[1], c), hiddenOf(hiddenWork[0], c), transactionOf(RMWModified, c), "work50"}
			}
		}
		val := Value{V: v, From: from, How: how}
		if f.kind == 'd' {
			val.SD = spread(f, figs, t, from, v)
		}
		out[f.key] = val
	}
	return out
}

// iqrToSD turns an interquartile range into the standard deviation of the
// normal distribution with that range.
const iqrToSD = 1.349

// spread carries the spread of the figures a value comes from through its
// formula, to first order: each figure's standard deviation (IQR/1.349)
// times how much the value moves with that figure's median, the
// contributions added as independent.
func spread(f field, figs figures, t Topology, from []string, v float64) float64 {
	var sum float64
	for _, name := range from {
		i := slices.IndexFunc(figs, func(x Figure) bool { return x.Name == name })
		if i < 0 {
			continue
		}
		st := figs[i].Stat
		h := max(1e-3*math.Abs(st.Median), 1e-6)
		moved := slices.Clone(figs)
		moved[i].Stat.Median += h
		w, _, ok := f.value(moved, t)
		if !ok {
			continue
		}
		d := (w - v) / h * (st.Q3 - st.Q1) / iqrToSD
		sum += d * d
	}
	return math.Sqrt(sum)
}

// ProfileTOML writes the profile named name: a header with the provenance,
// then every value the loader accepts (keys) with a comment giving the
// median, spread, sample count and loop of each figure it came from. Values
// the loader does not know yet are written as comments.
func ProfileTOML(name string, vals map[string]Value, figs []Figure, prov Provenance, keys []string) string {
	var b strings.Builder
	b.WriteString("# Hardware profile measured by contend calibrate: load it with --profile.\n")
	for _, l := range prov.lines() {
		fmt.Fprintf(&b, "# %s\n", l)
	}
	fmt.Fprintf(&b, "\n[profile.%s]\n", name)
	fmt.Fprintf(&b, "description = %q\n", strings.TrimSpace(prov.CPU+" measured by contend calibrate"))
	fmt.Fprintf(&b, "source = %q\n", "contend calibrate "+prov.Date.Format("2006-01-02")+": medians of timed loops (package hostbench); fitted values reproduce their loops in scenario host-microbench")
	for _, f := range fields {
		v, ok := vals[f.key]
		if !ok {
			continue
		}
		line := f.key + " = " + format(f.kind, v.V, v.SD)
		if !slices.Contains(keys, f.key) {
			line = "# " + line + "  (not yet a profile field)"
		}
		fmt.Fprintf(&b, "%s\n", line)
		for _, c := range v.comments(figs) {
			fmt.Fprintf(&b, "  # %s\n", c)
		}
	}
	if c, why := coherenceOf(prov.CPU); c != "" && slices.Contains(keys, "coherence") {
		fmt.Fprintf(&b, "coherence = %q\n  # %s\n", c, why)
	}
	return b.String()
}

// coherenceOf names the vendor's coherence protocol from the CPU's model
// name: who serves a line its owner shared (not something a loop measures).
func coherenceOf(cpu string) (string, string) {
	switch {
	case strings.Contains(cpu, "AMD"):
		return "moesi", "an AMD CPU: the core that shared a line forwards it (the L3 is a victim cache)"
	case strings.Contains(cpu, "Intel"):
		return "mesif", "an Intel CPU: the LLC serves a shared line"
	}
	return "", ""
}

// format writes a value as the loader reads it; a latency with its spread
// as "45.000ns ± 1.200ns".
func format(kind byte, v, sd float64) string {
	switch kind {
	case 'd':
		ns := func(x float64) string { return strconv.FormatFloat(x, 'f', 3, 64) + "ns" }
		if sd > 0 {
			return strconv.Quote(ns(v) + " ± " + ns(sd))
		}
		return strconv.Quote(ns(v))
	case 'i':
		return strconv.Itoa(int(v))
	case 'm':
		if v > 0 {
			return strconv.Quote("migrate")
		}
		return strconv.Quote("share")
	}
	return strconv.FormatFloat(v, 'f', 4, 64)
}

func (v Value) comments(figs figures) []string {
	var out []string
	if v.How != "" {
		out = append(out, v.How)
	}
	if v.Fitted {
		out = append(out, "fitted (contend fit) so that scenario host-microbench gives its calibrate figures back")
	}
	for _, name := range v.From {
		if f, ok := figs.get(name); ok {
			out = append(out, describe(f))
		}
	}
	return out
}

// describe gives a figure's median, spread and sample count.
func describe(f Figure) string {
	s := f.Stat
	return fmt.Sprintf("%s: median %.3f ns/op, IQR %.3f-%.3f (%.1f%%), %d samples [%s]",
		f.Name, s.Median, s.Q1, s.Q3, s.IQRPct(), s.N, f.Bench)
}

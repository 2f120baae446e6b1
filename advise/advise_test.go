package advise_test

import (
	"maps"
	"os"
	"slices"
	"strings"
	"testing"

	"contend/advise"
	"contend/models"
	"contend/scenarios"
)

// subject loads testdata/file, runs variant at the workload's cores and
// derives its candidates.
func subject(t *testing.T, file, variant string) (*scenarios.Scenario, []*models.Result, []advise.Candidate) {
	t.Helper()
	s, err := scenarios.Load(os.DirFS("testdata"), file)
	if err != nil {
		t.Fatal(err)
	}
	base := simulate(t, s, variant)
	sub, err := advise.NewSubject(s, variant, base)
	if err != nil {
		t.Fatal(err)
	}
	return s, base, advise.Derive(sub)
}

func simulate(t *testing.T, s *scenarios.Scenario, variant string) []*models.Result {
	t.Helper()
	var out []*models.Result
	for _, p := range s.Replicate([]scenarios.Point{{Variant: variant, Seed: s.Run.Seed}}) {
		r, err := s.Simulate(p)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, r)
	}
	return out
}

// extended loads testdata/file with the candidates appended, as advise's
// caller and --write do.
func extended(t *testing.T, file string, cands []advise.Candidate) *scenarios.Scenario {
	t.Helper()
	src, err := os.ReadFile("testdata/" + file)
	if err != nil {
		t.Fatal(err)
	}
	s, err := scenarios.Parse(os.DirFS("testdata"), file, append(src, advise.Render(cands)...))
	if err != nil {
		t.Fatalf("%v\n%s", err, advise.Render(cands))
	}
	return s
}

func find(cands []advise.Candidate, rule string) *advise.Candidate {
	for i := range cands {
		if cands[i].Rule == rule {
			return &cands[i]
		}
	}
	return nil
}

// Each rule on the scenario made for it: the variant it derives, written
// out by hand from the rule's documentation, and what the simulation says
// of it (a gain, a line that stops moving, time no longer blocked).
func TestRules(t *testing.T) {
	for _, tc := range []struct {
		file, variant, rule string
		want                string // Render of the candidate
		gain                bool   // the candidate is faster
		why                 string // in its explain line
	}{
		{"percpu.toml", "shared", "percpu", `
[[line]]
name = "stats_pcpu"
percpu = true

[[variant]]
name = "shared+percpu-stats"
description = "per-cpu stats"
steps = [
  { compute = "40ns", label = "rx" },
  { store = "stats_pcpu", label = "count" },
]
`, true, "stats stops moving"},
		{"lazy.toml", "eager", "percpu", `
[[line]]
name = "entry_pcpu"
percpu = true

[[variant]]
name = "eager+percpu-entry"
description = "per-cpu entry, flushed once per jiffy"
steps = [
  { compute = "40ns", label = "rx" },
  { load = "entry", label = "lookup" },
  { store = "entry_pcpu", label = "lookup" },
  { once_per_jiffy = "percpu", label = "lookup", steps = [ { store = "entry", label = "lookup" } ] },
]
`, true, "entry stops moving"},
		{"unlock.toml", "locked", "percpu-unlocked", `
[[line]]
name = "stats_pcpu"
percpu = true

[[variant]]
name = "locked+percpu-unlocked"
description = "per-cpu stats; no stats_lock"
steps = [
  { compute = "40ns", label = "rx" },
  { compute = "10ns", label = "enqueue" },
  { store = "stats_pcpu", label = "enqueue" },
]
`, true, "stats_lock stops moving"},
		{"claim.toml", "locked", "claim-store", `
[[lock]]
name = "q_store"
kind = "qspinlock"
prefetch_next = false

[[variant]]
name = "locked+claim-store-q"
description = "q: the queue head claims with a store, not a cmpxchg"
steps = [
  { compute = "5ns", label = "loop" },
  { lock = "q_store" },
  { unlock = "q_store" },
]
`, true, "ns/packet on-CPU"},
		{"claim.toml", "locked", "prefetch-next", `
[[lock]]
name = "q_prefetch"
kind = "qspinlock"
claim = "cmpxchg"

[[variant]]
name = "locked+prefetch-next-q"
description = "q: the new queue head prefetches its successor's node"
steps = [
  { compute = "5ns", label = "loop" },
  { lock = "q_prefetch" },
  { unlock = "q_prefetch" },
]
`, false, "q/mcs_node.* 5.01 → 7.00"},
		{"unlock.toml", "locked", "qspinlock", `
[[lock]]
name = "stats_lock_qspinlock"
kind = "qspinlock"

[[variant]]
name = "locked+qspinlock-stats_lock"
description = "stats_lock: ticket → qspinlock"
steps = [
  { compute = "40ns", label = "rx" },
  { lock = "stats_lock_qspinlock" },
  { compute = "10ns", label = "enqueue" },
  { store = "stats", label = "enqueue" },
  { unlock = "stats_lock_qspinlock" },
]
`, false, "transfers/packet"},
		{"unlock.toml", "locked", "mcs", `
[[lock]]
name = "stats_lock_mcs"
kind = "mcs"

[[variant]]
name = "locked+mcs-stats_lock"
description = "stats_lock: ticket → mcs"
steps = [
  { compute = "40ns", label = "rx" },
  { lock = "stats_lock_mcs" },
  { compute = "10ns", label = "enqueue" },
  { store = "stats", label = "enqueue" },
  { unlock = "stats_lock_mcs" },
]
`, false, "stats_lock/mcs_node.* 0.00 →"},
		{"rwlock.toml", "read-locked", "rcu-readers", `
[[variant]]
name = "read-locked+rcu-table_lock"
description = "readers of table_lock under RCU"
steps = [
  { compute = "40ns", label = "rx" },
  { rcu_read_lock = true },
  { compute = "10ns", label = "lookup" },
  { rcu_read_unlock = true },
]
`, true, "table_lock stops moving"},
		{"sync.toml", "sync", "call_rcu", `
[[variant]]
name = "sync+call_rcu"
description = "synchronize_rcu replaced by call_rcu"
steps = [
  { compute = "2us", label = "insert" },
  { call_rcu = 512 },
]
`, true, "off-CPU in synchronize_rcu"},
		{"sync.toml", "sync", "queue_rcu_work", `
[[variant]]
name = "sync+queue_rcu_work"
description = "synchronize_rcu replaced by queue_rcu_work"
steps = [
  { compute = "2us", label = "insert" },
  { queue_rcu_work = 512 },
]
`, true, "→ 0.00µs/insert"},
		{"ownline.toml", "shared-line", "own-line", `
[[lock]]
name = "queue_lock_own"
kind = "qspinlock"
claim = "cmpxchg"

[[variant]]
name = "shared-line+own-line-queue_lock"
description = "queue_lock on its own line (was on queue)"
steps = [
  { compute = "40ns", label = "rx" },
  { load = "queue", label = "peek" },
  { lock = "queue_lock_own" },
  { compute = "20ns", label = "enqueue" },
  { store = "queue", label = "enqueue" },
  { unlock = "queue_lock_own" },
]
`, false, "queue_lock_own 0.00 →"},
		{"refcount.toml", "shared-count", "percpu_ref", `
[[line]]
name = "refs_pcpu"
percpu = true
percpu_ref = "refs"

[[variant]]
name = "shared-count+percpu_ref-refs"
description = "refs as a percpu_ref (per-cpu get and put until it is killed)"
steps = [
  { compute = "40ns", label = "rx" },
  { percpu_ref_get = "refs_pcpu", label = "dev_hold" },
  { compute = "20ns", label = "xmit" },
  { percpu_ref_put = "refs_pcpu", label = "dev_put" },
]
`, true, "refs stops moving"},
		{"lockref.toml", "shared-line", "own-line", `
[[lock]]
name = "d_lock_own"
kind = "qspinlock"

[[variant]]
name = "shared-line+own-line-d_lock"
description = "d_lock's lockref on its own line (was on dentry)"
steps = [
  { compute = "100ns", label = "walk" },
  { load = "dentry", label = "d_lookup" },
  { compute = "150ns", label = "walk" },
  { lockref_get_not_dead = "d_lock_own", label = "lockref_get_not_dead" },
  { compute = "100ns", label = "stat" },
  { lockref_put_return = "d_lock_own", label = "lockref_put_return" },
]
`, true, "dentry stops moving"},
		{"combined.toml", "eager", "combined", `
[[line]]
name = "entry_pcpu"
percpu = true

[[variant]]
name = "eager+combined"
description = "per-cpu entry, flushed once per jiffy; readers of table_lock under RCU"
steps = [
  { compute = "40ns", label = "rx" },
  { rcu_read_lock = true },
  { load = "entry", label = "lookup" },
  { store = "entry_pcpu", label = "lookup" },
  { once_per_jiffy = "percpu", label = "lookup", steps = [ { store = "entry", label = "lookup" } ] },
  { rcu_read_unlock = true },
]
`, true, "table_lock stops moving"},
		{"split.toml", "locked", "split", `
[[lock]]
name = "q_lock_queue"
kind = "ticket"

[[lock]]
name = "q_lock_stats"
kind = "ticket"

[[variant]]
name = "locked+split-q_lock"
description = "q_lock split in one lock per line (queue, stats)"
steps = [
  { compute = "40ns", label = "rx" },
  { lock = "q_lock_queue" },
  { compute = "150ns", label = "enqueue" },
  { store = "queue", label = "enqueue" },
  { unlock = "q_lock_queue" },
  { lock = "q_lock_stats" },
  { compute = "150ns", label = "count" },
  { store = "stats", label = "count" },
  { unlock = "q_lock_stats" },
]
`, true, "q_lock 4.00 → "},
	} {
		t.Run(tc.rule+"/"+tc.file, func(t *testing.T) {
			s, base, cands := subject(t, tc.file, tc.variant)
			c := find(cands, tc.rule)
			if c == nil {
				t.Fatalf("no %s candidate among %d", tc.rule, len(cands))
			}
			if got := string(advise.Render([]advise.Candidate{*c})); got != tc.want {
				t.Fatalf("derived\n%s\nwant\n%s", got, tc.want)
			}
			ext := extended(t, tc.file, cands)
			got := simulate(t, ext, c.Variant)
			b, g := advise.Rate(s, base[0]), advise.Rate(s, got[0])
			if tc.gain && !(g > 1.05*b) {
				t.Errorf("%s: %v per second, base %v: want a gain", c.Variant, g, b)
			}
			why := advise.Explain(*c, base, got, s.Workload.Unit)
			if !strings.Contains(why, tc.why) {
				t.Errorf("explain %q; want it to say %q", why, tc.why)
			}
			// A lock that takes another's place is the same lock moving,
			// named as the one it replaces; only own-line's word has a
			// line that is new.
			for _, l := range c.Locks {
				if strings.Contains(why, l.Name) && tc.rule != "own-line" {
					t.Errorf("explain %q names %s, not the lock it replaces", why, l.Name)
				}
			}
		})
	}
}

// A lock around nothing a rule made per-cpu stays; a lock kind that
// queues already is not offered again; a variant nothing applies to gets
// nothing.
func TestRulesDoNotApply(t *testing.T) {
	_, _, cands := subject(t, "unlock.toml", "empty")
	var rules []string
	for _, c := range cands {
		rules = append(rules, c.Rule)
	}
	if !slices.Equal(rules, []string{"qspinlock", "mcs"}) {
		t.Errorf("rules %v for a lock around nothing; want only qspinlock and mcs", rules)
	}
	_, _, cands = subject(t, "refcount.toml", "freed")
	if c := find(cands, "percpu_ref"); c != nil {
		t.Errorf("a refcount whose put guards a free was made a percpu_ref: %s", c.What)
	}
	_, _, cands = subject(t, "split.toml", "interleaved")
	if c := find(cands, "split"); c != nil {
		t.Errorf("a section whose lines interleave was split: %s", c.What)
	}
	_, _, cands = subject(t, "split.toml", "gated")
	if c := find(cands, "split"); c != nil {
		t.Errorf("a lock taken only inside a gate was split, changing nothing: %s", c.What)
	}
	_, _, cands = subject(t, "ownline.toml", "shared-line")
	if c := find(cands, "qspinlock"); c != nil {
		t.Errorf("a qspinlock made a qspinlock again: %s", c.What)
	}
	s, err := scenarios.Load(os.DirFS("testdata"), "percpu.toml")
	if err != nil {
		t.Fatal(err)
	}
	one := s.Replicate([]scenarios.Point{{Variant: "shared", Axis: "cores", X: 1, Seed: 1}})
	r, err := s.Simulate(one[0])
	if err != nil {
		t.Fatal(err)
	}
	sub, err := advise.NewSubject(s, "shared", []*models.Result{r})
	if err != nil {
		t.Fatal(err)
	}
	if c := advise.Derive(sub); len(c) != 0 {
		t.Errorf("one CPU moves no line, yet %d candidates (%s)", len(c), c[0].What)
	}
}

func TestUnknownVariant(t *testing.T) {
	s, err := scenarios.Load(os.DirFS("testdata"), "percpu.toml")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := advise.NewSubject(s, "nope", nil); err == nil || !strings.Contains(err.Error(), "shared") {
		t.Errorf("error %v; want one that lists the variants", err)
	}
}

// Explain on counters made by hand: the line that stops moving first, the
// renamed lock compared with the one it replaces, the total.
func TestExplain(t *testing.T) {
	res := func(lines map[string]float64) []*models.Result {
		r := &models.Result{}
		for _, n := range slices.Sorted(maps.Keys(lines)) {
			r.Lines = append(r.Lines, models.LineResult{Name: n, TransfersPerPacket: lines[n]})
		}
		return []*models.Result{r}
	}
	base := res(map[string]float64{"stats": 1, "lock": 2, "state": 0.5})
	got := res(map[string]float64{"stats": 0, "lock": 1.5, "state": 0.5})
	want := "stats stops moving (1.00 → 0), lock 2.00 → 1.50; 3.50 → 2.00 transfers/packet"
	if e := advise.Explain(advise.Candidate{}, base, got, "packet"); e != want {
		t.Errorf("explain %q, want %q", e, want)
	}
	if e := advise.Explain(advise.Candidate{}, base, base, "op"); e != "no line moves less: 3.50 → 3.50 transfers/op" {
		t.Errorf("explain of no change: %q", e)
	}
}

func TestRank(t *testing.T) {
	rows := []advise.Row{{Gain: 5, BandLow: -1}, {Gain: 3, BandLow: 2}, {Gain: 9, BandLow: 2}}
	rows[0].What, rows[1].What, rows[2].What = "a", "b", "c"
	advise.Rank(rows)
	var order string
	for _, r := range rows {
		order += r.What
	}
	if order != "bca" {
		t.Errorf("ranked %s; want by lower bound, ties in the rules' order: bca", order)
	}
}

// A candidate keeps the variant's call_rcu callbacks, written in place, and
// the rules change them too: made per-cpu, the count leaves the callback's
// line moving; made per-cpu, the callback's line stops moving. (Rendered
// without its callback, every candidate of netdev-refcnt gained 22-25%: the
// work of its RCU callbacks was gone.)
func TestCandidatesKeepCallbacks(t *testing.T) {
	_, base, cands := subject(t, "callback.toml", "shared")
	moves := func(rs []*models.Result, line string) float64 {
		for _, l := range rs[0].Lines {
			if l.Name == line {
				return l.TransfersPerPacket
			}
		}
		return 0
	}
	if moves(base, "refs") < 0.01 {
		t.Fatalf("refs, written by the callback, moves %.3f times a packet in the base", moves(base, "refs"))
	}
	for _, tc := range []struct {
		variant, callback string
		refsMoves         bool
	}{
		{"shared+percpu-stats", `steps = [ { rmw = "refs", label = "put" } ]`, true},
		{"shared+percpu-refs", `steps = [ { store = "refs_pcpu", label = "put" } ]`, false},
	} {
		i := slices.IndexFunc(cands, func(c advise.Candidate) bool { return c.Variant == tc.variant })
		if i < 0 {
			t.Fatalf("no candidate %s among %d", tc.variant, len(cands))
		}
		c := cands[i]
		if r := string(advise.Render([]advise.Candidate{c})); !strings.Contains(r, tc.callback) {
			t.Fatalf("%s: want its call_rcu's callback as %s:\n%s", c.Variant, tc.callback, r)
		}
		s := extended(t, "callback.toml", []advise.Candidate{c})
		if !s.RunsCallbacks(s.Variant(c.Variant)) {
			t.Fatalf("candidate %s runs no callback", c.Variant)
		}
		b, g := moves(base, "refs"), moves(simulate(t, s, c.Variant), "refs")
		if tc.refsMoves && g < 0.5*b || !tc.refsMoves && g > 0.001 {
			t.Errorf("%s: refs moves %.3f times a packet (base %.3f); want it still moving: %v", c.Variant, g, b, tc.refsMoves)
		}
	}
}

package advise

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"contend/models"
	"contend/scenarios"
)

// Step is one checked step of a scenario, blocks inlined.
type Step = scenarios.Step

// Line is a line a candidate declares ([[line]]).
type Line struct {
	Name   string
	PerCPU bool
	// PercpuRef names the shared line of the percpu_ref this per-cpu line
	// counts for (its atomic count once the ref is killed).
	PercpuRef string
}

// Lock is a lock a candidate declares ([[lock]]), or one the scenario has.
type Lock struct {
	Name, Kind, Line, Backoff, Claim, Acquire, Release string
	PrefetchNext                                       *bool  // qspinlock, cna: as the scenario wrote it
	replaces                                           string // the lock whose steps now take this one, if any
	ownWord                                            bool   // and whose word had a line of its own, as this one has
}

// Subject is what the rules transform: one variant's code path, the lines
// and locks of its scenario, and what the base run saw.
type Subject struct {
	Variant string
	Steps   []Step
	Lines   []Line
	Locks   []Lock
	// Shared holds the lines more than one CPU took from another in the
	// base run (perf c2c's contended lines).
	Shared map[string]bool
	// FreeBytes is what a deferred free releases: the largest call_rcu,
	// queue_rcu_work or kfree_rcu of the scenario's variants, else 0.
	FreeBytes int64
	variants  []string
}

// Candidate is one derived variant.
type Candidate struct {
	Rule    string // the rule that made it (see rules.go)
	Variant string // its name: the base variant's, a "+" and the change
	What    string // the change, as the table prints it
	Steps   []Step
	Lines   []Line // lines it declares
	Locks   []Lock // locks it declares
}

// NewSubject reads variant of s and the base run's results (its
// replications) into what the rules transform.
func NewSubject(s *scenarios.Scenario, variant string, base []*models.Result) (*Subject, error) {
	v := s.Variant(variant)
	if v == nil {
		return nil, fmt.Errorf("no variant %q; use one of %s", variant, strings.Join(s.VariantNames(), ", "))
	}
	sub := &Subject{Variant: variant, Shared: map[string]bool{}, variants: s.VariantNames()}
	sub.Steps = s.Inline(v)
	for _, l := range s.Lines {
		sub.Lines = append(sub.Lines, Line{Name: l.Name, PerCPU: l.PerCPU})
	}
	for _, l := range s.Locks {
		sub.Locks = append(sub.Locks, Lock{Name: l.Name, Kind: l.Kind, Line: l.Line, Backoff: l.Backoff, Claim: l.Claim, PrefetchNext: l.PrefetchNext, Acquire: l.Acquire, Release: l.Release})
	}
	for _, o := range s.Variants {
		walk(s.Inline(o), func(st Step) {
			if isFree(st.Kind) {
				sub.FreeBytes = max(sub.FreeBytes, st.Bytes)
			}
		})
	}
	for _, r := range base {
		for _, l := range r.Lines {
			takers := 0
			for _, n := range l.TransfersByCPU {
				if n > 0 {
					takers++
				}
			}
			if takers > 1 && !l.PerCPU {
				sub.Shared[l.Name] = true
			}
		}
	}
	return sub, nil
}

func isFree(k scenarios.StepKind) bool {
	return k == scenarios.StepCallRCU || k == scenarios.StepQueueRCUWork || k == scenarios.StepKfreeRCU
}

// walk calls f on every step, gate bodies included.
func walk(steps []Step, f func(Step)) {
	for _, st := range steps {
		f(st)
		walk(st.Steps, f)
	}
}

// mapSteps rewrites steps: f returns a step's replacement and true, or
// false to keep the step and rewrite its gate's body.
func mapSteps(steps []Step, f func(Step) ([]Step, bool)) []Step {
	out := make([]Step, 0, len(steps))
	for _, st := range steps {
		if repl, ok := f(st); ok {
			out = append(out, repl...)
			continue
		}
		if st.Steps != nil {
			st.Steps = mapSteps(st.Steps, f)
		}
		out = append(out, st)
	}
	return out
}

// lock returns the lock called name.
func (sub *Subject) lock(name string) (Lock, bool) {
	for _, l := range sub.Locks {
		if l.Name == name {
			return l, true
		}
	}
	return Lock{}, false
}

func (sub *Subject) line(name string) (Line, bool) {
	for _, l := range sub.Lines {
		if l.Name == name {
			return l, true
		}
	}
	return Line{}, false
}

// used lists, in order of first use, the operands of the steps of kind k.
func used(steps []Step, k scenarios.StepKind) []string {
	var out []string
	walk(steps, func(st Step) {
		if st.Kind == k && !slices.Contains(out, st.Arg) {
			out = append(out, st.Arg)
		}
	})
	return out
}

// fresh returns base, or base with a number, unused by the scenario's
// lines and locks (variants, when variant is set) and by taken.
func (sub *Subject) fresh(base string, variant bool, taken []string) string {
	free := func(n string) bool {
		_, l := sub.line(n)
		_, k := sub.lock(n)
		return !l && !k && !slices.Contains(taken, n) && !(variant && slices.Contains(sub.variants, n))
	}
	name := base
	for i := 2; !free(name); i++ {
		name = fmt.Sprintf("%s_%d", base, i)
	}
	return name
}

// Derive applies every rule to the subject and returns the candidates, in
// the order of rules.go, without repeats.
func Derive(sub *Subject) []Candidate {
	var out []Candidate
	for _, r := range rules {
		for _, c := range r.derive(sub) {
			c.Rule = r.name
			c.Variant = sub.fresh(sub.Variant+"+"+c.Variant, true, nil)
			if !slices.ContainsFunc(out, func(o Candidate) bool { return sameSteps(o.Steps, c.Steps) }) {
				out = append(out, c)
			}
		}
	}
	return out
}

func sameSteps(a, b []Step) bool {
	return slices.EqualFunc(a, b, func(x, y Step) bool {
		return x.Kind == y.Kind && x.Arg == y.Arg && x.Bytes == y.Bytes && x.Label == y.Label && sameSteps(x.Steps, y.Steps)
	})
}

// Render returns the TOML that declares the candidates' lines, locks and
// variants, each declaration once, to append to the scenario file.
func Render(cands []Candidate) []byte {
	var b strings.Builder
	var lines, locks []string
	for _, c := range cands {
		for _, l := range c.Lines {
			if !slices.Contains(lines, l.Name) {
				lines = append(lines, l.Name)
				fmt.Fprintf(&b, "\n[[line]]\nname = %s\npercpu = %v\n", scenarios.Quote(l.Name), l.PerCPU)
				if l.PercpuRef != "" {
					fmt.Fprintf(&b, "percpu_ref = %s\n", scenarios.Quote(l.PercpuRef))
				}
			}
		}
		for _, l := range c.Locks {
			if !slices.Contains(locks, l.Name) {
				locks = append(locks, l.Name)
				renderLock(&b, l)
			}
		}
	}
	for _, c := range cands {
		fmt.Fprintf(&b, "\n[[variant]]\nname = %s\ndescription = %s\nsteps = [\n", scenarios.Quote(c.Variant), scenarios.Quote(c.What))
		for _, st := range c.Steps {
			b.WriteString("  " + renderStep(st) + ",\n")
		}
		b.WriteString("]\n")
	}
	return []byte(b.String())
}

func renderLock(b *strings.Builder, l Lock) {
	fmt.Fprintf(b, "\n[[lock]]\nname = %s\nkind = %s\n", scenarios.Quote(l.Name), scenarios.Quote(l.Kind))
	for _, kv := range [][2]string{{"line", l.Line}, {"backoff", l.Backoff}, {"claim", l.Claim}, {"acquire_label", l.Acquire}, {"release_label", l.Release}} {
		if kv[1] != "" {
			fmt.Fprintf(b, "%s = %s\n", kv[0], scenarios.Quote(kv[1]))
		}
	}
	if l.PrefetchNext != nil {
		fmt.Fprintf(b, "prefetch_next = %t\n", *l.PrefetchNext)
	}
}

// renderStep writes a step as an inline table.
func renderStep(st Step) string {
	var kv []string
	switch {
	case st.Kind.Flag():
		kv = append(kv, st.Kind.String()+" = true")
	case isFree(st.Kind):
		kv = append(kv, st.Kind.String()+" = "+strconv.FormatInt(st.Bytes, 10))
	default:
		kv = append(kv, st.Kind.String()+" = "+scenarios.Quote(st.Arg))
	}
	if st.Label != "" {
		kv = append(kv, "label = "+scenarios.Quote(st.Label))
	}
	if st.Retries > 0 {
		kv = append(kv, "retries = "+strconv.Itoa(st.Retries))
	}
	if len(st.Steps) > 0 {
		body := make([]string, len(st.Steps))
		for i, s := range st.Steps {
			body[i] = renderStep(s)
		}
		kv = append(kv, "steps = [ "+strings.Join(body, ", ")+" ]")
	}
	return "{ " + strings.Join(kv, ", ") + " }"
}

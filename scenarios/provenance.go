package scenarios

import (
	"errors"
	"fmt"
	"strings"

	"contend/cpu"
)

// Locate turns a model error (a deadlock, an unlock of a lock not held, a
// sleep under a spinlock) into an Error at the step as the user wrote it:
// its file and line, the variant or block holding it and its number there.
// The cpu counts steps after blocks are inlined; a user counts them in the
// list they wrote. Other errors are returned as they are.
func (s *Scenario) Locate(err error) error {
	var me *cpu.ModelError
	if !errors.As(err, &me) {
		return err
	}
	name, ok := strings.CutPrefix(me.Program, "variant ")
	v := s.Variant(name)
	if !ok || v == nil {
		return err
	}
	msg := fmt.Sprintf("at %v on cpu %d: %s", me.At, me.Core, me.What)
	k := me.Step
	if s.RunsCallbacks(v) {
		// Build put the callbacks' runner (RCU softirq) first.
		if k == 0 {
			return s.loc.errAt("variant."+v.Name, s.variantAnchors(v), "%s (in RCU softirq, running call_rcu callbacks)", msg)
		}
		k--
	}
	chain := s.locateIn(v.Steps, k)
	if chain == nil { // the program as a whole (a loop that takes no time)
		return s.loc.errAt("variant."+v.Name, s.variantAnchors(v), "%s", msg)
	}
	return s.stepError(v, chain, msg)
}

// frame is one level of where a compiled step came from: step index in a
// list, and the block that list is (empty: the variant's own list or a
// once_per_jiffy body).
type frame struct {
	block string
	steps []Step
	index int
}

// locateIn returns the frames that lead from steps to compiled step k, as
// Build's compile lays them out: a step is one compiled step, a
// once_per_jiffy its gate then its body, a block its body inlined.
func (s *Scenario) locateIn(steps []Step, k int) []frame {
	for i := range steps {
		st := &steps[i]
		n := s.compiledSize(st)
		if k >= n {
			k -= n
			continue
		}
		here := frame{steps: steps, index: i}
		switch {
		case st.Kind == StepBlock:
			inner := s.locateIn(s.Blocks[st.Arg], k)
			if inner == nil {
				return nil
			}
			inner[0].block = st.Arg
			return append([]frame{here}, inner...)
		case k > 0 && k-1 >= expandedSize(st.Steps, s.blockSizes): // a step it adds after its body: the step as written
		case k > 0: // inside a once_per_jiffy body, after its gate
			inner := s.locateIn(st.Steps, k-1)
			if inner == nil {
				return nil
			}
			return append([]frame{here}, inner...)
		}
		return []frame{here}
	}
	return nil
}

// compiledSize is how many compiled steps st becomes.
func (s *Scenario) compiledSize(st *Step) int {
	switch st.Kind {
	case StepBlock:
		return s.blockSizes[st.Arg]
	case StepCallRCU: // its callback is a program of its own
		return 1
	}
	return 1 + st.builtinSteps() + expandedSize(st.Steps, s.blockSizes)
}

// stepError places msg at the innermost frame of chain, in the file that
// defines it, and says how the variant reaches it.
func (s *Scenario) stepError(v *Variant, chain []frame, msg string) *Error {
	// The innermost written list is the last frame's; its table is the last
	// block on the way there, or the variant.
	table, tableAt := "variant "+v.Name, 0
	for i, f := range chain {
		if f.block != "" {
			table, tableAt = "block "+f.block, i
		}
	}
	loc, anchors := s.loc, s.variantAnchors(v)
	if b, ok := strings.CutPrefix(table, "block "); ok {
		anchors = []string{"[block]", keyNeedle(b)}
		if l, ok := s.origin["block."+b]; ok {
			loc = l
		}
	}
	field := strings.Replace(table, " ", ".", 1)
	for _, f := range chain[tableAt:] {
		anchors = append(anchors, stepNeedles(f.steps, f.index)...)
		field += fmt.Sprintf(".steps[%d]", f.index)
	}
	e := loc.errAt(field, anchors, "%s (%s)", msg, reachedBy(v, chain))
	return e
}

// reachedBy says how a variant reaches a step, in the user's numbering.
func reachedBy(v *Variant, chain []frame) string {
	parts := []string{fmt.Sprintf("variant %s step %d", v.Name, chain[0].index+1)}
	for _, f := range chain[1:] {
		if f.block != "" {
			parts = append(parts, fmt.Sprintf("block %s step %d", f.block, f.index+1))
		} else {
			parts = append(parts, fmt.Sprintf("once_per_jiffy step %d", f.index+1))
		}
	}
	return strings.Join(parts, " → ")
}

// variantAnchors lead to a variant's name in its file.
func (s *Scenario) variantAnchors(v *Variant) []string {
	var a []string
	for _, w := range s.Variants {
		a = append(a, "[[variant]]")
		if w == v {
			break
		}
	}
	return append(a, quote(v.Name))
}

// stepNeedles lead from the start of a step list to its step i: every step
// before it, with the bodies they hold, then step i. find searches each after
// the previous, so repeated steps are told apart by their order.
func stepNeedles(steps []Step, i int) []string {
	var out []string
	for j := range steps[:i] {
		out = append(out, stepNeedle(&steps[j]))
		out = append(out, stepNeedles(steps[j].Steps, len(steps[j].Steps))...)
	}
	if i < len(steps) {
		out = append(out, stepNeedle(&steps[i]))
	}
	return out
}

func stepNeedle(st *Step) string { return sameLine(st.Kind.String(), st.operand()) }

// RenameFiles renames the files that errors found after loading name (see
// Locate), as the caller showed them to the user.
func (s *Scenario) RenameFiles(rename func(file string) string) {
	seen := map[*locator]bool{}
	for _, l := range append([]*locator{s.loc}, sortedValues(s.origin)...) {
		if l != nil && !seen[l] {
			seen[l] = true
			l.file = rename(l.file)
		}
	}
	s.File = rename(s.File)
}

func sortedValues(m map[string]*locator) []*locator {
	out := make([]*locator, 0, len(m))
	for _, k := range sortedKeys(m) {
		out = append(out, m[k])
	}
	return out
}

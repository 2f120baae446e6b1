package scenarios

import (
	"fmt"
	"math"
	"strings"

	"contend/sim"
)

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

// orList joins words as "a, b or c".
func orList(words []string) string {
	if len(words) < 2 {
		return strings.Join(words, "")
	}
	return strings.Join(words[:len(words)-1], ", ") + " or " + words[len(words)-1]
}

// atLeast prints a saturated count.
func atLeast(n int) string {
	if n > MaxProgramSteps {
		return fmt.Sprintf("more than %d", MaxProgramSteps)
	}
	return fmt.Sprint(n)
}

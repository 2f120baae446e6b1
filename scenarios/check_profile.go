package scenarios

import (
	"fmt"
	"strings"

	"contend/cacheline"
	"contend/cpu"
	"contend/sim"
)

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
	if p.MissOverlap != nil {
		pr.MissOverlap = *p.MissOverlap
	}
	if p.RunAhead != nil {
		pr.RunAhead = *p.RunAhead
	}
	if p.ReorderReach != nil {
		pr.ReorderReach = *p.ReorderReach
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
		{"llc_occupancy", p.LLCOccupancy}, {"snoop_window", p.SnoopWindow}, {"load_after_atomic", p.LoadAfterAtomic},
		{"store_after_atomic", p.StoreAfterAtomic}, {"spin_clear", p.SpinClear},
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
var optionalLatency = map[string]bool{"store_drain": true, "llc_hit": true, "other_llc": true, "pause": true, "llc_occupancy": true, "snoop_window": true, "load_after_atomic": true, "store_after_atomic": true, "spin_clear": true}

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
	case "load_after_atomic":
		return &p.LoadAfterAtomic
	case "store_after_atomic":
		return &p.StoreAfterAtomic
	case "spin_clear":
		return &p.SpinClear
	}
	return nil
}

package scenarios

import (
	"contend/cacheline"
	"contend/cpu"
	"contend/models"
)

// percpuRef returns the percpu_ref whose per-cpu counters are on the line
// called name, made on first use.
func (b *builder) percpuRef(name string) *models.PercpuRef {
	if b.refs == nil {
		b.refs = map[string]*models.PercpuRef{}
	}
	r, ok := b.refs[name]
	if !ok {
		for _, l := range b.s.Lines {
			if l.Name == name {
				r = b.w.NewPercpuRef(name, b.lines[name], b.lines[l.PercpuRef], refSwitchLabel)
			}
		}
		b.refs[name] = r
	}
	return r
}

// ref compiles a refcount_t's or a percpu_ref's step, and the steps it
// guards after it.
func (b *builder) ref(st *Step, depth int) []cpu.Step {
	body := b.compile(st.Steps, depth+1, "")
	label := b.label(st)
	var head cpu.Step
	switch st.Kind {
	case StepRefcountInc, StepRefcountDecAndTest:
		op := models.RefcountInc
		if st.Kind == StepRefcountDecAndTest {
			op = models.RefcountDecAndTest
		}
		head = &models.RefcountStep{W: b.refcount(st.Arg), Op: op, Zero: len(body), Label: label}
	case StepRefcountIncNotZero:
		head = models.RefcountIncNotZero(b.refcount(st.Arg), len(body), label)
	case StepPercpuRefKill:
		head = &models.PercpuRefKill{R: b.percpuRef(st.Arg), Label: label}
	default:
		op := map[StepKind]models.PercpuRefOp{StepPercpuRefGet: models.PercpuRefGet, StepPercpuRefPut: models.PercpuRefPut, StepPercpuRefTrygetLive: models.PercpuRefTrygetLive}[st.Kind]
		head = &models.PercpuRefStep{R: b.percpuRef(st.Arg), Op: op, Skip: len(body), Label: label}
	}
	return append([]cpu.Step{head}, body...)
}

// refcount returns the refcount_t on the line called name, made at 1 on
// first use.
func (b *builder) refcount(name string) *models.Word {
	line := b.lines[name]
	if wd, ok := b.words[line]; ok {
		return wd
	}
	wd := b.w.NewRefcount(name, line)
	if b.words == nil {
		b.words = map[*cacheline.Line]*models.Word{}
	}
	b.words[line] = wd
	return wd
}

package scenarios

import (
	"contend/cacheline"
	"contend/cpu"
	"contend/models"
)

// word returns the word on line that cmpxchg loops update, made on first
// use: a cmpxchg step and a lockref whose lock is on the same line update
// one word.
func (b *builder) word(line *cacheline.Line) *models.Word {
	if b.words == nil {
		b.words = map[*cacheline.Line]*models.Word{}
	}
	wd, ok := b.words[line]
	if !ok {
		wd = b.w.NewWord(line.Name, line, nil)
		b.words[line] = wd
	}
	return wd
}

// loop compiles a cmpxchg loop and its fallback: a cmpxchg step's block,
// or a lockref operation's own.
func (b *builder) loop(st *Step, depth int) []cpu.Step {
	fallback := b.compile(st.Steps, depth+1, "")
	if st.Kind == StepCmpxchg {
		loop := &models.CmpxchgStep{W: b.word(b.lines[st.Arg]), Retries: st.Retries, Fallback: len(fallback), Delta: 1, Relax: st.Relax, Label: b.label(st)}
		return append([]cpu.Step{loop}, fallback...)
	}
	l := b.spin[st.Arg]
	wd := b.word(l.Line)
	wd.Lock = l
	r := &models.Lockref{Word: wd, Lock: l}
	op := map[StepKind]models.LockrefOp{StepLockrefGet: models.LockrefGet, StepLockrefGetNotDead: models.LockrefGetNotDead, StepLockrefPutReturn: models.LockrefPutReturn}[st.Kind]
	return r.Steps(op, b.label(st), fallback, st.Relax)
}

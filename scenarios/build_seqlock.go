package scenarios

import (
	"contend/cacheline"
	"contend/cpu"
	"contend/models"
)

// seqcount returns the seqcount on line, made on first use.
func (b *builder) seqcount(line *cacheline.Line) *models.Seqcount {
	if b.seqs == nil {
		b.seqs = map[*cacheline.Line]*models.Seqcount{}
	}
	s, ok := b.seqs[line]
	if !ok {
		s = b.w.NewSeqcount(line.Name, line)
		b.seqs[line] = s
	}
	return s
}

// seq compiles a seqcount's or a seqlock's step: a seqlock's writer takes
// its spinlock around the write section, and a read section is its steps
// between read_seqcount_begin and read_seqcount_retry.
func (b *builder) seq(st *Step, depth int) []cpu.Step {
	label := b.label(st)
	var s *models.Seqcount
	var l *models.Spinlock
	if wants[st.Kind] == "line" {
		s = b.seqcount(b.lines[st.Arg])
	} else {
		l = b.spin[st.Arg]
		s = b.seqcount(l.Line)
	}
	switch st.Kind {
	case StepWriteSeqcountBegin:
		return []cpu.Step{&models.SeqWriteBegin{S: s, Label: label}}
	case StepWriteSeqcountEnd:
		return []cpu.Step{&models.SeqWriteEnd{S: s, Label: label}}
	case StepWriteSeqlock:
		return []cpu.Step{&models.LockStep{L: l}, &models.SeqWriteBegin{S: s, Label: label}}
	case StepWriteSequnlock:
		return []cpu.Step{&models.SeqWriteEnd{S: s, Label: label}, &models.UnlockStep{L: l}}
	}
	body := b.compile(st.Steps, depth+1, "")
	out := append([]cpu.Step{&models.SeqReadBegin{S: s, Label: label}}, body...)
	return append(out, &models.SeqReadRetry{S: s, Back: len(body) + 1, Label: label})
}

package scenarios

import (
	"contend/cacheline"
	"contend/models"
)

// srcu returns the srcu_struct on the line called name, made on first use
// with its per-cpu srcu_data beside it.
func (b *builder) srcu(name string) *models.SRCU {
	if b.srcus == nil {
		b.srcus = map[string]*models.SRCU{}
	}
	s, ok := b.srcus[name]
	if !ok {
		s = b.w.NewSRCU(name, b.lines[name], b.hiddenLine(name+".srcu_data"))
		b.srcus[name] = s
	}
	return s
}

// taskLine returns the per-cpu line of the running tasks' own fields, made
// on first use.
func (b *builder) taskLine() *cacheline.Line {
	if b.task == nil {
		b.task = b.hiddenLine("task_struct")
	}
	return b.task
}

// hiddenLine makes a per-cpu line the file does not declare; a name the
// file already uses is a clash the checker does not see, reported here.
func (b *builder) hiddenLine(name string) *cacheline.Line {
	line, err := b.w.M.NewLine(name, true)
	if err != nil {
		b.fail("%v; rename the line the file declares as %q", err, name)
		line, _ = b.w.M.NewLine(name+"'", true)
	}
	return line
}

package web

import (
	"fmt"

	"contend/models"
	"contend/report"
)

// Explain is what the explain view shows beside the result's tables: the
// CLI's explanation of the point, sentence for sentence (contend explain
// prints the same "why:" paragraphs), and where its CPUs sit.
type Explain struct {
	// Unit names what the tables are per: the flood's unit of work, or the
	// batch's operation when only a batch ran.
	Unit string `json:"unit"`
	// Kernel names the kernel the RCU figures are of ("kernel 4.2, HZ=1000").
	Kernel string `json:"kernel"`
	// CPUs say where each CPU of the run sits.
	CPUs []string `json:"cpus"`
	// Why are the paragraphs of contend explain that say why: each lock,
	// each line that moves, the RCU waits, each of the phases of a
	// synchronize_rcu (PhaseWhy, in the order of result.rcu.timeline).
	Why      []string `json:"why"`
	PhaseWhy []string `json:"phase_why"`
}

// explainOf explains res, a run of w: the paragraphs contend explain
// writes after its tables, from its own writer (report.Why).
func explainOf(w *models.World, res *models.Result, unit string) Explain {
	e := Explain{Unit: unit, Kernel: report.KernelName(w.K), CPUs: []string{}, Why: report.Why(w, res, unit), PhaseWhy: []string{}}
	for _, c := range res.Cores {
		e.CPUs = append(e.CPUs, fmt.Sprintf("cpu %d (%s): %s", c.CPU, c.Role, w.M.Topology().Where(c.CPU)))
	}
	for i := range res.RCU.Timeline {
		e.PhaseWhy = append(e.PhaseWhy, report.PhaseWhy(w.K, i))
	}
	return e
}

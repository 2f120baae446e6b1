package report

import (
	"bytes"
	"strings"

	"contend/models"
)

// Why returns the paragraphs of contend explain that say why a point costs
// what it does, each on one line: what the RCU waits are and what waited to
// be freed, what each lock costs, and each line that moves, in explain's
// order and words. A page that shows explain (web/) takes them from here,
// so the two never say different things.
func Why(w *models.World, res *models.Result, unit string) []string {
	var buf bytes.Buffer
	writeWhy(&buf, w, res, unit)
	return paragraphs(buf.String())
}

// writeWhy writes every why paragraph of a point, in explain's order.
func writeWhy(buf *bytes.Buffer, w *models.World, res *models.Result, unit string) {
	writeRCUWhy(buf, w, res)
	writeLockWhy(buf, w.M.Profile(), res, unit)
	writeCmpxchgWhy(buf, res, unit)
	writeSeqWhy(buf, res)
	writeLineWhy(buf, res, unit)
	writeClearWhy(buf, w.M.Profile(), res, unit)
}

// paragraphs joins each "why:" or "deferred frees:" line of explain's text
// with the indented lines under it.
func paragraphs(text string) []string {
	out := []string{}
	in := false
	for _, l := range strings.Split(text, "\n") {
		switch {
		case strings.HasPrefix(l, "why: ") || strings.HasPrefix(l, "deferred frees: "):
			out = append(out, l)
			in = true
		case in && strings.HasPrefix(l, "  "):
			out[len(out)-1] += " " + strings.TrimSpace(l)
		default:
			in = false
		}
	}
	return out
}

// KernelName names the kernel RCU figures are of: "kernel 4.2, HZ=1000".
func KernelName(k models.Kernel) string { return kernelName(k) }

// PhaseWhy says where phase i of a synchronize_rcu comes from under k.
func PhaseWhy(k models.Kernel, i int) string { return phaseWhy(k, i) }

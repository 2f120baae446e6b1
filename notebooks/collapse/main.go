package main

import (
	"embed"
	"fmt"

	"contend/band"
	"contend/figures"
	"contend/notebooks/nb"
)

//go:embed collapse.toml
var files embed.FS

func main() {
	s := nb.Load(files, "collapse.toml")
	f := nb.Make(s, figures.Options{Kind: "scaling", Bands: band.Committed()})
	at := func(variant, x string) float64 {
		return nb.Value(f, "value", "variant="+variant, "x="+x, "kind=prediction")
	}
	peak, peakAt := 0.0, ""
	for _, x := range []string{"1", "2", "4", "6", "8", "12", "16", "20", "24", "28"} {
		if v := at("ticket", x); v > peak {
			peak, peakAt = v, x
		}
	}
	nb.Save("collapse-scaling", "Ticket vs MCS spinlock collapse (prediction)", f, fmt.Sprintf(`
Total throughput of CPUs that each run %.0f ns of private work and then a short
critical section under one spinlock, on the E5-2695 of seed 003 (mean of
%d seeds, 95%% interval). No one measured this machine: every point is a
prediction, shaded in the 90%% error band of its kind over the published
cases. The ticket lock peaks at %.1f M acquisitions/s on %s CPUs and
falls to %.1f on 28; MCS gives %.1f and qspinlock %.1f on 28.`,
		s.Params["work"].Dur.PS/1e3, s.Run.Replications, peak, peakAt, at("ticket", "28"), at("mcs", "28"), at("qspinlock", "28")))
}

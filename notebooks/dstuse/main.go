package main

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"contend/band"
	"contend/figures"
	"contend/notebooks/nb"
)

func main() {
	s := nb.Builtin("dst-use")
	f := nb.Make(s, figures.Options{Kind: "scaling", Bands: band.Committed()})
	// How far apart the patch and the lastuse check are predicted: within
	// 1% the figure draws them as one line.
	apart := 0.0
	for _, x := range nb.Column(f, "x") {
		q := strconv.FormatFloat(x, 'g', -1, 64)
		a := nb.Value(f, "value", "variant=percpu-lazy", "x="+q, "kind=prediction")
		b := nb.Value(f, "value", "variant=lastuse-check", "x="+q, "kind=prediction")
		apart = max(apart, math.Abs(nb.Pct(a, b)))
	}
	var table strings.Builder
	table.WriteString("| RX queues | before, measured | before, predicted | after, measured | after, predicted |\n|---:|---:|---:|---:|---:|\n")
	for _, q := range []string{"2", "3", "4", "5", "6"} {
		fmt.Fprintf(&table, "| %s |", q)
		for _, v := range []string{"eager", "percpu-lazy"} {
			measured := nb.Value(f, "value", "variant="+v, "x="+q, "kind=calibrate|validate")
			predicted := nb.Value(f, "value", "variant="+v, "x="+q, "kind=prediction")
			fmt.Fprintf(&table, " %.0f kpps | %.0f kpps (%+.1f%%) |", measured, predicted, nb.Pct(measured, predicted))
		}
		table.WriteString("\n")
	}
	nb.Save("dst-use-scaling", "ipv6 dst __use: eager vs per-cpu lazy update (seed 004)", f, fmt.Sprintf(`
UDP flood throughput against the number of RX queues (one CPU each). Lines
are contend's predictions (mean of %d seeds, 95%% interval; shaded, the 90%%
error band of their kind over the published cases) for the four ways
the thread discusses: eager (before), per-cpu lazy flush once per jiffy (the
patch), writing only when lastuse != jiffies, and tb6_lock converted to RCU.
Markers are the commit message's table (filled: the two calibrate points).
The lastuse check is predicted within %.1f%% of the per-cpu lazy update at
every point: one line stands for both.

%s
With 12 queues, eager is predicted at %.0f kpps and the patch at %.0f kpps;
the RCU conversion, which no one measured, at %.0f kpps.`,
		max(s.Run.Replications, 1), apart, table.String(),
		nb.Value(f, "value", "variant=eager", "x=12", "kind=prediction"),
		nb.Value(f, "value", "variant=percpu-lazy", "x=12", "kind=prediction"),
		nb.Value(f, "value", "variant=rcu", "x=12", "kind=prediction")))
}

package main

import (
	"fmt"

	"contend/band"
	"contend/figures"
	"contend/notebooks/nb"
)

func main() {
	s := nb.Builtin("ingress")
	f := nb.Make(s, figures.Options{Kind: "scaling", Replications: 5, Bands: band.Committed()})
	pred := func(series, variant, x string) float64 {
		return nb.Value(f, "value", "series="+series, "variant="+variant, "x="+x, "kind=prediction")
	}
	meas := func(series, variant, x string) float64 {
		return nb.Value(f, "value", "series="+series, "variant="+variant, "x="+x, "kind=validate")
	}
	nb.Save("ingress-scaling", "Ingress qdisc: locked vs lockless (seeds 000, 003)", f, fmt.Sprintf(`
Per-CPU throughput of the ingress qdisc against the number of CPUs receiving
packets, on the two machines of the thread; lines are contend's predictions
(mean of 5 seeds, 95%% interval), shaded in their 90%% error band (how far
published figures of the same kind have lain from the model), markers the
published numbers (filled: calibrate, outlined: validate). On the E5-2695, the locked qdisc gives
%.2f Mpps per CPU alone and %.2f Mpps per CPU on 2 CPUs; lockless stays at
%.2f. On the author's box the lockless patch is predicted at %.2f Mpps per
CPU on 2 CPUs (measured %.2f), the locked one at %.2f on 16.`,
		pred("ingress-bare", "locked", "1"), pred("ingress-bare", "locked", "2"), pred("ingress-bare", "lockless", "16"),
		pred("ingress-u32", "lockless", "2"), meas("ingress-u32", "lockless", "2"), pred("ingress-u32", "locked", "16")))

	b := nb.Make(s, figures.Options{Kind: "breakdown", Series: "ingress-u32", X: 4})
	share := func(variant, state string) float64 {
		sum := 0.0
		for _, row := range b.Rows {
			if row[1] == variant && row[5] == state {
				sum += nb.Value(b, "pct_of_cpu_time", "variant="+variant, "state="+state, "symbol="+row[4])
			}
		}
		return sum
	}
	nb.Save("ingress-breakdown", "Where 4 CPUs spend their time (seed 000's box)", b, fmt.Sprintf(`
CPU time of 4 CPUs receiving packets through the ingress qdisc, by state.
Locked, %.0f%% of it is spent spinning for qdisc_lock and %.0f%% doing
work; lockless, %.0f%% is work.`,
		share("locked", "spin"), share("locked", "work"), share("lockless", "work")))

	h := nb.Make(s, figures.Options{Kind: "heatmap", Series: "ingress-u32", Variant: "locked", X: 4})
	per := func(line string) float64 {
		return nb.Value(h, "transfers_per_packet", "line="+line, "cpu=0")
	}
	nb.Save("ingress-heatmap", "Which lines move, to which CPU (seed 000's box)", h, fmt.Sprintf(`
Cache-line transfers per packet, by line and by the CPU whose miss caused
them, 4 CPUs, locked ingress: the simulated perf c2c. Each packet pulls
qdisc_lock %.1f times (the ticket waiters re-read it on every release) and
the shared stats line qdisc_bstats %.1f time; the per-cpu stats of the
lockless patch never move.`, per("qdisc_lock"), per("qdisc_bstats")))
}

package main

import (
	"fmt"
	"log"
	"slices"

	"contend/band"
	"contend/figures"
	"contend/notebooks/nb"
	"contend/sim"
)

func main() {
	s := nb.Builtin("flower-insert")
	f := nb.Make(s, figures.Options{Kind: "insertion", Bands: band.Committed()})
	at := func(variant, metric, kind string) float64 {
		return nb.Value(f, "value", "variant="+variant, "metric="+metric, "x=20000", "kind="+kind)
	}
	// The caption says the three are predicted alike; the figure draws one
	// line for them only then.
	for _, x := range []string{"1000", "5000", "10000", "20000"} {
		for _, v := range []string{"deferred-free", "matchall"} {
			pre := nb.Value(f, "value", "variant=pre-regression", "metric=duration", "x="+x, "kind=prediction")
			if got := nb.Value(f, "value", "variant="+v, "metric=duration", "x="+x, "kind=prediction"); got != pre {
				log.Fatalf("%s at %s filters: %g s, pre-regression %g s: the caption says they are the same", v, x, got, pre)
			}
		}
	}
	nb.Save("flower-insertion", "tc flower: insertion time since 5.2 (seed 002)", f, fmt.Sprintf(`
Time to insert N flower filters with tc -b (log-log; shaded, each
prediction's 90%% error band over the published cases) and the CPU
utilisation of the inserting task. With 20 000 filters, 5.1 (pre-regression)
took %.1f s (calibrate point, predicted %.1f s); 5.2, which calls
synchronize_rcu per filter, took %.0f s and is predicted at %.0f s (%+.1f%%),
at %.1f%% CPU: the task sleeps for a grace period per filter. Deferring the
free (queue_rcu_work) is predicted at %.1f s, the same as 5.1 and as
matchall at every point: one line stands for the three.`,
		at("pre-regression", "duration", "calibrate"), at("pre-regression", "duration", "prediction"),
		at("sync-rcu", "duration", "validate"), at("sync-rcu", "duration", "prediction"),
		nb.Pct(at("sync-rcu", "duration", "validate"), at("sync-rcu", "duration", "prediction")),
		at("sync-rcu", "cpu_util", "prediction"), at("deferred-free", "duration", "prediction")))

	t := nb.Make(s, figures.Options{Kind: "timeline", Variant: "deferred-free", X: 1000, Window: 60 * sim.Millisecond})
	peak := slices.Max(nb.Column(t, "pending_bytes"))
	nb.Save("flower-timeline", "Deferred frees wait for grace periods (seed 002's fix)", t, fmt.Sprintf(`
The first 60 ms of inserting 1000 filters with the free deferred to
queue_rcu_work (1 KiB per filter): memory waiting for a grace period
(top) and grace periods ended (bottom); shaded bands are grace periods in
progress. The inserting task never blocks; up to %.0f KiB waits to be freed,
released in batches as grace periods end.`, peak/1024))
}

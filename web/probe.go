package web

import (
	"errors"
	"fmt"
	"math"
	"strconv"

	"contend/models"
	"contend/sim"
)

// probeEvents is how many events the probe of a run simulates: enough to
// pass the start-up of every built-in scenario's programs, few enough to
// cost a browser's start a few milliseconds.
const probeEvents = 300_000

// fitMargin is the share of the event bound an estimate may fill: the probe
// sees the start of a run, whose events may come a little thinner than
// later ones.
const fitMargin = 0.9

// estimate is what a probe says of a run: when it will end (0: not known)
// and how many events a nanosecond of it takes.
type estimate struct {
	end      sim.Time
	perNs    float64
	measured bool // the probe ran the whole point
}

// probe simulates the first probeEvents events of the job's first
// replication and estimates from their pace whether the whole run ends
// within the scenario's event bound ([run] max_events). A run that would
// not is refused before it starts, with the longest duration that fits (a
// flood), and the end of a run that fits is known before it starts, so
// that its samples can be spread over it.
func (j *job) probe() (estimate, error) {
	w, spec, err := j.build(0)
	if err != nil {
		return estimate{}, err
	}
	bound := spec.MaxEvents
	spec.MaxEvents = probeEvents
	if bound > 0 {
		spec.MaxEvents = min(bound, probeEvents)
	}
	res, err := w.Run(spec)
	switch {
	case err == nil:
		end := spec.Warmup + spec.Duration
		if res.Batch != nil {
			end = spec.Warmup + sim.FromSeconds(res.Batch.Seconds)
		}
		return estimate{end: end, measured: true}, nil
	case !errors.Is(err, sim.ErrEventLimit):
		return estimate{}, err
	case bound > 0 && bound <= probeEvents:
		return estimate{}, j.tooLong(spec, bound, float64(bound)/w.M.Now().Nanoseconds(), 0)
	}
	perNs := float64(probeEvents) / max(w.M.Now().Nanoseconds(), 1e-3)
	est := estimate{perNs: perNs}
	if spec.Batch == nil {
		est.end = spec.Warmup + spec.Duration
	} else if est.end, err = j.batchEnd(w.M.Now()); err != nil {
		return estimate{}, err
	}
	if bound > 0 && est.end > 0 && perNs*est.end.Nanoseconds() > fitMargin*float64(bound) {
		return estimate{}, j.tooLong(spec, bound, perNs, est.end)
	}
	return est, nil
}

// batchEnd estimates when a batch ends from the operations it has done by
// reached (the simulated time the probe got to): a second probe as long,
// sampled, counts them. Zero when none was done: no estimate.
func (j *job) batchEnd(reached sim.Time) (sim.Time, error) {
	w, spec, err := j.build(0)
	if err != nil {
		return 0, err
	}
	var last models.Sample
	spec.MaxEvents = probeEvents
	spec.SampleEvery = max(reached/64, 1)
	spec.Observe = func(s models.Sample) { last.Now, last.BatchOps = s.Now, s.BatchOps }
	if _, err := w.Run(spec); err != nil && !errors.Is(err, sim.ErrEventLimit) {
		return 0, err
	}
	if last.BatchOps == 0 || last.Now <= spec.Warmup {
		return 0, nil
	}
	per := float64(last.Now-spec.Warmup) / float64(last.BatchOps)
	return spec.Warmup + sim.Time(per*float64(spec.Batch.Ops)), nil
}

// tooLong is the refusal of a run that needs more than bound events at
// perNs events a nanosecond, ending at end (0: not known).
func (j *job) tooLong(spec models.RunSpec, bound uint64, perNs float64, end sim.Time) error {
	pace := fmt.Sprintf("about %s events per simulated ms, from a probe of its first %d", count(perNs*1e6), min(bound, probeEvents))
	if spec.Batch != nil {
		need := ""
		if end > 0 {
			need = fmt.Sprintf(" (about %s simulated events, to end at %s)", count(perNs*end.Nanoseconds()), human(end))
		}
		return fmt.Errorf("this batch would not end within its bound of %d simulated events ([run] max_events)%s, at %s: lower [workload] batch_ops in the editor, or raise [run] max_events", bound, need, pace)
	}
	what := "the scenario's duration " + human(spec.Duration)
	if j.duration > 0 {
		what = "duration " + human(j.duration)
	}
	most := sim.Time(fitMargin*float64(bound)/perNs*float64(sim.Nanosecond)) - spec.Warmup
	if most <= 0 {
		return fmt.Errorf("%s: even the warm-up of %s takes more than the bound of %d simulated events ([run] max_events), at %s: raise [run] max_events in the editor", what, human(spec.Warmup), bound, pace)
	}
	return fmt.Errorf("%s: the run would take about %s simulated events, over its bound of %d ([run] max_events), at %s: give a duration up to %s, or raise [run] max_events in the editor",
		what, count(perNs*(spec.Warmup+spec.Duration).Nanoseconds()), bound, pace, human(floor2(most)))
}

// floor2 rounds t down to two significant digits, so that the duration
// offered is a figure to type and is still within the bound.
func floor2(t sim.Time) sim.Time {
	if t < 100 {
		return t
	}
	p := sim.Time(math.Pow10(int(math.Floor(math.Log10(float64(t)))) - 1))
	return t / p * p
}

// human writes t as a duration the start message takes ("410ms", "1.5s").
func human(t sim.Time) string {
	for _, u := range []struct {
		name string
		size sim.Time
	}{{"s", sim.Second}, {"ms", sim.Millisecond}, {"us", sim.Microsecond}, {"ns", sim.Nanosecond}} {
		if t >= u.size {
			return strconv.FormatFloat(float64(t)/float64(u.size), 'f', -1, 64) + u.name
		}
	}
	return strconv.FormatInt(int64(t), 10) + "ps"
}

// count writes a large count with its order of magnitude in words.
func count(n float64) string {
	switch {
	case n >= 1e9:
		return strconv.FormatFloat(n/1e9, 'f', 1, 64) + " billion"
	case n >= 1e6:
		return strconv.FormatFloat(n/1e6, 'f', 1, 64) + " million"
	}
	return strconv.FormatFloat(math.Round(n), 'f', -1, 64)
}

// Package sweep lays out and simulates the points of contend run and sweep:
// a Plan numbers every point of every scenario, series and axis in one
// list, simulates them on a pool of workers drawing from one queue, and
// averages each point's replications into the Tables that report prints.
// Results never depend on the number of workers: values come back in the
// plan's order and the error of the lowest point wins. ProgressLines and
// ProgressBar show the points simulated while a long run goes on.
// Validation.Add predicts a scenario's reference points for validate, and
// Explain runs the one point explain looks into, with its coherence trace.
//
// # Shards and spread
//
// A sweep cut into shards (Slice: every Nth point, dealt round-robin; from
// I/N or a Kubernetes Indexed Job's or a Slurm array's variables) writes a
// Shard that carries its plan and a digest, and Merge puts the shards of
// one sweep back together into the tables one sweep would print, refusing
// any that do not belong. Draws samples a series' profile by Latin
// hypercube over the spread of its values, and Summarize gives the median
// and 90% interval of a prediction over those samples. Plan.Bands gives
// each value its error band and, where it has an interval too, the
// interval widened by the band (band.Band.Widen).
package sweep

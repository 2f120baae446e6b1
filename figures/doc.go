// Package figures draws paper-ready figures of a scenario's predictions with
// gonum/plot: throughput against the series axis with the published points
// over it (scaling), where CPU time goes per variant (breakdown), which CPUs
// move which cache lines (heatmap), RCU grace periods and memory waiting to be
// freed over time (timeline), control-plane insertion time against the
// number of filters (insertion), each published change measured against
// predicted (changes), and the first line transfers of a run, a lane per
// line (transfers). Given the error bands learned from the published cases
// (Options.Bands), each prediction shows how far to trust it: a curve
// shaded in its band, a change with a bar through it.
//
// # Figures are data first
//
// Make simulates the points a figure needs and returns a Figure: its table
// (the CSV behind it, sorted, one row per plotted value) and its panels.
// Render draws it at a width meant for one column of a two-column paper
// (3.4 in), in SVG, PNG, PDF or EPS; the same scenario and seed give the same
// SVG bytes. Nothing here reads files or the clock: the caller decides where
// the bytes go.
package figures

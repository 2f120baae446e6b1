// Package perffile reads what kernel engineers measure, as they paste it
// into a mailing-list post or save it from a terminal: perf stat runs, perf
// report listings (the TUI's, perf report --stdio's, or rows alone), perf
// c2c report --stdio, /proc/lock_stat, time_bench lines of the kernel's
// benchmark modules, and CSV tables of measured points (variant, axis, x,
// metric, value, unit). Import turns every figure it finds into a
// [[series.reference]] entry of a scenario, its source naming the file and
// line it came from; Compare puts them beside a simulated result.
//
// # Matching
//
// A perf c2c cacheline is a scenario line's when the symbols of its Pareto
// include a label of a step that touches the line, or when its address is
// given; a lock_stat class is a lock's when its name holds the lock's as a
// word, or when it is given. A line's figures are its share of the HITMs of
// the lines matched and its HITMs over its sampled loads; a lock's, its
// contentions over its acquisitions.
//
// # Strictness
//
// Quoted lines ("> ...") are read with their quote marks taken off; a block
// that repeats the figures of one above it (a reply quoting it) is dropped. A
// number is finite and written plainly or with perf's thousands separators;
// a line laid out as a perf stat count whose value is not one is refused,
// not dropped; perf stat counts become per-packet figures only with the
// packets they covered. Every error names the file and line and says what
// to give instead.
package perffile

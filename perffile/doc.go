// Package perffile reads what kernel engineers measure, as they paste it
// into a mailing-list post or save it from a terminal: perf stat runs, perf
// report listings, time_bench lines of the kernel's benchmark modules, and
// CSV tables of measured points (variant, axis, x, metric, value, unit).
// Import turns every figure it finds into a [[series.reference]] entry of a
// scenario, its source naming the file and line it came from.
//
// # Strictness
//
// Quoted lines ("> ...") are skipped: they repeat an earlier message. A
// number is finite and written plainly or with perf's thousands separators;
// a line laid out as a perf stat count whose value is not one is refused,
// not dropped; perf stat counts become per-packet figures only with the
// packets they covered. Every error names the file and line and says what
// to give instead.
package perffile

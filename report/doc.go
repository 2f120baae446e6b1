// Package report turns results into what contend prints: the tables of run,
// sweep and merge, validate's reference points and changes, explain's
// simulated perf report and perf c2c with the why of each lock and line
// and measured figures beside them (explain --compare),
// advise's ranking and calibrate's figures, as text laid out to paste into a
// mailing-list post, CSV and JSON. Every function takes result values and a
// buffer and holds no state of its own (no flags, no files), so that every
// front end, the command line today and the browser's server next, renders
// one result the same way.
//
// # Text that is safe to show
//
// Names come from scenario files, which anyone may write. TermText escapes
// every control and bidirectional character a terminal would act on,
// JSONText does the same inside the strings of JSON, and CSVWriter defuses
// cells a spreadsheet would run as formulas; numbers are printed by Num,
// Fixed and Signed, which never show -0.
package report

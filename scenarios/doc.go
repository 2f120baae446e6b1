// Package scenarios loads scenario files and turns them into runnable models.
//
// # Language
//
// A scenario (TOML) names hardware profiles, kernel settings, shared workload
// costs (params), cache lines and locks, reusable step blocks, the variants of
// a patch as step lists, the workload, sweep axes, run length and seeds. A
// series ties one measured machine to a profile, its free parameters and its
// reference points, each marked `calibrate` or `validate`. Durations are strings
// with units ("25ns", "40cyc", "7ms") or the name of a param. Loading is strict:
// every error names the file, line, column, field and the fix. A file may
// include others for shared profiles and blocks.
//
// # Built-ins
//
// The scenarios that reproduce the seeds are embedded (ingress, dst-use,
// flower-insert) and can be read as files in this folder.
package scenarios

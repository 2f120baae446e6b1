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
// include others for shared profiles and blocks. Before anything runs, every
// number, file size and expansion of blocks and includes is held to the
// bounds of bounds.go, so any file is answered within seconds; a fault found
// while simulating (a deadlock, an unlock not held) is placed at the step as
// written, through the blocks that reach it.
//
// # Built-ins
//
// The scenarios that reproduce the seeds are embedded (ingress, dst-use,
// flower-insert) and can be read as files in this folder.
package scenarios

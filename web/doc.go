// Package web is contend serve: an HTTP and websocket server and the
// browser page that runs scenarios and draws them live. The page picks a
// scenario or edits its TOML (checked by the same loader as the CLI, errors
// shown at their line), starts a run of one point and watches throughput per
// CPU, the time each CPU spends working, spinning, stalled on a line, blocked
// and idle, the transfers of each line to each CPU, the lock wait
// distribution and, for RCU, grace periods and the bytes waiting to be freed.
// A sweep view draws a series over its axis with its reference points.
// Every prediction comes with its error band (package band): shaded around
// the sweep's lines and the run's total throughput, and in words in the
// tables, as the CLI prints it.
//
// # Protocol
//
// JSON messages with a "type" field, documented in PROTOCOL.md (version
// [Version]): GET /api/scenarios lists the scenarios ([ScenarioInfo]),
// POST /api/check answers TOML text with located errors ([CheckResult]), and
// the websocket /ws takes [Request] messages (start, sweep, watch, stop) and
// sends [Hello], [Queued], [Started], [Frame] (type "sample"), [Progress], [Done],
// [SweepDone], [Stopped] and [Error]. The simulation never waits for a page:
// samples go into a bounded queue per page, which gets at most MaxFPS frames
// a second, each only once it has acknowledged the previous one; samples it
// could not take in time, or older than half a second, are dropped and
// counted in the next frame. A run whose last watcher leaves is
// cancelled; a bounded number of runs go at once, and the next ones wait in
// a queue, told their place ([Queued]). A start that would reach the
// scenario's event bound is refused before it runs, with the longest
// duration that fits, estimated by a probe of its first events. Only the server's own
// names and page may use it: another Host, or a POST or websocket from
// another Origin, gets 403.
package web

// Package browsertests drives the contend serve page in a real headless
// Chromium (chromedp). TestPage loads the page, runs ingress locked on two
// cores, checks the live charts fill and that the final figure is the one
// `contend run` prints for the same point, types a bad line into the editor
// and sees the error at that line, and exports a chart. TestViews opens
// every built-in scenario's run, sweep and explain views, and ingress at 16
// CPUs and rwsem-count-scheme at 64, and checks from the DOM and the chart
// objects that every axis is in its metric's unit, that the readouts under
// the cursor have numbers, that no label overlaps another and that explain
// names the run it is of.
//
// It is a module of its own so that chromedp never enters contend's go.mod.
// Without a Chromium on the machine the test skips and says why; .ci/run
// installs Debian's chromium. Screenshots are written to $ARTIFACTS (or the
// test's temporary folder); -update copies them into web/screenshots for docs/cli.md.
package browsertests

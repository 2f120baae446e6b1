// Package browsertests drives the contend serve page in a real headless
// Chromium (chromedp): it loads the page, runs ingress locked on two cores,
// checks the live charts fill and that the final figure is the one
// `contend run` prints for the same point, types a bad line into the editor
// and sees the error at that line, and exports a chart.
//
// It is a module of its own so that chromedp never enters contend's go.mod.
// Without a Chromium on the machine the test skips and says why; .ci/run
// installs Debian's chromium. Screenshots are written to $ARTIFACTS (or the
// test's temporary folder); -update copies them into doc/ for the README.
package browsertests

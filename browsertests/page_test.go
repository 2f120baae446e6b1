package browsertests

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/chromedp"

	"contend/web"
)

var update = flag.Bool("update", false, "copy the screenshots into web/screenshots for docs/cli.md")

// chromium finds a Chromium or Chrome to drive, or says why there is none.
func chromium(t *testing.T) string {
	if p := os.Getenv("CHROME"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Skip("no Chromium on this machine (looked for chromium, chromium-browser, google-chrome, $CHROME); install Debian's chromium to run the browser test")
	return ""
}

// artifacts is where screenshots and exports go: $ARTIFACTS if set (CI
// keeps it), else the test's temporary folder.
func artifacts(t *testing.T) string {
	dir := os.Getenv("ARTIFACTS")
	if dir == "" {
		return t.TempDir()
	}
	dir, _ = filepath.Abs(dir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// cliFigures runs `contend run` for the ingress-u32 series and returns the
// throughput per core it prints, by variant, at cores.
func cliFigures(t *testing.T, cores float64) map[string]float64 {
	cmd := exec.Command("go", "run", "./cmd/contend", "run", "ingress", "--series", "ingress-u32", "--format", "json")
	cmd.Dir = ".."
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("contend run: %v\n%s", err, stderr.String())
	}
	var tables []struct {
		Metric   string      `json:"metric"`
		Variants []string    `json:"variants"`
		X        []float64   `json:"x"`
		Values   [][]float64 `json:"values"`
	}
	if err := json.Unmarshal(out, &tables); err != nil {
		t.Fatal(err)
	}
	got := map[string]float64{}
	for _, tb := range tables {
		for i, x := range tb.X {
			for j, v := range tb.Variants {
				if tb.Metric == "throughput_per_core" && x == cores {
					got[v] = tb.Values[i][j]
				}
			}
		}
	}
	if len(got) == 0 {
		t.Fatalf("contend run prints no throughput_per_core at %v cores", cores)
	}
	return got
}

func TestPage(t *testing.T) {
	exe := chromium(t)
	out := artifacts(t)
	want := cliFigures(t, 2)

	srv := web.New(web.Options{})
	ts := httptest.NewServer(srv)
	defer ts.Close()
	defer srv.Close()

	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(exe),
		chromedp.NoSandbox, chromedp.WindowSize(1400, 1000), chromedp.Flag("headless", "new"))
	actx, cancel := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancel()
	ctx, cancel := chromedp.NewContext(actx)
	defer cancel()
	ctx, cancel = context.WithTimeout(ctx, 180*time.Second)
	defer cancel()

	downloads := t.TempDir()
	shot := func(name string) chromedp.Action {
		return chromedp.ActionFunc(func(ctx context.Context) error {
			var png []byte
			if err := chromedp.FullScreenshot(&png, 100).Do(ctx); err != nil {
				return err
			}
			return os.WriteFile(filepath.Join(out, name+".png"), png, 0o644)
		})
	}
	run := func(what string, actions ...chromedp.Action) {
		t.Helper()
		if err := chromedp.Run(ctx, actions...); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}

	// Run view: ingress locked on 2 cores, from a linked URL, then lockless
	// at the same point: the page's final figure is contend run's each time.
	var final, points string
	var ok bool
	finalOf := func(variant string) {
		t.Helper()
		run(variant,
			chromedp.SetValue(`#variant`, variant),
			chromedp.Click(`#start`),
			chromedp.Poll(`document.getElementById('status').textContent.startsWith('done: ingress `+variant+` ')`, nil),
			chromedp.AttributeValue(`#final`, "data-value", &final, &ok),
			chromedp.AttributeValue(`#chart-throughput`, "data-points", &points, &ok))
		got, err := strconv.ParseFloat(final, 64)
		if err != nil {
			t.Fatalf("%s: final figure %q: %v", variant, final, err)
		}
		if got != want[variant] {
			t.Errorf("%s: the page shows %v Mpps per core, contend run prints %v", variant, got, want[variant])
		}
		if n, _ := strconv.Atoi(points); n < 100 {
			t.Errorf("%s: the throughput chart has %q points, want the run's samples", variant, points)
		}
		// The explain view is of this run, not the one before.
		var named bool
		run(variant+" explain", chromedp.Evaluate(`document.getElementById('explain-run').textContent.startsWith('explain of run ' + window.contend.run.started.run + ': ingress / ingress-u32, variant `+variant+`,')`, &named))
		if !named {
			t.Errorf("%s: the explain view does not name this run", variant)
		}
	}
	run("load",
		browser.SetDownloadBehavior(browser.SetDownloadBehaviorBehaviorAllow).WithDownloadPath(downloads),
		chromedp.Navigate(ts.URL+"/#view=run&scenario=ingress&series=ingress-u32&variant=locked&x=2"),
		chromedp.WaitVisible(`#start`),
		chromedp.Poll(`document.getElementById('status').textContent.startsWith('connected')`, nil))
	finalOf("lockless")
	finalOf("locked")
	run("screenshot", shot("run"))

	// Export the throughput chart's data and picture.
	run("export", chromedp.Click(`#chart-throughput .export-csv`), chromedp.Click(`#chart-throughput .export-png`))
	csv := waitFile(t, downloads, ".csv")
	lines := strings.Split(strings.TrimSpace(string(csv)), "\n")
	if lines[0] != "simulated time (ms),total locked: 90% error band (high),total locked: 90% error band (low),total locked,cpu 0,cpu 1,total lockless" || fmt.Sprint(len(lines)-1) != points {
		t.Errorf("exported CSV: header %q, %d rows for %s points", lines[0], len(lines)-1, points)
	}
	if png := waitFile(t, downloads, ".png"); !bytes.HasPrefix(png, []byte("\x89PNG")) {
		t.Errorf("exported PNG starts %q", png[:min(8, len(png))])
	}

	// The coherence trace lists the run's first 40 line transfers, among
	// them the waiter's re-read of the lock word, modified by the holder.
	var traceRows int
	var hitmLock, batchShown bool
	run("explain", chromedp.Click(`nav button[data-view=explain]`), chromedp.WaitVisible(`#perf tr td`),
		chromedp.Click(`#perf th[data-col=spin_ns]`),
		chromedp.Evaluate(`document.querySelectorAll('#trace tr').length - 1`, &traceRows),
		chromedp.Evaluate(`document.getElementById('trace').rows_.some(r => r.line === 'qdisc_lock' && r.op === 'load' && r.hitm)`, &hitmLock),
		chromedp.Evaluate(`!document.getElementById('batch-perf').hidden`, &batchShown),
		shot("explain"))
	if traceRows != 40 || !hitmLock {
		t.Errorf("explain: %d rows in the coherence trace (want 40), a HITM re-read of qdisc_lock among them: %v", traceRows, hitmLock)
	}
	if batchShown {
		t.Errorf("explain: ingress runs no batch, yet the batch CPU's perf report is shown")
	}

	// ingress-u32's base is locked: its lockless points are changes, shown
	// in their own table.
	var changeRows int
	run("sweep", chromedp.Click(`nav button[data-view=sweep]`), chromedp.Click(`#sweep`),
		chromedp.Poll(`document.getElementById('sweep-status').textContent.includes('reference points')`, nil,
			chromedp.WithPollingTimeout(60*time.Second)),
		chromedp.Evaluate(`document.getElementById('changes').hidden ? -1 : document.querySelectorAll('#changes tr td').length / 7`, &changeRows),
		shot("sweep"))
	if changeRows != 2 {
		t.Errorf("sweep: %d rows in the changes table, want 2 (lockless against locked at 1 and 2 cores)", changeRows)
	}

	// Editor: type a stray character at the end of the same_socket line of
	// the author's box and expect the error there.
	var bad, gutterLine int
	run("editor", chromedp.Click(`nav button[data-view=editor]`), chromedp.WaitVisible(`#text`),
		chromedp.Evaluate(`(() => { const a = document.getElementById('text'); const ls = a.value.split('\n');
			const i = ls.findIndex(l => l.startsWith('same_socket = ')); const end = ls.slice(0, i + 1).join('\n').length;
			a.focus(); a.setSelectionRange(end, end); return i + 1; })()`, &bad),
		chromedp.SendKeys(`#text`, " oops"),
		chromedp.Poll(`document.querySelector('#gutter .bad') !== null`, nil),
		chromedp.Evaluate(`Number(document.querySelector('#gutter .bad').textContent)`, &gutterLine),
		shot("editor"))
	if gutterLine != bad || bad == 0 {
		t.Errorf("error marked at line %d, the bad line is %d", gutterLine, bad)
	}

	// RCU: flower under load, deferred frees: grace periods and pending
	// bytes on the timeline.
	var other string
	run("rcu", chromedp.Navigate(ts.URL+"/?rcu#view=run&scenario=flower-under-load&variant=deferred-free&x=500"),
		chromedp.Poll(`document.getElementById('status').textContent.startsWith('connected')`, nil),
		chromedp.Click(`#start`),
		chromedp.Poll(`document.getElementById('final').dataset.value !== ''`, nil, chromedp.WithPollingTimeout(60*time.Second)),
		chromedp.Text(`#final-other`, &other),
		shot("rcu"))
	if !strings.Contains(other, "grace_period") {
		t.Errorf("flower-under-load final figures %q, want a grace period", other)
	}
	// Its batch CPU, which inserts the filters beside the flood, has a perf
	// report of its own.
	var batchChange bool
	run("rcu explain", chromedp.Click(`nav button[data-view=explain]`), chromedp.WaitVisible(`#batch-perf tr td`),
		chromedp.Evaluate(`document.getElementById('batch-perf').rows_.some(r => r.label === 'fl_change')`, &batchChange))
	if !batchChange {
		t.Errorf("explain: flower-under-load's batch CPU perf report has no fl_change")
	}
	if *update {
		for _, v := range []string{"run", "sweep", "explain", "editor", "rcu"} {
			b, err := os.ReadFile(filepath.Join(out, v+".png"))
			if err == nil {
				err = os.WriteFile(filepath.Join("..", "web", "screenshots", v+".png"), b, 0o644)
			}
			if err != nil {
				t.Fatal(err)
			}
		}
	}
	t.Logf("screenshots in %s", out)
}

// waitFile waits for a finished download with the suffix and returns it.
func waitFile(t *testing.T, dir, suffix string) []byte {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		files, _ := filepath.Glob(filepath.Join(dir, "*"+suffix))
		if len(files) > 0 {
			b, err := os.ReadFile(files[0])
			if err == nil && len(b) > 0 {
				return b
			}
		}
	}
	t.Fatalf("no %s file downloaded into %s", suffix, dir)
	return nil
}

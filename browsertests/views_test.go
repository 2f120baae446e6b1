package browsertests

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"contend/band"
	"contend/web"
)

// checkRun is run in the page once a run is done; it returns what is wrong
// with the run view, read from the DOM and the chart objects: the unit of
// every axis against the run's own (started.rate_unit, the headline
// metric's unit, the time unit of its length), the throughput's y axis
// from 0, the legend's readout under the cursor, each canvas chart's
// readout under the cursor and labels that overlap, legend entries that
// overlap, and the explain view naming the run.
const checkRun = `(async () => {
  const p = [], c = window.contend, r = c.run;
  if (!r || document.getElementById('final').dataset.value === '') return ['the run did not end: ' + document.getElementById('status').textContent];
  const st = r.started, u = c.charts.tput.u;
  const end = st.end_ns || Math.max(0, ...r.t, ...r.bt);
  const tu = end >= 1e9 ? 's' : end >= 1e6 ? 'ms' : end >= 1e3 ? 'µs' : 'ns';
  if (u.axes[0].label !== 'simulated time (' + tu + ')') p.push('throughput x axis "' + u.axes[0].label + '", the run lasts ' + st.end_ns + ' ns');
  const base = st.rate_unit.slice(1), yl = u.axes[1].label;
  if (r.floodCPUs ? ![st.rate_unit, 'k' + base, base].includes(yl) : yl !== st.batch_unit + 's done') p.push('throughput y axis "' + yl + '", rates in ' + st.rate_unit);
  if (u.scales.y.min !== 0) p.push('throughput y axis starts at ' + u.scales.y.min);
  const fin = document.getElementById('final');
  if (fin.dataset.unit !== st.metrics[0].unit || !fin.textContent.includes(st.metrics[0].unit)) p.push('headline "' + fin.textContent + '" in ' + fin.dataset.unit + ', the metric is ' + JSON.stringify(st.metrics[0]));
  const hb = r.done.metrics[0].band, fb = document.getElementById('final-band').textContent;
  if (hb.kind ? fb !== hb.text || !/^±[\d.]+(%| points) \(90%: \d+ of \d+ published predictions of this kind fell within it/.test(fb) : !fb.startsWith('no error band')) p.push('headline band "' + fb + '", the band is ' + JSON.stringify(hb));
  const tb = r.done.metrics.find(x => x.metric === 'throughput')?.band, edges = c.charts.tput.style.filter(st => st.edge).length;
  if (r.floodCPUs && edges !== (tb?.kind ? 2 : 0)) p.push(edges + ' band edges on the throughput chart, the total throughput\'s band is ' + JSON.stringify(tb));
  const o = u.over.getBoundingClientRect();
  u.over.dispatchEvent(new MouseEvent('mousemove', { clientX: o.left + o.width / 2, clientY: o.top + o.height / 2, bubbles: true }));
  await new Promise(res => requestAnimationFrame(() => requestAnimationFrame(res)));
  const vals = [...u.root.querySelectorAll('.u-series .u-value')].map(e => e.textContent);
  if (u.cursor.idx == null || !vals.slice(1).some(v => /\d/.test(v))) p.push('hover readout of the throughput: ' + vals.join(' | '));
  const legend = [...u.root.querySelectorAll('.u-series')].map(e => e.getBoundingClientRect());
  legend.forEach((a, i) => legend.slice(i + 1).forEach(b => { if (a.left < b.right - 1 && b.left < a.right - 1 && a.top < b.bottom - 1 && b.top < a.bottom - 1) p.push('legend entries overlap'); }));
  for (const k of ['states', 'heat', 'wait', 'rcu']) {
    const ch = c.charts[k], ov = ch.overlaps();
    if (ov.length) p.push(k + ': labels overlap: ' + JSON.stringify(ov.slice(0, 3)));
    if (ch.labels.some(l => l.x + 3 < -1 || l.x + l.w - 3 > ch.w + 1)) p.push(k + ': a label is cut at the edge');
    if (!ch.hit) continue;
    const cr = ch.canvas.getBoundingClientRect();
    let got = '';
    for (let y = 4; y < cr.height && !/\d/.test(got); y += 6)
      for (let x = 4; x < cr.width && !/\d/.test(got); x += 17) {
        ch.canvas.dispatchEvent(new MouseEvent('mousemove', { clientX: cr.left + x, clientY: cr.top + y }));
        got = ch.readout.textContent;
      }
    if (!/\d/.test(got)) p.push(k + ': no hover readout with a number');
  }
  const ex = document.getElementById('explain-run').textContent;
  for (const want of ['run ' + st.run + ':', st.scenario, 'variant ' + st.variant, 'seed ' + st.seed])
    if (!ex.includes(want)) p.push('explain names "' + ex + '", not ' + want);
  if (document.getElementById('explain-body').hidden) p.push('explain shows no tables');
  return p;
})()`

// checkSweep returns what is wrong with the sweep view: its y axis must be
// the metric's unit, every measured point of that metric a dot, the ticks
// of an axis that counts whole numbers, each variant's prediction shaded
// in its error band where it has one (and no band where it has none), and
// the tables give each validate row's and change's band as the CLI words
// it.
const checkSweep = `(() => {
  const p = [], c = window.contend, m = c.sweep, s = c.charts.sweep, u = s.u;
  if (u.axes[1].label !== m.metric + ' (' + m.unit + ')') p.push('sweep y axis "' + u.axes[1].label + '", metric ' + m.metric + ' in ' + m.unit);
  if (u.axes[0].label !== m.axis) p.push('sweep x axis "' + u.axes[0].label + '", axis ' + m.axis);
  const refs = m.refs.filter(r => r.metric === m.metric).length;
  const dots = s.style.map((st, i) => st.points ? u.data[i + 1].filter(v => v != null).length : 0).reduce((a, b) => a + b, 0);
  if (dots !== refs) p.push(dots + ' measured dots drawn, ' + refs + ' references of ' + m.metric);
  if (m.axis_counts && u.axes[0]._splits.some(v => !Number.isInteger(v))) p.push('fractional ticks on ' + m.axis + ': ' + u.axes[0]._splits);
  if (u.scales.y.min !== 0) p.push('sweep y axis starts at ' + u.scales.y.min);
  const kinds = new Set(s.style.filter(st => st.points).map(st => st.points));
  if (m.refs.some(r => r.role === 'calibrate' && r.metric === m.metric) && m.refs.some(r => r.role === 'validate' && r.metric === m.metric) && kinds.size !== 2) p.push('calibrate and validate dots look alike');
  const lines = s.style.filter(st => !st.points && !st.edge).map(st => st.color + JSON.stringify(st.dash));
  if (new Set(lines).size !== lines.length) p.push('two variants drawn alike');
  m.variants.forEach((v, i) => {
    const hi = s.style.findIndex(st => st.edge === 'high' && st.label.startsWith(v + ':'));
    const has = m.bands[i].some(b => b.kind);
    if ((hi >= 0) !== has || (hi >= 0 && !u.bands.some(b => b.series[0] === hi + 1 && b.series[1] === hi + 2))) { p.push(v + ': band drawn ' + (hi >= 0) + ', bands ' + JSON.stringify(m.bands[i])); return; }
    if (hi < 0) return;
    m.x.forEach((x, k) => {
      const j = u.data[0].indexOf(x), b = m.bands[i][k];
      if (u.data[hi + 1][j] !== (b.kind ? b.high : null) || u.data[hi + 2][j] !== (b.kind ? b.low : null)) p.push(v + ' at ' + x + ': band drawn ' + u.data[hi + 2][j] + ' – ' + u.data[hi + 1][j] + ', sent ' + JSON.stringify(b));
    });
  });
  const worded = /^±[\d.]+(%| points) \(90%: \d+ of \d+ published predictions of this kind fell within it/;
  for (const [id, rows] of [['refs', m.refs], ['changes', m.changes]]) {
    const t = document.getElementById(id), col = [...t.rows[0].cells].findIndex(c => c.textContent === 'error band (90%)');
    if (rows.length && col < 0) { p.push(id + ' table has no error band column'); continue; }
    t.rows_.forEach((r, i) => {
      const cell = t.rows[i + 1].cells[col].textContent;
      if (r.band.kind ? cell !== r.band.text || !worded.test(cell) : !/^(-|none)/.test(cell)) p.push(id + ' row ' + (i + 1) + ': band "' + cell + '", sent ' + JSON.stringify(r.band));
    });
  }
  return p;
})()`

func awaitPromise(p *runtime.EvaluateParams) *runtime.EvaluateParams { return p.WithAwaitPromise(true) }

// TestViews opens every built-in scenario's run, sweep and explain views
// (its first series, the page's default point) and checks each from the
// DOM and the chart objects (checkRun, checkSweep); then ingress at 16
// CPUs and rwsem-count-scheme at 64, whose labels must not overlap. Each view's screenshot goes to
// $ARTIFACTS.
func TestViews(t *testing.T) {
	views(t, web.Options{}, "", "", true)
}

// TestViewsWithoutBands serves bands that know only changes: ingress's
// predictions have none, and its views still draw and say so.
func TestViewsWithoutBands(t *testing.T) {
	onlyChanges := &band.File{Bands: []band.Entry{{Band: band.Band{Kind: band.Kind{Figure: band.Change}, Pool: band.Kind{Figure: band.Change}, Points: 9, Width: 20}}}}
	views(t, web.Options{Bands: onlyChanges}, "ingress", "no-bands-", false)
}

// views checks the views of the built-in scenario only (every one when
// empty) on a server with opts, and with more, the views of many CPUs; its
// screenshots' names start with prefix.
func views(t *testing.T, opts web.Options, only, prefix string, more bool) {
	exe := chromium(t)
	out := artifacts(t)
	srv := web.New(opts)
	ts := httptest.NewServer(srv)
	defer ts.Close()
	defer srv.Close()

	resp, err := http.Get(ts.URL + "/api/scenarios")
	if err != nil {
		t.Fatal(err)
	}
	var list []web.ScenarioInfo
	json.NewDecoder(resp.Body).Decode(&list)
	resp.Body.Close()

	copts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(exe),
		chromedp.NoSandbox, chromedp.WindowSize(1400, 1000), chromedp.Flag("headless", "new"))
	actx, cancel := chromedp.NewExecAllocator(context.Background(), copts...)
	defer cancel()
	ctx, cancel := chromedp.NewContext(actx)
	defer cancel()
	ctx, cancel = context.WithTimeout(ctx, 170*time.Second)
	defer cancel()

	shot := func(name string) chromedp.Action {
		return chromedp.ActionFunc(func(ctx context.Context) error {
			var png []byte
			if err := chromedp.FullScreenshot(&png, 100).Do(ctx); err != nil {
				return err
			}
			return os.WriteFile(filepath.Join(out, prefix+name+".png"), png, 0o644)
		})
	}
	do := func(what string, actions ...chromedp.Action) bool {
		t.Helper()
		if err := chromedp.Run(ctx, actions...); err != nil {
			t.Errorf("%s: %v", what, err)
			return false
		}
		return true
	}
	report := func(what string, problems []string) {
		t.Helper()
		for _, p := range problems {
			t.Errorf("%s: %s", what, p)
		}
	}
	// view runs the page's point of scenario (and its first series), then
	// sweeps the series, checking each view.
	view := func(name, hash string, sweep bool) {
		var problems []string
		if !do(name+" run", chromedp.Navigate(ts.URL+"/?"+url.QueryEscape(name)+"#view=run&"+hash),
			chromedp.Poll(`document.getElementById('status').textContent.startsWith('connected')`, nil),
			chromedp.Click(`#start`),
			chromedp.Poll(`document.getElementById('final').dataset.value !== '' || document.getElementById('status').className === 'error'`, nil, chromedp.WithPollingTimeout(60*time.Second)),
			shot(name+"-run"),
			chromedp.Evaluate(checkRun, &problems, awaitPromise)) {
			return
		}
		report(name+" run", problems)
		do(name+" explain", chromedp.Click(`nav button[data-view=explain]`), shot(name+"-explain"))
		if !sweep {
			return
		}
		var status string
		if !do(name+" sweep", chromedp.Click(`nav button[data-view=sweep]`), chromedp.Click(`#sweep`),
			chromedp.Poll(`/reference points|no series/.test(document.getElementById('sweep-status').textContent + document.getElementById('status').textContent)`, nil,
				chromedp.WithPollingTimeout(60*time.Second)),
			chromedp.Text(`#sweep-status`, &status)) {
			return
		}
		if !strings.Contains(status, "reference points") {
			return // a scenario without series has nothing to sweep
		}
		problems = nil
		do(name+" sweep", shot(name+"-sweep"), chromedp.Evaluate(checkSweep, &problems))
		report(name+" sweep", problems)
	}
	for _, sc := range list {
		if sc.Source != "builtin" || only != "" && sc.Name != only {
			continue
		}
		hash := "scenario=" + url.QueryEscape(sc.Name)
		view(sc.Name, hash, len(sc.Series) > 0)
	}
	if !more {
		return
	}
	// 16 CPUs: every label in its place, none on another.
	view("ingress-16", "scenario=ingress&series=ingress-bare&variant=locked&x=16", false)
	// 64 CPUs (the 8-socket IvyBridge-EX has them): still none.
	view("rwsem-64", "scenario=rwsem-count-scheme&x=64", false)
	t.Logf("screenshots in %s", out)
}

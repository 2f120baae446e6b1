// The contend page: pick or edit a scenario, run a point and watch it live,
// sweep a series against its measured points, read the explain tables.
// Protocol: web/PROTOCOL.md. Every unit drawn comes from the server's
// messages: the metric's own (started.metrics, sweep_done.unit), the rate
// in the scenario's unit of work (started.rate_unit).
import { LineChart, CanvasChart, stackedBars, heatMap, histogram, palette, dashes, shade, num, fmtNs, fmtBytes, timeUnit, niceTicks } from './charts.js';
import { sortable, fillTable } from './tables.js';
import { Editor } from './editor.js';

const $ = id => document.getElementById(id);
let scenarios = [];
let ws = null;
let run = null;      // the run being watched: started message and what it has sent
let editor = null;
let lastSweep = null; // the last sweep_done, for the browser test
// Totals of earlier runs of the same point, by variant, so that the
// throughput chart compares variants: key -> variant -> Map(t_ns -> pps).
const totals = {};

// ---- URL: #view=run&scenario=ingress&series=..&variant=..&x=2&duration=..&seed=..
function readHash() {
  return Object.fromEntries(new URLSearchParams(location.hash.slice(1)));
}
function writeHash() {
  const h = new URLSearchParams();
  h.set('view', document.querySelector('nav button.on').dataset.view);
  for (const k of ['scenario', 'series', 'variant', 'x', 'duration', 'seed']) if ($(k).value) h.set(k, $(k).value);
  history.replaceState(null, '', '#' + h.toString());
}

function setStatus(text, error = false) {
  $('status').textContent = text;
  $('status').className = error ? 'error' : '';
}

function options(sel, values, want) {
  sel.replaceChildren(...values.map(v => new Option(v, v)));
  if (values.includes(want)) sel.value = want;
}

function current() { return scenarios.find(s => s.name === $('scenario').value); }
function currentSeries() { return current()?.series.find(s => s.name === $('series').value); }

async function pickScenario(want = {}) {
  const sc = current();
  // The first sentence stays in view; the rest opens on a click, so that a
  // long description never pushes the charts below the fold.
  const d = sc.description.replace(/\s+/g, ' ').trim();
  const cut = d.search(/\.\s/);
  $('description-summary').textContent = cut > 0 && cut < 200 ? d.slice(0, cut + 1) : d.slice(0, 180) + (d.length > 180 ? '…' : '');
  $('description').textContent = sc.description;
  options($('series'), sc.series.map(s => s.name), want.series);
  pickSeries(want);
  $('duration').value = want.duration ?? '';
  $('seed').value = want.seed ?? sc.seed;
  const text = await (await fetch('api/scenario?name=' + encodeURIComponent(sc.name))).text();
  editor.load(sc.name, text);
}

function pickSeries(want = {}) {
  const sc = current(), se = currentSeries();
  options($('variant'), se ? se.variants : sc.variants, want.variant);
  const axis = se?.axis || sc.axes[0]?.name || 'cores';
  $('axis-name').textContent = axis;
  $('x').step = se?.axis_counts ?? true ? '1' : 'any';
  const points = se?.points.length ? se.points : (sc.axes[0]?.values ?? [1]);
  $('x').value = want.x ?? points[points.length > 1 ? 1 : 0];
}

// rateScale picks the prefix of a rate whose largest value is max (per
// second): the scenario's unit in millions, thousands or ones, so that it
// reads with a digit before the point.
function rateScale(rateUnit, max) {
  const base = rateUnit.slice(1); // "pps", "locks/s"
  if (max >= 1e5) return { unit: rateUnit, div: 1e6 };
  if (max >= 100) return { unit: 'k' + base, div: 1e3 };
  return { unit: base, div: 1 };
}

// ---- live charts
const charts = {};
function makeCharts() {
  charts.tput = new LineChart($('chart-throughput'), { name: 'throughput', xLabel: 'simulated time', yLabel: '', yFromZero: true });
  charts.states = new CanvasChart($('chart-states'), {
    name: 'cpu-states', height: 120,
    draw: (ch, w, h) => run ? stackedBars(ch, w, h, stateShares(), cpuLabels(), run.started.states) : (ch.want = 60),
    rows: () => run ? [['cpu'].concat(run.started.states.map(s => s + '_pct'))].concat(stateShares().map((r, i) => [run.started.cpus[i]].concat(r.map(f => 100 * f)))) : [],
  });
  charts.heat = new CanvasChart($('chart-heat'), {
    name: 'line-transfers', height: 150,
    draw: (ch, w, h) => {
      if (!run) return (ch.want = 60);
      if (!run.started.lines.length) return ch.text('no shared lines in this scenario', 20, 30);
      // Past 8 CPUs the columns are named by number alone, under "CPU".
      const cols = run.started.cpus.length > 8 ? run.started.cpus.map((c, i) => i < run.floodCPUs ? String(c) : c + ' (batch)') : cpuLabels();
      heatMap(ch, w, h, perPacket(), run.started.lines, cols, run.started.work_unit);
    },
    rows: () => run ? [['line'].concat(run.started.cpus.map(c => 'cpu_' + c + '_per_' + run.started.work_unit))].concat(perPacket().map((r, i) => [run.started.lines[i]].concat(r))) : [],
  });
  charts.wait = new CanvasChart($('chart-wait'), {
    name: 'lock-wait', height: 220,
    draw: (ch, w, h) => {
      if (!run) return (ch.want = 60);
      const [c, e] = waitBuckets();
      if (c.some(n => n > 0)) histogram(ch, w, h, c, e);
      else { ch.want = 60; ch.text('no spinning-lock waits in this run', 20, 30); }
    },
    rows: () => { const [c, e] = waitBuckets(); return [['wait_from_ns', 'wait_to_ns', 'acquisitions']].concat(c.map((n, i) => [e[i], e[i + 1], n])); },
  });
  charts.rcu = new CanvasChart($('chart-rcu'), {
    name: 'rcu', height: 220, draw: drawRCU,
    rows: () => [['now_ns', 'gp_active', 'grace_periods', 'pending_bytes']].concat((run?.rcu ?? []).map(s => [s.now_ns, s.gp_active ? 1 : 0, s.grace_periods, s.pending_bytes])),
  });
  charts.sweep = new LineChart($('chart-sweep'), { name: 'sweep', xLabel: 'axis', yLabel: '', height: 380, yFromZero: true });
}

// cpuLabels name the run's CPUs: the flood's, then the batch's.
function cpuLabels() {
  return run.started.cpus.map((c, i) => i < run.floodCPUs ? 'cpu ' + c : `cpu ${c} (batch)`);
}

function stateShares() {
  return run.stateTime.map(row => { const t = row.reduce((a, b) => a + b, 0); return row.map(v => t ? v / t : 0); });
}

// perPacket is each line's transfers to each CPU per packet that CPU ran
// (per operation for the batch's CPU).
function perPacket() {
  return run.transfers.map(row => row.map((n, i) => {
    const d = i < run.floodCPUs ? run.packets[i] ?? 0 : run.batchOps;
    return d > 0 ? n / d : 0;
  }));
}

function waitBuckets() {
  const lw = run?.lockWait ?? [];
  let last = lw.length - 1;
  while (last > 0 && !lw[last]) last--;
  let first = 0;
  while (first < last && !lw[first]) first++;
  // A bucket either side, empty, shows where the waits stop.
  first = Math.max(first - 1, 0);
  last = Math.min(last + 1, lw.length - 1);
  const counts = lw.slice(first, last + 1);
  return [counts, counts.map((_, i) => 2 ** (first + i)).concat(2 ** (last + 1))];
}

function drawRCU(ch, w, h) {
  const s = run?.rcu ?? [];
  if (!s.length || s[s.length - 1].grace_periods === 0 && !s.some(x => x.gp_active || x.pending_bytes)) {
    ch.want = 60;
    ch.text(run ? 'no grace periods in this run' : '', 20, 30);
    return;
  }
  ch.want = 230;
  const ctx = ch.ctx, left = 80, right = 30, top = 26, bottom = h - 44;
  const t0 = s[0].now_ns, t1 = Math.max(s[s.length - 1].now_ns, t0 + 1), tu = timeUnit(run.started.end_ns || t1);
  const X = t => left + (w - left - right) * (t - t0) / (t1 - t0);
  // One band per grace period, from its start to the last sample inside it.
  const gps = new Map();
  for (const x of s) if (x.gp_active) gps.set(x.gp_start_ns, x.now_ns);
  let shade = 0;
  for (const [from, to] of gps) {
    ctx.fillStyle = shade++ % 2 ? 'rgba(31,119,180,.30)' : 'rgba(31,119,180,.15)';
    const x0 = X(Math.max(from, t0));
    ctx.fillRect(x0, top, Math.max(1, X(to) - x0), bottom - top);
  }
  // Ticks at round numbers of the unit the most pending is written in.
  const most = Math.max(1, ...s.map(x => x.pending_bytes));
  const bu = [['GiB', 2 ** 30], ['MiB', 2 ** 20], ['KiB', 2 ** 10], ['B', 1]].find(([, b]) => most >= b);
  const ticks = niceTicks(most / bu[1], 4, bu[1] === 1).map(t => t * bu[1]), max = ticks[ticks.length - 1];
  const Y = v => bottom - (bottom - top) * v / max;
  for (const t of ticks) {
    ctx.strokeStyle = '#eee';
    ctx.beginPath(); ctx.moveTo(left, Y(t)); ctx.lineTo(w - right, Y(t)); ctx.stroke();
    ch.text(+(t / bu[1]).toPrecision(4) + ' ' + bu[0], left - 6, Y(t), 'right');
  }
  ctx.save(); ctx.translate(12, (top + bottom) / 2); ctx.rotate(-Math.PI / 2); ctx.textAlign = 'center';
  ctx.fillText('bytes waiting to be freed', 0, 0); ctx.restore();
  ctx.strokeStyle = '#d62728';
  ctx.lineWidth = 1.5;
  ctx.beginPath();
  s.forEach((x, i) => { const y = Y(x.pending_bytes); i ? ctx.lineTo(X(x.now_ns), y) : ctx.moveTo(X(x.now_ns), y); });
  ctx.stroke();
  ctx.lineWidth = 1;
  for (const t of niceTicks(t1 / tu.ns, 6)) {
    const x = X(t * tu.ns);
    if (x < left - 1) continue;
    if (x > w - right + 1) break;
    ch.text(num(t), x, bottom + 10, 'center');
  }
  ch.text(`simulated time (${tu.name})`, left + (w - left - right) / 2, bottom + 28, 'center', { force: true });
  ch.text(`shaded: a grace period in progress; ${s[s.length - 1].grace_periods} ended; red: bytes waiting`, left, 12, 'left', { force: true });
  ch.hit = x => {
    const t = t0 + (x - left) / (w - left - right) * (t1 - t0);
    let best = s[0];
    for (const q of s) if (Math.abs(q.now_ns - t) < Math.abs(best.now_ns - t)) best = q;
    return `at ${fmtNs(best.now_ns)}: ${fmtBytes(best.pending_bytes)} waiting to be freed, ${best.grace_periods} grace periods ended` + (best.gp_active ? `, one in progress since ${fmtNs(best.gp_start_ns)}` : '');
  };
}

// ---- error bands: how far, over the published cases, the measured figure
// has lain from a prediction of its kind (sweep_done.bands, refs[].band,
// changes[].band, done.metrics[].band). A band of no kind is none: no
// published case has a prediction like it.
function bandText(b, none) { return b?.kind ? b.text : none; }
function bandWidth(b) { return b?.kind ? b.text.split(' (')[0] : ''; }

// bandEdges adds the two edges of a band to a chart's data and style,
// before the line they are the band of: high, then low (null: none).
function bandEdges(data, style, label, color, highs, lows) {
  data.push(highs, lows);
  style.push({ label: `${label}: 90% error band (high)`, color: shade(color, 0.45), width: 1, band: shade(color, 0.12), edge: 'high' },
    { label: `${label}: 90% error band (low)`, color: shade(color, 0.45), width: 1, edge: 'low' });
}

// perSecond is how many per second one unit of a figure is, for a rate in
// the scenario's unit of work (rate_unit "Mpps": pps, kpps, Mpps); null
// for a figure that is not such a rate.
function perSecond(unit, rateUnit) {
  const base = rateUnit.slice(1);
  return { [base]: 1, ['k' + base]: 1e3, ['M' + base]: 1e6 }[unit] ?? null;
}

function pointKey(m) { return `${m.scenario}|${m.series}|${m.axis}=${m.x}|${m.duration_ns}|${m.seed}`; }

// drawThroughput: the flood's rate, total and per CPU (or, past 8 CPUs,
// the least, mean and most of one CPU), beside the totals of the other
// variants run at this point; a batch alone draws its operations done.
function drawThroughput() {
  const m = run.started, tu = timeUnit(m.end_ns || Math.max(1, ...run.t, ...run.bt));
  charts.tput.xLabel = `simulated time (${tu.name})`;
  const xs = run.t.map(t => t / tu.ns);
  if (!run.floodCPUs) {
    charts.tput.yLabel = `${m.batch_unit}s done`;
    charts.tput.setTitle(`batch progress: ${m.batch_unit}s done over simulated time (${tu.name})`);
    charts.tput.set([run.bt.map(t => t / tu.ns), run.bops], [{ label: `${m.batch_unit}s done`, color: palette[1], width: 2 }]);
    return;
  }
  const others = Object.entries(totals[pointKey(m)] ?? {}).filter(([v]) => v !== m.variant);
  const sc = rateScale(m.rate_unit, Math.max(0, ...run.total));
  const f = v => v == null ? null : v / sc.div;
  const data = [xs], style = [];
  // Once the run is done, the total's error band over the measured interval.
  const tb = run.totalBand;
  if (tb) bandEdges(data, style, `total ${m.variant}`, palette[0], xs.map(() => f(tb.high)), xs.map(() => f(tb.low)));
  data.push(run.total.map(f));
  style.push({ label: `total ${m.variant}`, color: palette[0], width: 2 });
  if (run.pps.length <= 8) {
    run.pps.forEach((p, i) => { data.push(p.map(f)); style.push({ label: 'cpu ' + m.cpus[i], color: palette[1 + i % 9] }); });
  } else {
    const at = run.t.map((_, j) => run.pps.map(p => p[j]));
    data.push(at.map(v => f(Math.min(...v))), at.map(v => f(v.reduce((a, b) => a + b, 0) / v.length)), at.map(v => f(Math.max(...v))));
    style.push({ label: 'least of one CPU', color: palette[2], dash: dashes[2] }, { label: `mean per CPU (${run.pps.length})`, color: palette[1] }, { label: 'most of one CPU', color: palette[3], dash: dashes[2] });
  }
  others.forEach(([v, byT], i) => { data.push(run.t.map(t => f(byT.get(t) ?? null))); style.push({ label: `total ${v}`, color: palette[4 + i % 6], dash: dashes[1 + i % 3], width: 2 }); });
  charts.tput.yLabel = sc.unit;
  charts.tput.setTitle(`throughput (${sc.unit}) over simulated time (${tu.name}): the total, per CPU, and the total of each variant run at this point` + (tb ? `; shaded, the final total's 90% error band (${bandWidth(run.totalBand.band)})` : ''));
  charts.tput.set(data, style);
}

function drawLive() {
  drawThroughput();
  for (const k of ['states', 'heat', 'wait', 'rcu']) charts[k].draw();
  charts.heat.setTitle(`transfers of each shared line to each CPU, per ${run.started.work_unit} that CPU ran` + (run.floodCPUs < run.started.cpus.length ? ` (the batch CPU's per ${run.started.batch_unit})` : ''));
  $('dropped').textContent = run.dropped ? `(${run.dropped} samples dropped for this page)` : '';
}

function describe(m) {
  const at = m.axis ? `${m.axis}=${m.x}` : 'its own point';
  return `${m.scenario}${m.series ? ' / ' + m.series : ''}, variant ${m.variant}, ${at}, seed ${m.seed}`;
}

function onStarted(m) {
  run = { started: m, t: [], total: [], pps: [], stateTime: m.cpus.map(() => m.states.map(() => 0)), prevNs: 0,
    transfers: m.lines.map(() => m.cpus.map(() => 0)), packets: [], batchOps: 0, bt: [], bops: [], lockWait: [], rcu: [], dropped: 0,
    floodCPUs: m.flood_cpus };
  $('final-label').textContent = 'final:';
  $('final').textContent = '…';
  $('final').dataset.value = '';
  $('final-band').textContent = '';
  $('final-other').textContent = '';
  for (const k of ['tput', 'states', 'heat', 'wait', 'rcu']) charts[k].name = `${m.scenario}-${m.variant}-${m.axis}${m.x}-${k}`;
  // The explain view belongs to one run: the last one's tables go.
  $('explain-body').hidden = true;
  $('explain-run').textContent = `run ${m.run} going: ${describe(m)}; its explanation comes when it ends`;
  $('explain-run').dataset.run = m.run;
  $('explain-run').dataset.state = 'going';
  setStatus(`running ${describe(m)} (run ${m.run}, ${m.cpus.length} CPUs)`);
  drawLive();
}

function onFrame(m) {
  // Taken in: the server may send the next frame.
  ws.send('{"type":"ack"}');
  if (!run || m.run !== run.started.run) return;
  run.dropped = m.dropped;
  for (const s of m.samples) {
    const dt = s.now_ns - run.prevNs;
    run.prevNs = s.now_ns;
    run.rcu.push(s);
    if (!s.measuring) continue;
    if (s.pps.length) {
      run.t.push(s.now_ns);
      run.total.push(s.total_pps);
      s.pps.forEach((v, i) => (run.pps[i] ??= []).push(v));
    }
    run.bt.push(s.now_ns);
    run.bops.push(s.batch_ops);
    s.states.forEach((row, i) => row.forEach((f, k) => { run.stateTime[i][k] += f * dt; }));
    run.transfers = s.transfers;
    run.packets = s.packets ?? [];
    run.batchOps = s.batch_ops;
    run.lockWait = s.lock_wait;
  }
  drawLive();
}

// figure writes a metric as contend run gives it, with its band's width.
function figure(x) { return `${x.metric} ${num(x.value)} ${x.unit}` + (x.band?.kind ? ` ${bandWidth(x.band)}` : ''); }

function onDone(m) {
  if (run.t.length) {
    const key = pointKey(run.started);
    (totals[key] ??= {})[run.started.variant] = new Map(run.t.map((t, i) => [t, run.total[i]]));
  }
  run.done = m;
  const [first, ...rest] = m.metrics;
  const tp = m.metrics.find(x => x.metric === 'throughput'), per = tp && perSecond(tp.unit, run.started.rate_unit);
  run.totalBand = tp?.band?.kind && per ? { low: tp.band.low * per, high: tp.band.high * per, band: tp.band } : null;
  $('final').textContent = `${num(first.value)} ${first.unit} ${first.metric}`;
  $('final-band').textContent = bandText(first.band, 'no error band: no published prediction of its kind');
  $('final').dataset.value = String(first.value);
  $('final').dataset.unit = first.unit;
  $('final-other').textContent = rest.map(figure).join(', ');
  explain(m);
  drawLive();
  setStatus(`done: ${run.started.scenario} ${run.started.variant} ${run.started.axis}=${run.started.x}` + (run.started.replications > 1 ? ` (mean of ${run.started.replications} replications)` : ''));
  $('stop').disabled = true;
}

// explain fills the explain view with run m's tables, as contend explain
// prints them, and says which run they are of.
function explain(m) {
  const st = run.started, res = m.result, ex = m.explain, unit = ex.unit;
  const profile = scenarios.find(s => s.name === st.scenario)?.series.find(s => s.name === st.series)?.profile;
  $('explain-run').textContent = `explain of run ${st.run}: ${describe(st)}` + (profile ? `, profile ${profile}` : '') + (st.replications > 1 ? ` (the first of its ${st.replications} replications)` : '');
  $('explain-run').dataset.state = 'done';
  $('explain-figures').textContent = m.metrics.map(figure).join('; ');
  $('explain-cpus').replaceChildren(...ex.cpus.map(c => Object.assign(document.createElement('li'), { textContent: c })));
  const perfCols = (u, n) => [
    { key: 'cycles_pct', head: 'Overhead (% of cycles)', fmt: v => v.toFixed(2) + '%' },
    { key: 'ns_per_packet', head: `ns/${u}`, fmt: v => v.toFixed(2) },
    { key: 'work_ns', head: `work ns/${u}`, value: r => r.work_ns / n, fmt: v => v.toFixed(2) },
    { key: 'stall_ns', head: `stall ns/${u}`, value: r => r.stall_ns / n, fmt: v => v.toFixed(2) },
    { key: 'spin_ns', head: `spin ns/${u}`, value: r => r.spin_ns / n, fmt: v => v.toFixed(2) },
    { key: 'label', head: 'Symbol' },
  ];
  const batch = res.batch, flood = res.packets > 0 || !batch;
  const n = flood ? Math.max(res.packets, 1) : Math.max(batch.ops, 1);
  $('perf-head').textContent = `simulated perf report (cycles${batch?.profile ? ', flood CPUs' : ''}), per ${unit}`;
  fillTable($('perf'), perfCols(unit, n), res.profile.filter(l => l.cycles_pct > 0));
  const batchPerf = batch?.profile ?? [];
  $('batch-perf-head').hidden = $('batch-perf').hidden = !batchPerf.length;
  $('batch-perf-head').textContent = `simulated perf report (cycles, batch CPU), per ${st.batch_unit}`;
  fillTable($('batch-perf'), perfCols(st.batch_unit, Math.max(batch?.ops ?? 1, 1)), batchPerf.filter(l => l.cycles_pct > 0));
  const remote = res.lines.some(l => l.remote > 0);
  fillTable($('c2c'), [
    { key: 'name', head: 'Line' },
    { key: 'transfers_per_packet', head: `transfers/${unit}` },
    { key: 'hitm_per_packet', head: `HITM/${unit}` },
    { key: 'queue_ns_per_packet', head: `queue ns/${unit}`, fmt: v => v.toFixed(2) },
    { key: 'mean_queue_ns', head: 'mean queue ns', fmt: v => v.toFixed(2) },
    { key: 'busy_pct', head: 'busy (% of the run)', fmt: v => v.toFixed(1) + '%' },
    ...(remote ? [{ key: 'remote', head: `cross-socket/${unit}`, value: r => r.remote / n }] : []),
    { key: 'transfers', head: 'transfers' },
    { key: 'invalidations', head: 'invalidations' },
  ], res.lines.filter(l => !l.percpu));
  if (!res.lines.some(l => !l.percpu)) $('c2c').append(Object.assign(document.createElement('caption'), { textContent: '(no shared line was touched)', className: 'none' }));
  const r = res.rcu;
  $('rcu-explain').hidden = !(r.grace_periods || r.calls.length);
  $('rcu-summary').textContent = r.grace_periods
    ? `RCU (${ex.kernel}): ${r.grace_periods} grace periods, ${r.mean_gp_ms.toFixed(3)} ms on average (p99 ${r.p99_gp_ms.toFixed(3)} ms), ${r.callbacks_per_gp.toFixed(2)} callbacks each; ${r.fqs_scans} force-quiescent-state scans.`
    : `RCU (${ex.kernel}): no grace period ended in the measured interval.`;
  const ms = k => ({ key: k, head: k.replace('_us', ' (ms)'), value: c => c[k] / 1e3, fmt: v => v.toFixed(3) });
  fillTable($('rcu-calls'), [{ key: 'call', head: 'call' }, { key: 'count', head: 'count' }, ms('min_us'), ms('mean_us'), ms('p50_us'), ms('p99_us'), ms('max_us')], r.calls);
  fillTable($('rcu-timeline'), [{ key: 'phase', head: 'phase' }, { key: 'mean_us', head: 'mean (ms)', value: p => p.mean_us / 1e3, fmt: v => v.toFixed(3) },
    { key: 'why', head: 'why' }], r.timeline.map((p, i) => ({ ...p, why: ex.phase_why[i] ?? '' })));
  $('why').replaceChildren(...(ex.why.length ? ex.why : ['nothing to explain: no lock was taken and no shared line moved more than 0.1 times per ' + unit]).map(w => Object.assign(document.createElement('p'), { textContent: w, className: 'why' })));
  fillTable($('trace'), [
    { key: 'asked_ns', head: 'asked (ns)' }, { key: 'queued_ns', head: 'queued (ns)' }, { key: 'transfer_ns', head: 'transfer (ns)' },
    'cpu', 'symbol', 'line', 'op', 'from', 'hitm'], m.trace);
  $('explain-body').hidden = false;
}

function onSweep(m) {
  lastSweep = m;
  // The measured points join the axis where the sweep has no point of
  // its own, so that every one is drawn.
  const refs = m.refs.filter(r => r.metric === m.metric);
  const xs = [...new Set(m.x.concat(refs.map(r => r.x)))].sort((a, b) => a - b);
  const data = [xs], style = [];
  const at = (i, f) => xs.map(x => { const k = m.x.indexOf(x); return k < 0 ? null : f(i, k); });
  const bands = m.bands ?? [];
  const band = (i, k) => bands[i]?.[k]?.kind ? bands[i][k] : null;
  m.variants.forEach((v, i) => {
    if (bands[i]?.some(b => b.kind)) bandEdges(data, style, v, palette[1 + i % 9], at(i, (i, k) => band(i, k)?.high ?? null), at(i, (i, k) => band(i, k)?.low ?? null));
  });
  m.variants.forEach((v, i) => {
    data.push(at(i, (i, k) => m.values[i][k]));
    style.push({ label: `${v} predicted`, color: palette[1 + i % 9], dash: dashes[i % dashes.length], width: 2 });
  });
  m.variants.forEach((v, i) => {
    for (const role of ['calibrate', 'validate']) {
      const rs = refs.filter(r => r.variant === v && r.role === role);
      if (!rs.length) continue;
      data.push(xs.map(x => rs.find(r => r.x === x)?.measured ?? null));
      style.push({ label: `${v} measured (${role})`, color: palette[1 + i % 9], points: role === 'calibrate' ? 'filled' : 'hollow' });
    }
  });
  charts.sweep.xLabel = m.axis;
  charts.sweep.xWhole = m.axis_counts;
  charts.sweep.yLabel = `${m.metric} (${m.unit})`;
  charts.sweep.name = `${m.scenario}-${m.series}-sweep`;
  charts.sweep.setTitle(`${m.series}: ${m.metric} (${m.unit}) over ${m.axis}, per variant; lines: predicted${style.some(st => st.edge) ? ', shaded in their 90% error band (how far published figures of their kind have lain from the model)' : ''}; dots: measured, filled where the model was fitted to it (calibrate), hollow where it is predicted (validate)`);
  charts.sweep.set(data, style);
  fillTable($('refs'), ['variant', 'axis', 'x', 'metric', 'unit', 'measured', 'predicted', { key: 'error_pct', head: 'error (%)' }, 'role',
    { key: 'band', head: 'error band (90%)', value: r => bandText(r.band, r.role === 'calibrate' ? '- (a fit, no prediction)' : 'none: no published prediction of its kind') }], m.refs);
  fillTable($('changes'), ['variant', 'base', 'x', 'metric', { key: 'measured_pct', head: 'measured (%)' }, { key: 'predicted_pct', head: 'predicted (%)' },
    { key: 'band', head: 'error band (90%)', value: r => bandText(r.band, 'none: no published change of its kind') }], m.changes || []);
  $('changes').hidden = !(m.changes && m.changes.length);
  $('sweep-status').textContent = `${m.series}: ${m.refs.length} reference points` +
    (m.changes && m.changes.length ? `, ${m.changes.length} changes against ${m.changes[0].base}` : '');
}

function onError(m) {
  setStatus(m.message, true);
  if (m.line) editor.mark([m]);
  $('stop').disabled = true;
  if (m.run && run && m.run === run.started.run) {
    $('final-label').textContent = 'failed:';
    $('final').textContent = '';
    $('final-other').textContent = m.message;
    $('explain-run').textContent = `run ${m.run} failed: ${m.message}`;
    $('explain-run').dataset.state = 'failed';
  }
}

function connect() {
  ws = new WebSocket((location.protocol === 'https:' ? 'wss://' : 'ws://') + location.host + '/ws');
  ws.onmessage = ev => {
    const m = JSON.parse(ev.data);
    switch (m.type) {
      case 'hello': setStatus(`connected (protocol ${m.version})`); break;
      case 'queued':
        setStatus(m.position ? `queued: ${m.position === 1 ? 'next' : 'number ' + m.position} in line, behind ${m.going} runs going (serve --max-runs)` : 'starting');
        $('sweep-status').dataset.queued = m.position;
        break;
      case 'started': onStarted(m); break;
      case 'sample': onFrame(m); break;
      case 'done': onDone(m); break;
      case 'progress': $('sweep-status').textContent = `${m.done}/${m.total} points`; break;
      case 'sweep_done': onSweep(m); break;
      case 'stopped': setStatus('stopped'); $('stop').disabled = true; break;
      case 'error': onError(m); break;
    }
  };
  ws.onclose = () => { setStatus('disconnected; reload the page', true); };
}

function request(type) {
  const sc = current(), se = currentSeries();
  const req = { type, scenario: sc.name, series: se?.name ?? '', variant: $('variant').value,
    axis: $('axis-name').textContent, x: Number($('x').value), duration: $('duration').value.trim(),
    seed: Number($('seed').value) || 0 };
  if (editor.edited()) req.text = editor.text();
  return req;
}

function show(view) {
  document.querySelectorAll('nav button').forEach(b => b.classList.toggle('on', b.dataset.view === view));
  document.querySelectorAll('.view').forEach(s => { s.hidden = s.id !== 'view-' + view; });
  writeHash();
}

async function main() {
  editor = new Editor($('text'), $('gutter'), $('check'));
  makeCharts();
  scenarios = await (await fetch('api/scenarios')).json();
  const want = readHash();
  options($('scenario'), scenarios.map(s => s.name), want.scenario);
  await pickScenario(want);
  $('scenario').onchange = () => pickScenario().then(writeHash);
  $('series').onchange = () => { pickSeries(); writeHash(); };
  for (const k of ['variant', 'x', 'duration', 'seed']) $(k).onchange = writeHash;
  document.querySelectorAll('nav button').forEach(b => { b.onclick = () => show(b.dataset.view); });
  document.querySelectorAll('table.sortable').forEach(sortable);
  $('start').onclick = () => { ws.send(JSON.stringify(request('start'))); $('stop').disabled = false; };
  $('stop').onclick = () => ws.send(JSON.stringify({ type: 'stop' }));
  $('sweep').onclick = () => { ws.send(JSON.stringify(request('sweep'))); $('sweep-status').textContent = 'sweeping…'; };
  show(want.view || 'run');
  connect();
}

// What the browser test reads: the run and sweep drawn, and the charts.
window.contend = { get run() { return run; }, get sweep() { return lastSweep; }, charts };

main();

// The contend page: pick or edit a scenario, run a point and watch it live,
// sweep a series against its measured points, read the explain tables.
// Protocol: web/PROTOCOL.md.
import { LineChart, CanvasChart, stackedBars, heatMap, bars } from './charts.js';
import { sortable, fillTable } from './tables.js';
import { Editor } from './editor.js';

const $ = id => document.getElementById(id);
let scenarios = [];
let ws = null;
let run = null;      // the run being watched: started message and what it has sent
let editor = null;
// Totals of earlier runs of the same point, by variant, so that the
// throughput chart compares variants: key -> variant -> Map(t -> Mpps).
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
  const points = se?.points.length ? se.points : (sc.axes[0]?.values ?? [1]);
  $('x').value = want.x ?? points[points.length > 1 ? 1 : 0];
}

// ---- live charts
const charts = {};
function makeCharts() {
  charts.tput = new LineChart($('chart-throughput'), { name: 'throughput', xLabel: 'simulated time (ms)', yLabel: 'Mpps' });
  charts.states = new CanvasChart($('chart-states'), {
    name: 'cpu-states', height: 200,
    draw: (ctx, w, h) => run && stackedBars(ctx, w, h, stateShares(), run.started.cpus.map(c => 'cpu ' + c), run.started.states),
    rows: () => run ? [['cpu'].concat(run.started.states)].concat(stateShares().map((r, i) => [run.started.cpus[i]].concat(r))) : [],
  });
  charts.heat = new CanvasChart($('chart-heat'), {
    name: 'line-transfers', height: 200,
    draw: (ctx, w, h) => run && (run.started.lines.length
      ? heatMap(ctx, w, h, run.transfers, run.started.lines, run.started.cpus.map(c => 'cpu ' + c))
      : ctx.fillText('no shared lines in this scenario', 20, 40)),
    rows: () => run ? [['line'].concat(run.started.cpus.map(c => 'cpu ' + c))].concat(run.transfers.map((r, i) => [run.started.lines[i]].concat(r))) : [],
  });
  charts.wait = new CanvasChart($('chart-wait'), {
    name: 'lock-wait', height: 200,
    draw: (ctx, w, h) => {
      if (!run) return;
      const [c, l] = waitBuckets();
      if (c.some(n => n > 0)) bars(ctx, w, h, c, l);
      else ctx.fillText('no spinning-lock waits in this run', 20, 40);
    },
    rows: () => { const [c, l] = waitBuckets(); return [['wait_ns_from', 'acquisitions']].concat(c.map((n, i) => [l[i], n])); },
  });
  charts.rcu = new CanvasChart($('chart-rcu'), {
    name: 'rcu', height: 200, draw: drawRCU,
    rows: () => [['now_ns', 'gp_active', 'grace_periods', 'pending_bytes']].concat((run?.rcu ?? []).map(s => [s.now_ns, s.gp_active ? 1 : 0, s.grace_periods, s.pending_bytes])),
  });
  charts.sweep = new LineChart($('chart-sweep'), { name: 'sweep', xLabel: 'axis', yLabel: '', width: 800, height: 360 });
}

function stateShares() {
  return run.stateTime.map(row => { const t = row.reduce((a, b) => a + b, 0); return row.map(v => t ? v / t : 0); });
}

function fmtNs(ns) { return ns >= 1e6 ? +(ns / 1e6).toFixed(3) + 'ms' : ns >= 1e3 ? +(ns / 1e3).toFixed(3) + 'µs' : ns + 'ns'; }

function waitBuckets() {
  const lw = run?.lockWait ?? [];
  let last = lw.length - 1;
  while (last > 0 && !lw[last]) last--;
  const counts = lw.slice(0, last + 2);
  return [counts, counts.map((_, i) => fmtNs(2 ** i))];
}

function drawRCU(ctx, w, h) {
  const s = run?.rcu ?? [];
  if (!s.length || s[s.length - 1].grace_periods === 0 && !s.some(x => x.gp_active || x.pending_bytes)) {
    ctx.fillText('no grace periods in this run', 20, 40);
    return;
  }
  const left = 60, bottom = h - 24, t0 = s[0].now_ns, t1 = s[s.length - 1].now_ns || 1;
  const X = t => left + (w - left - 10) * (t - t0) / Math.max(t1 - t0, 1);
  // One band per grace period, from its start to the last sample inside it.
  const gps = new Map();
  for (const x of s) if (x.gp_active) gps.set(x.gp_start_ns, x.now_ns);
  let shade = 0;
  for (const [from, to] of gps) {
    ctx.fillStyle = shade++ % 2 ? 'rgba(31,119,180,.30)' : 'rgba(31,119,180,.15)';
    const x0 = X(Math.max(from, t0));
    ctx.fillRect(x0, 20, Math.max(1, X(to) - x0), bottom - 20);
  }
  const max = Math.max(1, ...s.map(x => x.pending_bytes));
  ctx.strokeStyle = '#d62728';
  ctx.beginPath();
  s.forEach((x, i) => { const y = bottom - (bottom - 20) * x.pending_bytes / max; i ? ctx.lineTo(X(x.now_ns), y) : ctx.moveTo(X(x.now_ns), y); });
  ctx.stroke();
  ctx.fillStyle = '#222';
  const most = Math.max(...s.map(x => x.pending_bytes));
  ctx.fillText(most ? `pending: up to ${Math.round(most)} B` : 'no deferred frees', 4, 14);
  ctx.fillText(`shaded: grace period in progress; ${s[s.length - 1].grace_periods} ended`, 200, 14);
  ctx.fillText(fmtNs(Math.round(t0)), left, h - 6);
  ctx.fillText(fmtNs(Math.round(t1)), w - 70, h - 6);
}

function pointKey(m) { return `${m.scenario}|${m.series}|${m.axis}=${m.x}|${m.duration_ns}|${m.seed}`; }

function drawLive() {
  const m = run.started, cpus = m.cpus.filter((_, i) => i < run.pps.length);
  const others = Object.entries(totals[pointKey(m)] ?? {}).filter(([v]) => v !== m.variant);
  const data = [run.t, run.total].concat(run.pps, others.map(([, byT]) => run.t.map(t => byT.get(t) ?? null)));
  const labels = [`total ${m.variant}`].concat(cpus.map(c => 'cpu ' + c), others.map(([v]) => `total ${v}`));
  charts.tput.set(data, labels);
  for (const k of ['states', 'heat', 'wait', 'rcu']) charts[k].draw();
  $('dropped').textContent = run.dropped ? `(${run.dropped} samples dropped for this page)` : '';
}

function onStarted(m) {
  const n = m.cpus.length;
  run = { started: m, t: [], total: [], pps: [], stateTime: m.cpus.map(() => m.states.map(() => 0)), prevNs: 0,
    transfers: m.lines.map(() => m.cpus.map(() => 0)), lockWait: [], rcu: [], dropped: 0 };
  $('final').textContent = '…';
  $('final').dataset.value = '';
  $('final-other').textContent = '';
  for (const k of ['tput', 'states', 'heat', 'wait', 'rcu']) charts[k].name = `${m.scenario}-${m.variant}-${m.axis}${m.x}-${k}`;
  setStatus(`running ${m.scenario} ${m.variant} ${m.axis}=${m.x} (run ${m.run}, ${n} CPUs)`);
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
      run.t.push(s.now_ns / 1e6);
      run.total.push(s.total_pps / 1e6);
      s.pps.forEach((v, i) => (run.pps[i] ??= []).push(v / 1e6));
    }
    s.states.forEach((row, i) => row.forEach((f, k) => { run.stateTime[i][k] += f * dt; }));
    run.transfers = s.transfers;
    run.lockWait = s.lock_wait;
  }
  drawLive();
}

function onDone(m) {
  if (run.t.length) {
    const key = pointKey(run.started);
    (totals[key] ??= {})[run.started.variant] = new Map(run.t.map((t, i) => [t, run.total[i]]));
  }
  const [first, ...rest] = m.metrics;
  $('final').textContent = `${first.value.toFixed(2)} ${first.unit} ${first.metric}`;
  $('final').dataset.value = String(first.value);
  $('final-other').textContent = rest.map(x => `${x.metric} ${x.value.toFixed(2)} ${x.unit}`).join(', ');
  const perfCols = ['label', 'cycles_pct', 'ns_per_packet', 'work_ns', 'stall_ns', 'spin_ns', 'sleep_ns'];
  fillTable($('perf'), perfCols, m.result.profile);
  const batchPerf = m.result.batch?.profile ?? [];
  $('batch-perf-head').hidden = $('batch-perf').hidden = !batchPerf.length;
  fillTable($('batch-perf'), perfCols, batchPerf);
  fillTable($('c2c'), ['name', 'transfers_per_packet', 'hitm_per_packet', 'queue_ns_per_packet', 'mean_queue_ns', 'busy_pct', 'transfers', 'hitm', 'invalidations'], m.result.lines);
  fillTable($('trace'), ['asked_ns', 'queued_ns', 'transfer_ns', 'cpu', 'symbol', 'line', 'op', 'from', 'hitm'], m.trace);
  drawLive();
  setStatus(`done: ${run.started.scenario} ${run.started.variant} ${run.started.axis}=${run.started.x}` + (run.started.replications > 1 ? ` (mean of ${run.started.replications} replications)` : ''));
  $('stop').disabled = true;
}

function onSweep(m) {
  const xs = m.x;
  const dotted = [], labels = [], data = [xs], color = [];
  m.variants.forEach((v, i) => { labels.push(v); data.push(m.values[i]); dotted.push(false); color.push(i); });
  m.variants.forEach((v, i) => {
    const refs = m.refs.filter(r => r.variant === v && r.metric === m.metric);
    if (!refs.length) return;
    labels.push(v + ' measured');
    data.push(xs.map(x => refs.find(r => r.x === x)?.measured ?? null));
    dotted.push(true);
    color.push(i);
  });
  charts.sweep.xLabel = m.axis;
  charts.sweep.yLabel = `${m.metric} (${m.unit})`;
  charts.sweep.name = `${m.scenario}-${m.series}-sweep`;
  charts.sweep.set(data, labels, dotted, color);
  fillTable($('refs'), ['variant', 'axis', 'x', 'metric', 'unit', 'measured', 'predicted', 'error_pct', 'role'], m.refs);
  fillTable($('changes'), ['variant', 'base', 'x', 'metric', 'measured_pct', 'predicted_pct'], m.changes || []);
  $('changes').hidden = !(m.changes && m.changes.length);
  $('sweep-status').textContent = `${m.series}: ${m.refs.length} reference points` +
    (m.changes && m.changes.length ? `, ${m.changes.length} changes against ${m.changes[0].base}` : '');
}

function connect() {
  ws = new WebSocket((location.protocol === 'https:' ? 'wss://' : 'ws://') + location.host + '/ws');
  ws.onmessage = ev => {
    const m = JSON.parse(ev.data);
    switch (m.type) {
      case 'hello': setStatus(`connected (protocol ${m.version})`); break;
      case 'started': onStarted(m); break;
      case 'sample': onFrame(m); break;
      case 'done': onDone(m); break;
      case 'progress': $('sweep-status').textContent = `${m.done}/${m.total} points`; break;
      case 'sweep_done': onSweep(m); break;
      case 'stopped': setStatus('stopped'); $('stop').disabled = true; break;
      case 'error':
        setStatus(m.message, true);
        if (m.line) editor.mark([m]);
        $('stop').disabled = true;
        break;
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

main();

// Charts: uPlot line charts and plain canvas charts, each in a figure with
// PNG and CSV export of exactly what it draws, as wide as its panel. Every
// chart says what it shows and in which unit; every label a canvas chart
// draws is kept in chart.labels ({text, x, y, w, h}), placed only where it
// overlaps none drawn before it, and the cursor over a chart fills its
// readout with the numbers under it.
import uPlot from './vendor/uplot/uPlot.esm.js';

export const palette = ['#222', '#1f77b4', '#d62728', '#2ca02c', '#ff7f0e', '#9467bd', '#8c564b', '#e377c2', '#17becf', '#bcbd22'];
// Dashes tell variants apart where their colours are hard to: solid,
// dashed, dotted, dash-dot.
export const dashes = [[], [10, 5], [2, 4], [10, 4, 2, 4]];
export const stateColors = { work: '#2ca02c', spin: '#d62728', stall: '#ff7f0e', sleep: '#1f77b4', idle: '#bbb' };
const font = '12px system-ui, sans-serif';

export function download(name, href) {
  const a = document.createElement('a');
  a.href = href;
  a.download = name;
  document.body.appendChild(a);
  a.click();
  a.remove();
}

function csvHref(rows) {
  const text = rows.map(r => r.map(v => (typeof v === 'string' && /[",\n]/.test(v)) ? '"' + v.replace(/"/g, '""') + '"' : v).join(',')).join('\n') + '\n';
  return URL.createObjectURL(new Blob([text], { type: 'text/csv' }));
}

// num writes a figure with about four significant digits, whole numbers
// as they are, large ones grouped.
export function num(v) {
  if (v == null || Number.isNaN(v)) return '--';
  const a = Math.abs(v);
  if (Number.isInteger(v) && a < 1e15) return v.toLocaleString('en-US');
  if (a >= 1000) return Math.round(v).toLocaleString('en-US');
  if (a === 0) return '0';
  return +v.toPrecision(4) + '';
}

// fmtNs writes a time given in ns in the unit that suits it.
export function fmtNs(ns) {
  const a = Math.abs(ns);
  if (a >= 1e9) return +(ns / 1e9).toPrecision(4) + ' s';
  if (a >= 1e6) return +(ns / 1e6).toPrecision(4) + ' ms';
  if (a >= 1e3) return +(ns / 1e3).toPrecision(4) + ' µs';
  return +(+ns).toPrecision(4) + ' ns';
}

// fmtBytes writes a count of bytes in B, KiB, MiB or GiB.
export function fmtBytes(b) {
  for (const [u, s] of [['GiB', 2 ** 30], ['MiB', 2 ** 20], ['KiB', 2 ** 10]]) if (Math.abs(b) >= s) return +(b / s).toPrecision(3) + ' ' + u;
  return Math.round(b) + ' B';
}

// timeUnit picks the unit of a time axis that ends at endNs.
export function timeUnit(endNs) {
  if (endNs >= 1e9) return { name: 's', ns: 1e9 };
  if (endNs >= 1e6) return { name: 'ms', ns: 1e6 };
  if (endNs >= 1e3) return { name: 'µs', ns: 1e3 };
  return { name: 'ns', ns: 1 };
}

// niceTicks returns about n round values from 0 to past max, integers
// only when whole is set.
export function niceTicks(max, n = 5, whole = false) {
  if (!(max > 0)) return [0, 1];
  let step = 10 ** Math.floor(Math.log10(max / n));
  for (const m of [1, 2, 2.5, 5, 10]) if (max / (step * m) <= n) { step *= m; break; }
  if (whole) step = Math.max(1, Math.ceil(step));
  const out = [];
  for (let v = 0; v < max + step / 2 && out.length < 50; v += step) out.push(+v.toPrecision(12));
  if (out[out.length - 1] < max) out.push(+(out[out.length - 1] + step).toPrecision(12));
  return out;
}

// frame puts a title, a readout line and export buttons on fig and returns
// the body.
function frame(fig, name, png, csv) {
  fig.replaceChildren();
  const head = document.createElement('div');
  head.className = 'head';
  const title = document.createElement('span');
  title.className = 'title';
  title.textContent = fig.dataset.title;
  const buttons = document.createElement('span');
  for (const [label, fn] of [['PNG', () => download(name() + '.png', png())], ['CSV', () => download(name() + '.csv', csvHref(csv()))]]) {
    const b = document.createElement('button');
    b.textContent = label;
    b.className = 'export-' + label.toLowerCase();
    b.onclick = fn;
    buttons.appendChild(b);
  }
  head.append(title, buttons);
  const body = document.createElement('div');
  body.className = 'body';
  fig.append(head, body);
  return { body, title };
}

// widthOf is the width a chart may take in its panel.
function widthOf(el) {
  return Math.max(240, Math.floor(el.clientWidth || el.parentElement?.clientWidth || 540));
}

// shade is a colour of the palette ('#rrggbb') at opacity a, for a band.
export function shade(color, a) {
  const n = parseInt(color.slice(1), 16);
  return `rgba(${n >> 16},${(n >> 8) & 255},${n & 255},${a})`;
}

// LineChart is a uPlot chart whose series are set with their data. Its
// legend shows the values under the cursor, and the last values when the
// cursor is elsewhere.
export class LineChart {
  constructor(fig, { name, xLabel, yLabel, height = 280, yFromZero = false, xWhole = false }) {
    this.fig = fig; this.name = name; this.xLabel = xLabel; this.yLabel = yLabel;
    this.height = height; this.yFromZero = yFromZero; this.xWhole = xWhole;
    ({ body: this.body, title: this.titleEl } = frame(fig, () => this.name, () => this.u.ctx.canvas.toDataURL('image/png'), () => this.csv()));
    fig.chart = this;
    this.key = null;
    new ResizeObserver(() => this.u && this.u.width !== widthOf(this.body) && this.u.setSize({ width: widthOf(this.body), height: this.height })).observe(this.body);
  }
  setTitle(t) { this.titleEl.textContent = t; }
  // set draws data = [xs, ys...]; style[i] says how series i is drawn:
  // {label, color, dash, width, points: 'filled'|'hollow' (measured
  // values as dots only), band: fill (the high edge of a band, whose low
  // edge is the next series: the region between is filled)}. A band's
  // edges come before the lines they are the band of, so that the fill
  // goes under them; where an edge is null there is no band.
  set(data, style) {
    this.data = data;
    this.style = style;
    const key = JSON.stringify([style, this.xLabel, this.yLabel, this.yFromZero, this.xWhole]);
    const bands = style.flatMap((s, i) => s.band ? [{ series: [i + 1, i + 2], fill: s.band }] : []);
    if (!this.u || key !== this.key) {
      this.key = key;
      this.u?.destroy();
      const series = [{ label: this.xLabel, value: (u, v) => num(v) }].concat(style.map(s => ({
        label: s.label, stroke: s.color, width: s.width ?? 1.5, dash: s.dash ?? [],
        points: s.points ? { show: true, size: 10, width: 2, fill: s.points === 'filled' ? s.color : '#fff', stroke: s.color } : { show: false },
        paths: s.points ? () => null : undefined, spanGaps: true,
        value: (u, v) => num(v),
      })));
      const xAxis = { label: this.xLabel, labelSize: 22 };
      if (this.xWhole) {
        xAxis.incrs = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 1e4, 2e4, 5e4, 1e5, 1e6];
        xAxis.values = (u, ticks) => ticks.map(v => num(v));
      }
      this.u = new uPlot({
        width: widthOf(this.body), height: this.height, series, bands,
        scales: { x: { time: false }, y: this.yFromZero ? { range: (u, lo, hi) => [0, hi > 0 ? uPlot.rangeNum(0, hi, 0.1, true)[1] : 1] } : {} },
        axes: [xAxis, { label: this.yLabel, size: 70, labelSize: 22, values: (u, ticks) => ticks.map(v => num(v)) }],
        legend: { live: true },
        hooks: { setCursor: [u => { if (u.cursor.idx == null) this.showLast(); }] },
      }, data, this.body);
    } else {
      this.u.setData(data);
    }
    this.showLast();
    this.fig.dataset.points = data[0].length;
  }
  // showLast fills the legend with the last value of each series.
  showLast() {
    const n = this.data?.[0].length ?? 0;
    if (!n || this.u.cursor.idx != null) return;
    this.u.setLegend({ idxs: this.data.map((s, i) => { let k = n - 1; while (k > 0 && s[k] == null) k--; return k; }) }, false);
  }
  csv() {
    const rows = [[this.xLabel].concat(this.style.map(s => s.label))];
    for (let i = 0; i < (this.data?.[0].length ?? 0); i++) rows.push(this.data.map(s => s[i] ?? ''));
    return rows;
  }
}

// CanvasChart draws with draw(chart) and exports rows(). A draw says how
// tall it wants the canvas (chart.want) and leaves hit(x, y), which
// returns the readout text of the point under the cursor.
export class CanvasChart {
  constructor(fig, { name, height = 220, draw, rows }) {
    this.fig = fig; this.name = name; this.drawFn = draw; this.rows = rows; this.h = height;
    ({ body: this.body, title: this.titleEl } = frame(fig, () => this.name, () => this.canvas.toDataURL('image/png'), () => this.rows()));
    fig.chart = this;
    this.canvas = document.createElement('canvas');
    this.canvas.className = 'plain';
    this.readout = document.createElement('div');
    this.readout.className = 'readout';
    this.readout.textContent = ' ';
    this.body.append(this.canvas, this.readout);
    this.labels = [];
    this.hit = null;
    this.canvas.addEventListener('mousemove', ev => {
      const r = this.canvas.getBoundingClientRect();
      const t = this.hit?.(ev.clientX - r.left, ev.clientY - r.top);
      this.readout.textContent = t || ' ';
    });
    this.canvas.addEventListener('mouseleave', () => { this.readout.textContent = ' '; });
    new ResizeObserver(() => { if (widthOf(this.body) !== this.w) this.draw(); }).observe(this.body);
  }
  setTitle(t) { this.titleEl.textContent = t; }
  draw() {
    this.w = widthOf(this.body);
    this.labels = [];
    this.hit = null;
    // A first pass at the current height says how tall the chart wants
    // to be; the canvas is resized and drawn again if that differs.
    for (let pass = 0; pass < 2; pass++) {
      const dpr = window.devicePixelRatio || 1;
      if (this.canvas.width !== this.w * dpr || this.canvas.height !== this.h * dpr) {
        this.canvas.width = this.w * dpr; this.canvas.height = this.h * dpr;
        this.canvas.style.width = this.w + 'px'; this.canvas.style.height = this.h + 'px';
      }
      const ctx = this.canvas.getContext('2d');
      ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
      ctx.fillStyle = '#fff';
      ctx.fillRect(0, 0, this.w, this.h);
      ctx.font = font;
      ctx.fillStyle = '#222';
      ctx.textBaseline = 'middle';
      this.ctx = ctx;
      this.labels = [];
      this.want = this.h;
      this.drawFn(this, this.w, this.h);
      if (Math.abs(this.want - this.h) < 1) break;
      this.h = this.want;
    }
  }
  // text draws s at (x, y) (y its middle), aligned left, center or
  // right, unless it would overlap a label drawn before; it reports
  // whether it drew. Labels that must not be skipped may still be
  // squeezed: fit gives the width s may take at most (it is cut to fit).
  text(s, x, y, align = 'left', { fit = Infinity, color = '#222', bold = false, force = false } = {}) {
    const ctx = this.ctx;
    ctx.font = bold ? 'bold ' + font : font;
    s = String(s);
    while (ctx.measureText(s).width > fit && s.length > 1) s = s.slice(0, -2) + '…';
    const w = ctx.measureText(s).width, h = 14;
    const x0 = align === 'left' ? x : align === 'right' ? x - w : x - w / 2;
    // A label keeps 3 px clear on either side, so that neighbours never
    // run together ("1011" for 10 and 11).
    const box = { text: s, x: x0 - 3, y: y - h / 2, w: w + 6, h };
    if (!force && this.labels.some(b => overlap(b, box))) return false;
    this.labels.push(box);
    ctx.fillStyle = color;
    ctx.textAlign = 'left';
    ctx.fillText(s, x0, y);
    ctx.font = font;
    return true;
  }
  // overlaps lists the pairs of labels drawn that overlap (none should).
  overlaps() {
    const out = [];
    this.labels.forEach((a, i) => this.labels.slice(i + 1).forEach(b => { if (overlap(a, b)) out.push([a.text, b.text]); }));
    return out;
  }
}

function overlap(a, b) {
  return a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;
}

// stackedBars draws one horizontal bar per row (a CPU), split by the
// fractions of its keys (states), over an axis in percent.
export function stackedBars(ch, w, h, rows, labels, keys) {
  ch.ctx.font = font;
  const left = Math.max(70, 12 + Math.max(...labels.map(l => ch.ctx.measureText(l).width))), right = 28, top = 26, rowH = rows.length > 32 ? 9 : rows.length > 12 ? 16 : 26, gap = rows.length > 32 ? 2 : 5;
  ch.want = top + rows.length * (rowH + gap) + 40;
  const plotW = w - left - right;
  let lx = left;
  keys.forEach(k => {
    ch.ctx.fillStyle = stateColors[k] || '#888';
    ch.ctx.fillRect(lx, 7, 12, 12);
    ch.text(k, lx + 16, 13);
    lx += 24 + ch.ctx.measureText(k).width + 12;
  });
  const bottom = top + rows.length * (rowH + gap);
  const ctx = ch.ctx;
  for (const p of [0, 25, 50, 75, 100]) {
    const x = left + plotW * p / 100;
    ctx.strokeStyle = '#ddd';
    ctx.beginPath(); ctx.moveTo(x, top - 2); ctx.lineTo(x, bottom); ctx.stroke();
    ch.text(p + '%', x, bottom + 10, 'center', { force: true });
  }
  ch.text('share of the measured interval (%)', left + plotW / 2, bottom + 28, 'center', { force: true });
  rows.forEach((fr, r) => {
    const y = top + r * (rowH + gap);
    ch.text(labels[r], left - 6, y + rowH / 2, 'right');
    let x = left;
    fr.forEach((f, i) => {
      const bw = f * plotW;
      ctx.fillStyle = stateColors[keys[i]] || '#888';
      ctx.fillRect(x, y, bw, rowH);
      const pct = Math.round(100 * f) + '%';
      if (rowH >= 14 && bw > ctx.measureText(pct).width + 8) ch.text(pct, x + bw / 2, y + rowH / 2, 'center', { color: keys[i] === 'idle' ? '#222' : '#fff' });
      x += bw;
    });
  });
  ch.hit = (x, y) => {
    const r = Math.floor((y - top) / (rowH + gap));
    if (r < 0 || r >= rows.length || x < left) return '';
    return `${labels[r]}: ` + keys.map((k, i) => `${k} ${(100 * rows[r][i]).toFixed(1)}%`).join(', ');
  };
}

// heat returns the colour of t in [0, 1]: white to dark red.
function heat(t) {
  const c = [[255, 255, 255], [253, 204, 138], [252, 141, 89], [215, 48, 31], [127, 0, 0]];
  const x = Math.min(Math.max(t, 0), 1) * (c.length - 1), i = Math.min(Math.floor(x), c.length - 2), f = x - i;
  return `rgb(${c[i].map((v, k) => Math.round(v + (c[i + 1][k] - v) * f)).join(',')})`;
}

// heatMap draws matrix[row][col] (a line's transfers per packet to each
// CPU) with a colour scale; a cell's value is written in it where it fits.
export function heatMap(ch, w, h, matrix, rowLabels, colLabels, unit) {
  const ctx = ch.ctx;
  const left = Math.min(170, 12 + Math.max(...rowLabels.map(l => ctx.measureText(l).width))), scaleW = 90, top = 34;
  const cw = (w - left - scaleW - 10) / Math.max(colLabels.length, 1);
  const rowH = rowLabels.length > 12 ? 18 : 26;
  ch.want = Math.max(top + rowLabels.length * rowH + 30, 150);
  const max = Math.max(0, ...matrix.flat().filter(Number.isFinite));
  ch.text('CPU', left - 8, 12, 'right', { force: true, bold: true });
  colLabels.forEach((c, j) => ch.text(c, left + j * cw + cw / 2, 12, 'center'));
  matrix.forEach((row, i) => {
    const y = top + i * rowH;
    ch.text(rowLabels[i], left - 6, y + rowH / 2, 'right', { fit: left - 10, force: true });
    row.forEach((v, j) => {
      const t = max > 0 ? v / max : 0;
      ctx.fillStyle = heat(t);
      ctx.fillRect(left + j * cw + 1, y + 1, Math.max(cw - 2, 1), rowH - 2);
      const s = num(v);
      if (ctx.measureText(s).width < cw - 6) ch.text(s, left + j * cw + cw / 2, y + rowH / 2, 'center', { color: t > 0.55 ? '#fff' : '#222' });
    });
  });
  // The colour scale, with its unit.
  const sx = w - scaleW + 6, sy = top, sh = Math.max(rowLabels.length * rowH, 80);
  for (let k = 0; k < sh; k++) {
    ctx.fillStyle = heat(1 - k / sh);
    ctx.fillRect(sx, sy + k, 12, 1);
  }
  ctx.strokeStyle = '#999';
  ctx.strokeRect(sx, sy, 12, sh);
  ch.text(num(max), sx + 16, sy + 6, 'left', { force: true });
  ch.text(num(max / 2), sx + 16, sy + sh / 2, 'left');
  ch.text('0', sx + 16, sy + sh - 6, 'left', { force: true });
  ch.text('per ' + unit, sx - 2, sy - 14, 'left', { force: true });
  ch.want = Math.max(ch.want, sy + sh + 20);
  ch.hit = (x, y) => {
    const i = Math.floor((y - top) / rowH), j = Math.floor((x - left) / cw);
    if (i < 0 || i >= matrix.length || j < 0 || j >= colLabels.length) return '';
    return `${rowLabels[i]} → ${colLabels[j]}: ${num(matrix[i][j])} transfers per ${unit}`;
  };
}

// histogram draws counts[k], the acquisitions that waited from edges[k]
// to edges[k+1] ns, with the edges under the bars and a counted y axis.
export function histogram(ch, w, h, counts, edges) {
  ch.want = 230;
  const left = 70, bottom = h - 46, top = 12, right = 40;
  const ticks = niceTicks(Math.max(1, ...counts), 4, true), max = ticks[ticks.length - 1];
  const bw = (w - left - right) / Math.max(counts.length, 1), ctx = ch.ctx;
  const Y = v => bottom - (bottom - top) * v / max;
  for (const t of ticks) {
    ctx.strokeStyle = '#eee';
    ctx.beginPath(); ctx.moveTo(left, Y(t)); ctx.lineTo(w - right, Y(t)); ctx.stroke();
    ch.text(num(t), left - 6, Y(t), 'right', { force: true });
  }
  ctx.save();
  ctx.translate(14, (top + bottom) / 2);
  ctx.rotate(-Math.PI / 2);
  ctx.textAlign = 'center';
  ctx.fillText('acquisitions', 0, 0);
  ctx.restore();
  counts.forEach((c, i) => {
    ctx.fillStyle = '#d62728';
    ctx.fillRect(left + i * bw + 1, Y(c), bw - 2, bottom - Y(c));
  });
  ctx.strokeStyle = '#222';
  ctx.beginPath(); ctx.moveTo(left, bottom); ctx.lineTo(w - right, bottom); ctx.stroke();
  edges.forEach((e, i) => {
    const x = left + i * bw;
    if (ch.text(fmtNs(e), x, bottom + 15, 'center')) {
      ctx.beginPath(); ctx.moveTo(x, bottom); ctx.lineTo(x, bottom + 4); ctx.stroke();
    }
  });
  ch.text('wait before the lock was taken (a bar spans [from, to) between two edges)', left + (w - left - right) / 2, bottom + 33, 'center', { force: true });
  ch.hit = x => {
    const i = Math.floor((x - left) / bw);
    if (i < 0 || i >= counts.length) return '';
    return `waited [${fmtNs(edges[i])}, ${fmtNs(edges[i + 1])}): ${num(counts[i])} acquisitions`;
  };
}

// Charts: uPlot line charts and plain canvas charts, each in a figure with
// PNG and CSV export of exactly what it draws.
import uPlot from './vendor/uplot/uPlot.esm.js';

const palette = ['#222', '#1f77b4', '#d62728', '#2ca02c', '#ff7f0e', '#9467bd', '#8c564b', '#e377c2', '#17becf', '#bcbd22'];
export const stateColors = { work: '#2ca02c', spin: '#d62728', stall: '#ff7f0e', sleep: '#1f77b4', idle: '#ccc' };

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

// frame puts a title and export buttons on fig and returns the body.
function frame(fig, name, png, csv) {
  fig.replaceChildren();
  const head = document.createElement('div');
  head.className = 'head';
  const title = document.createElement('span');
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
  fig.append(head, body);
  return body;
}

// LineChart is a uPlot chart whose series are set with their data.
export class LineChart {
  constructor(fig, { name, xLabel, yLabel, points = false, width = 540, height = 260 }) {
    this.fig = fig; this.name = name; this.xLabel = xLabel; this.yLabel = yLabel;
    this.points = points; this.width = width; this.height = height;
    this.body = frame(fig, () => this.name, () => this.u.ctx.canvas.toDataURL('image/png'), () => this.csv());
    this.labels = null;
  }
  // set draws data = [xs, ys...]; labels name the y series; dotted[i] draws
  // series i as points only (measured values over predictions); color[i]
  // picks its colour (by default its index).
  set(data, labels, dotted = [], color = []) {
    this.data = data;
    if (!this.u || String(labels) !== String(this.labels)) {
      this.labels = labels;
      this.u?.destroy();
      const series = [{ label: this.xLabel }].concat(labels.map((l, i) => ({
        label: l, stroke: palette[(color[i] ?? i) % palette.length], width: i === 0 ? 2 : 1.5,
        points: { show: dotted[i] || this.points, size: dotted[i] ? 9 : 5 },
        paths: dotted[i] ? () => null : undefined, spanGaps: true,
      })));
      this.u = new uPlot({
        width: this.width, height: this.height, series,
        scales: { x: { time: false } },
        axes: [{ label: this.xLabel }, { label: this.yLabel, size: 60 }],
      }, data, this.body);
    } else {
      this.u.setData(data);
    }
    this.fig.dataset.points = data[0].length;
  }
  csv() {
    const rows = [[this.xLabel].concat(this.labels)];
    for (let i = 0; i < (this.data?.[0].length ?? 0); i++) rows.push(this.data.map(s => s[i] ?? ''));
    return rows;
  }
}

// CanvasChart draws with draw(ctx, w, h) and exports rows().
export class CanvasChart {
  constructor(fig, { name, width = 540, height = 260, draw, rows }) {
    this.name = name; this.drawFn = draw; this.rows = rows;
    const body = frame(fig, () => this.name, () => this.canvas.toDataURL('image/png'), () => this.rows());
    this.canvas = document.createElement('canvas');
    this.canvas.className = 'plain';
    const dpr = window.devicePixelRatio || 1;
    this.canvas.width = width * dpr; this.canvas.height = height * dpr;
    this.canvas.style.width = width + 'px'; this.canvas.style.height = height + 'px';
    this.w = width; this.h = height; this.dpr = dpr;
    body.appendChild(this.canvas);
  }
  draw() {
    const ctx = this.canvas.getContext('2d');
    ctx.setTransform(this.dpr, 0, 0, this.dpr, 0, 0);
    ctx.fillStyle = '#fff';
    ctx.fillRect(0, 0, this.w, this.h);
    ctx.font = '12px system-ui, sans-serif';
    ctx.fillStyle = '#222';
    this.drawFn(ctx, this.w, this.h);
  }
}

// stackedBars draws one horizontal bar per row, split by fractions.
export function stackedBars(ctx, w, h, rows, labels, keys) {
  const left = 60, top = 24, bar = Math.min(28, (h - top - 10) / Math.max(rows.length, 1) - 6);
  keys.forEach((k, i) => {
    ctx.fillStyle = stateColors[k] || palette[i];
    ctx.fillRect(left + i * 90, 6, 12, 12);
    ctx.fillStyle = '#222';
    ctx.fillText(k, left + i * 90 + 16, 16);
  });
  rows.forEach((fr, r) => {
    const y = top + r * (bar + 6);
    ctx.fillStyle = '#222';
    ctx.fillText(labels[r], 6, y + bar / 2 + 4);
    let x = left;
    fr.forEach((f, i) => {
      const bw = f * (w - left - 10);
      ctx.fillStyle = stateColors[keys[i]] || palette[i];
      ctx.fillRect(x, y, bw, bar);
      x += bw;
    });
  });
}

// heatMap draws matrix[row][col] with a white-to-red scale.
export function heatMap(ctx, w, h, matrix, rowLabels, colLabels) {
  const left = 150, top = 20, max = Math.max(1, ...matrix.flat());
  const cw = (w - left - 10) / Math.max(colLabels.length, 1);
  const ch = Math.min(30, (h - top - 10) / Math.max(rowLabels.length, 1));
  colLabels.forEach((c, j) => ctx.fillText(c, left + j * cw + cw / 2 - 10, 14));
  matrix.forEach((row, i) => {
    ctx.fillStyle = '#222';
    ctx.fillText(rowLabels[i].slice(0, 22), 4, top + i * ch + ch / 2 + 4);
    row.forEach((v, j) => {
      const t = v / max;
      ctx.fillStyle = `rgb(255,${Math.round(255 * (1 - t))},${Math.round(255 * (1 - t))})`;
      ctx.fillRect(left + j * cw + 1, top + i * ch + 1, cw - 2, ch - 2);
      ctx.fillStyle = t > 0.6 ? '#fff' : '#222';
      ctx.fillText(String(v), left + j * cw + 6, top + i * ch + ch / 2 + 4);
    });
  });
}

// bars draws a histogram of counts with labels under the bars.
export function bars(ctx, w, h, counts, labels) {
  const left = 50, bottom = h - 30, max = Math.max(1, ...counts);
  const bw = (w - left - 10) / Math.max(counts.length, 1);
  ctx.fillText(String(max), 4, 20);
  ctx.fillText('0', 4, bottom);
  counts.forEach((c, i) => {
    const bh = (bottom - 20) * c / max;
    ctx.fillStyle = '#d62728';
    ctx.fillRect(left + i * bw + 1, bottom - bh, bw - 2, bh);
    ctx.fillStyle = '#222';
    if (i % Math.ceil(counts.length / 8) === 0) ctx.fillText(labels[i], left + i * bw, bottom + 16);
  });
}

// The TOML editor: a textarea with line numbers; the text is checked by the
// server's loader as you type, and each error is marked at its line.

export class Editor {
  constructor(area, gutter, status) {
    this.area = area; this.gutter = gutter; this.status = status;
    this.original = ''; this.name = ''; this.timer = 0; this.seq = 0;
    area.addEventListener('input', () => {
      this.numbers([]);
      clearTimeout(this.timer);
      this.timer = setTimeout(() => this.check(), 250);
    });
  }
  load(name, text) {
    this.name = name; this.original = text; this.area.value = text;
    this.numbers([]);
    this.status.textContent = '';
  }
  text() { return this.area.value; }
  edited() { return this.area.value !== this.original; }
  numbers(bad) {
    const n = this.area.value.split('\n').length;
    // As tall as the text, so that the editor box scrolls both columns.
    this.area.style.height = (n * 18 + 8) + 'px';
    const lines = bad.map(e => e.line);
    this.gutter.replaceChildren(...Array.from({ length: n }, (_, i) => {
      const s = document.createElement('span');
      s.textContent = (i + 1) + '\n';
      if (lines.includes(i + 1)) { s.className = 'bad'; s.title = bad.find(e => e.line === i + 1).message; }
      return s;
    }));
  }
  mark(errors) {
    this.numbers(errors);
    this.status.className = errors.length ? 'error' : '';
    this.status.textContent = errors.length ? errors.map(e => `line ${e.line}: ${e.message}`).join('\n') : 'ok: the scenario loads';
  }
  async check() {
    const seq = ++this.seq;
    const resp = await fetch('api/check?name=' + encodeURIComponent(this.name), { method: 'POST', body: this.area.value });
    const res = await resp.json();
    if (seq === this.seq) this.mark(res.errors.filter(e => e.line > 0).length ? res.errors : []);
    if (seq === this.seq && !res.ok && !res.errors.some(e => e.line > 0)) {
      this.status.className = 'error';
      this.status.textContent = res.errors.map(e => e.message).join('\n');
    }
  }
}

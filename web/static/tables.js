// Tables filled from rows of objects, sortable by a click on a column head.
// A column is a key of the rows, or {key, head, value, fmt}: head is what
// the header says (with the unit), value(row) what is shown and sorted by
// (the row's key by default), fmt(value) how it is written.

function fmt(v) {
  if (typeof v === 'boolean') return v ? 'yes' : '';
  if (typeof v !== 'number') return v ?? '';
  if (Number.isInteger(v)) return String(v);
  return Math.abs(v) >= 100 ? v.toFixed(1) : v.toFixed(3);
}

function column(c) {
  const col = typeof c === 'string' ? { key: c } : { ...c };
  col.head ??= col.key;
  col.value ??= r => r[col.key];
  col.fmt ??= fmt;
  return col;
}

export function fillTable(table, cols, rows) {
  cols = cols.map(column);
  table.rows_ = rows;
  table.cols_ = cols;
  const head = document.createElement('tr');
  for (const c of cols) {
    const th = document.createElement('th');
    th.textContent = c.head;
    th.dataset.col = c.key;
    head.appendChild(th);
  }
  table.replaceChildren(head, ...rows.map(r => {
    const tr = document.createElement('tr');
    for (const c of cols) {
      const td = document.createElement('td');
      td.textContent = c.fmt(c.value(r));
      tr.appendChild(td);
    }
    return tr;
  }));
}

// sortable sorts a table by the clicked column, toggling the direction.
export function sortable(table) {
  table.addEventListener('click', ev => {
    const th = ev.target.closest('th');
    if (!th || !table.rows_) return;
    const col = table.cols_.find(c => c.key === th.dataset.col), desc = !th.classList.contains('desc');
    const rows = [...table.rows_].sort((a, b) => {
      const x = col.value(a), y = col.value(b);
      const c = typeof x === 'number' ? x - y : String(x).localeCompare(String(y));
      return desc ? -c : c;
    });
    fillTable(table, table.cols_, rows);
    table.querySelector(`th[data-col="${col.key}"]`).classList.add(desc ? 'desc' : 'asc');
  });
}

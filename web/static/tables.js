// Tables filled from rows of objects, sortable by a click on a column head.

function fmt(v) {
  if (typeof v === 'boolean') return v ? 'yes' : '';
  if (typeof v !== 'number') return v ?? '';
  if (Number.isInteger(v)) return String(v);
  return Math.abs(v) >= 100 ? v.toFixed(1) : v.toFixed(3);
}

export function fillTable(table, cols, rows) {
  table.rows_ = rows;
  table.cols_ = cols;
  const head = document.createElement('tr');
  for (const c of cols) {
    const th = document.createElement('th');
    th.textContent = c;
    th.dataset.col = c;
    head.appendChild(th);
  }
  table.replaceChildren(head, ...rows.map(r => {
    const tr = document.createElement('tr');
    for (const c of cols) {
      const td = document.createElement('td');
      td.textContent = fmt(r[c]);
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
    const col = th.dataset.col, desc = !th.classList.contains('desc');
    const rows = [...table.rows_].sort((a, b) => {
      const x = a[col], y = b[col];
      const c = typeof x === 'number' ? x - y : String(x).localeCompare(String(y));
      return desc ? -c : c;
    });
    fillTable(table, table.cols_, rows);
    table.querySelector(`th[data-col="${col}"]`).classList.add(desc ? 'desc' : 'asc');
  });
}

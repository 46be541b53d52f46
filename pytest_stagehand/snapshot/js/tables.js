// Tables and ARIA grids as a person reads them, for the scripts that read cells by their
// row and column (snapshot.js, readback.js): `(parentOf, query, queryFirst) => model`,
// given how the script walks up (across shadow roots), how it finds elements under one,
// and, where it has a quicker way, the first of them.
(parentOf, query, queryFirst = (root, css) => query(root, css)[0]) => {
  // Tables and ARIA grids alike: rows (<tr>, role=row), their cells, the column a cell
  // stands in (its aria-colindex where the grid numbers columns, else its place, spans
  // across and down counted), the header row, and the group row a row stands under. A
  // grid that numbers its rows (aria-rowindex) may split one row across containers (pinned
  // columns): a row's parts are its grid's rows of its number, and their cells are its cells.
  const CELL_ROLES = new Set(["cell", "gridcell", "columnheader", "rowheader"]);
  const TABLE_ROLES = new Set(["table", "grid", "treegrid"]);
  const isTableRow = (el) => el.localName === "tr" || el.getAttribute("role") === "row";
  const isCell = (el) => el.localName === "td" || el.localName === "th" || CELL_ROLES.has(el.getAttribute("role"));
  const cellsOf = (row) => [...row.children].filter(isCell);
  const spanOf = (cell) => cell.colSpan || Number(cell.getAttribute("aria-colspan")) || 1;
  const rowNumberOf = (row) => Number(row.getAttribute("aria-rowindex")) || null;
  const tableOf = (el) => {
    for (let e = parentOf(el); e; e = parentOf(e)) {
      if (e.localName === "table" || TABLE_ROLES.has(e.getAttribute("role"))) return e;
    }
    return null;
  };
  const ROWS = "tr, [role=row]";
  const tableRows = new Map();  // table -> its own rows (not those of a table inside it)
  const rowsOfTable = (table) => {
    if (!tableRows.has(table)) tableRows.set(table, query(table, ROWS).filter((r) => tableOf(r) === table));
    return tableRows.get(table);
  };
  const rowsByNumber = new Map();  // table -> its rows by number
  const partsOf = (row) => {
    const number = isTableRow(row) && rowNumberOf(row);
    const table = number && tableOf(row);
    if (!table) return [row];
    if (!rowsByNumber.has(table)) {
      const byNumber = new Map();
      for (const r of rowsOfTable(table)) byNumber.set(rowNumberOf(r), [...(byNumber.get(rowNumberOf(r)) || []), r]);
      rowsByNumber.set(table, byNumber);
    }
    return rowsByNumber.get(table).get(number) || [row];
  };
  // A cell spanning rows down (<th scope=rowgroup rowspan=2>) takes its column in the rows
  // under it too: their cells stand after it.
  const rowSpanOf = (cell) => (cell.rowSpan === 0 ? Infinity : cell.rowSpan) || Number(cell.getAttribute("aria-rowspan")) || 1;
  const placed = new Map();  // a container of rows, or a row -> the column of each cell of its rows
  // Whether a cell among a container's rows may span rows down (an attribute says so): where
  // none does, a cell's column is read from its own row alone, and a large table's other
  // rows are not placed to look at one cell.
  const spanning = new Map();
  const spansDown = (rows) => {
    if (!spanning.has(rows)) spanning.set(rows, rows.querySelector("[rowspan], [aria-rowspan]") !== null);
    return spanning.get(rows);
  };
  const place = (rows) => {
    const columns = new Map();
    const taken = rows.map(() => new Set());  // per row: the columns cells above span into
    rows.forEach((row, y) => {
      let x = 0;
      for (const cell of cellsOf(row)) {
        while (taken[y].has(x)) x++;
        columns.set(cell, x);
        for (let below = y + 1; below < Math.min(rows.length, y + rowSpanOf(cell)); below++) {
          for (let across = 0; across < spanOf(cell); across++) taken[below].add(x + across);
        }
        x += spanOf(cell);
      }
    });
    return columns;
  };
  const columnOf = (cell) => {
    const numbered = Number(cell.getAttribute("aria-colindex"));
    if (numbered >= 1) return numbered - 1;
    const row = cell.parentElement;
    const rows = row && row.parentElement;
    if (!rows) return -1;
    const key = spansDown(rows) ? rows : row;
    if (!placed.has(key)) placed.set(key, place((key === rows ? [...rows.children] : [row]).filter(isTableRow)));
    const column = placed.get(key).get(cell);
    return column === undefined ? -1 : column;
  };
  const cellAt = (row, column) => {
    for (const part of partsOf(row)) {
      for (const c of cellsOf(part)) {
        const start = columnOf(c);
        if (column >= start && column < start + spanOf(c)) return c;
      }
    }
    return null;
  };
  const headers = new Map();  // table -> the parts of its first row of header cells alone, or null
  const headerRow = (row) => {
    const table = tableOf(row);
    if (!table) return null;
    if (!headers.has(table)) {
      const isHead = (r) => cellsOf(r).length && cellsOf(r).every((c) => c.localName === "th" || c.getAttribute("role") === "columnheader");
      // Most often its first row: then a large table's rows are not all gathered to find it.
      const first = queryFirst(table, ROWS);
      const head = first && tableOf(first) === table && isHead(first) ? first : rowsOfTable(table).find(isHead);
      headers.set(table, head ? partsOf(head) : null);
    }
    const head = headers.get(table);
    return head && !head.includes(row) ? head[0] : null;
  };
  // A row that heads the rows after it as their group (a calendar list's day, a section of
  // a table): a cell scoped to a row or column group, one cell spanning columns, or header
  // cells alone in a row of the body that is not the table's column header row (a row
  // header names its own row, not a group).
  const GROUP_SCOPES = new Set(["rowgroup", "colgroup"]);
  const isHeaderCell = (c) => c.localName === "th" || ["columnheader", "rowheader"].includes(c.getAttribute("role"));
  const isGroupRow = (row) => {
    const cells = cellsOf(row);
    if (!cells.length || (row.parentElement && row.parentElement.localName === "thead")) return false;
    if (cells.some((c) => GROUP_SCOPES.has(c.getAttribute("scope")))) return true;
    if (cells.length === 1 && spanOf(cells[0]) > 1) return true;
    return cells.every(isHeaderCell) && !cells.some((c) => c.getAttribute("scope") === "row") && headerRow(row) !== null;
  };
  // The group a table row stands in: the nearest group row before it among its siblings, or
  // the row itself where it holds its group's cell (<th scope=rowgroup rowspan=...>); null
  // for a row in no group.
  const groupOf = (row) => {
    if (!isTableRow(row)) return null;
    if (cellsOf(row).some((c) => c.getAttribute("scope") === "rowgroup")) return row;
    for (let e = row.previousElementSibling; e; e = e.previousElementSibling) {
      if (isTableRow(e) && isGroupRow(e)) return e;
    }
    return null;
  };
  return { isTableRow, isCell, cellsOf, rowNumberOf, tableOf, partsOf, columnOf, cellAt, headerRow, groupOf };
}

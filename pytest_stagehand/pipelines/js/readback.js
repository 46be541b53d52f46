// Where the values of an extract answer are shown on the page, and how to read them again.
// Evaluated by readback.py as `(args, describe) => json` with `args.mode`:
//   "ground": args.tree is the answer as a tree of leaves (each with the regular expressions
//     its value is shown as, or the checked state of a checkbox), objects and lists;
//     returns, per leaf, the elements showing it and, per list, the repeating structure
//     (rows under a container, a read per field: by selector, by the column header of a
//     table cell, or by the element after the row, as a <dd> after its <dt>).
//   "rows": args.root is the container of a recorded list; returns each row's fields, read
//     with the recorded selectors (with args.describe, the description of the element that
//     holds them), or why the structure no longer holds.
//   "holders": the elements that hold the recorded rows now, each with its rows read.
//   "like": elements of a tag whose text fits a read rule (where a value may have moved).
//   none: args.target's value as args.source says to read it.
// `describeElement(el, memo)` is snapshot.js's description of one element (for selectors and
// fingerprints). Like snapshot.js it only reads the page. Elements are walked in the flat
// tree a person sees: open shadow roots in their hosts' place, slotted elements in their
// slots'.
// Kept whole: one script evaluated in one call per read; its modes share the row model
// (fieldIn, the flat tree, reading order) that "ground" records and the others read back.
(args, describeElement) => {
  const memo = {};  // what describing reads from the whole document, read once per call
  const describe = (el) => describeElement(el, memo);
  const collapse = (s) => (s || "").replace(/[\u200b\u00ad]/g, "").replace(/\s+/g, " ").trim();
  const FORM_FIELDS = new Set(["input", "select", "textarea"]);
  const TEST_ID_ATTRS = ["data-testid", "data-test-id", "data-test", "data-qa"];
  const visible = (el) => !el.checkVisibility || el.checkVisibility();
  // What a reader sees of an element: a form field's value (a select's chosen option's label),
  // a link's absolute href, the rendered text, or the aria-label that names it (a calendar's
  // day "10" is "March 10, 2026" to a screen reader, and in the snapshot).
  const read = (el, source) => {
    if (!visible(el)) return "";  // hidden text is not shown: a value there reads as gone
    if (source === "href") return el.href || "";
    if (source === "label") return collapse(el.getAttribute("aria-label"));
    if (source === "checked") return checkedOf(el);
    if (source === "value") {
      if (el.localName === "select") return collapse(el.selectedOptions[0] ? el.selectedOptions[0].label : "");
      return el.value == null ? "" : String(el.value);
    }
    return textOf(el);
  };
  // An element's rendered text, a control in a short one set apart: innerText runs a tag's
  // text into its remove button's ("CheeseRemove item", Choices.js), two things to a person.
  const textOf = (el) => {
    let text = el.innerText || "";  // none for an SVG element
    if (text.length > 200) return collapse(text);  // a container, not a value
    for (const control of el.querySelectorAll("button, [role=button]")) {
      const own = control.innerText;
      if (own) text = text.replace(own, ` ${own} `);
    }
    return collapse(text);
  };
  // An element's line: its parent's text but its own, where that is short ("Shipping" for
  // the <dd> of "Shipping $5.00", "Total:" for the <strong> of "Total: <strong>$44</strong>").
  const lineOf = (el) => {
    const parent = el.parentElement;
    if (!parent || parent === document.body || !visible(parent)) return "";
    const line = collapse(collapse(parent.innerText).replace(collapse(el.innerText), " "));
    return line.length <= 200 ? line : "";
  };
  const CHECKABLE = new Set(["checkbox", "radio", "switch", "menuitemcheckbox", "menuitemradio"]);
  // A checkbox's state as text ("true"/"false"); null for an element that has none.
  const checkedOf = (el) => {
    if (el.localName === "input" && (el.type === "checkbox" || el.type === "radio")) return String(el.checked);
    const state = el.getAttribute("aria-checked");
    return CHECKABLE.has(el.getAttribute("role")) && state !== null ? String(state === "true") : null;
  };
  // The flat tree: a host shows its shadow root; a slot shows what is assigned to it.
  const flatChildren = (el) => {
    if (el.shadowRoot) return [...el.shadowRoot.children];
    if (el.localName === "slot") {
      const assigned = el.assignedElements();
      if (assigned.length) return assigned;
    }
    return [...el.children];
  };
  const flatParent = (el) => el.assignedSlot || el.parentElement || (el.parentNode && el.parentNode.host) || null;
  // The nearest element from `el` up that matches `selector`, up the flat tree: a list
  // item a component draws in its shadow root around the text slotted into it.
  const flatClosest = (el, selector) => {
    for (let e = el; e; e = flatParent(e)) if (e.matches(selector)) return e;
    return null;
  };
  const contains = (a, b) => {
    for (let e = b; e; e = flatParent(e)) if (e === a) return true;
    return false;
  };
  // The nearest element that holds all the rows (none of them itself), or null.
  const containerOf = (rows) => {
    let container = flatParent(rows[0]);
    while (container && !rows.every((row) => contains(container, row) && row !== container)) container = flatParent(container);
    return container;
  };
  // The elements under `root` in flat-tree order (`root` left out).
  const flatBelow = (root) => {
    const out = [];
    const walk = (el) => { for (const child of flatChildren(el)) { out.push(child); walk(child); } };
    walk(root);
    return out;
  };
  // What `selector` hits under `root` in the flat tree (":scope": `root` itself); the
  // browser's own query where the document has no shadow root, where the trees are one.
  let shadowless;
  const query = (root, selector) => {
    if (selector === ":scope") return [root];
    shadowless ??= ![...document.querySelectorAll("*")].some((el) => el.shadowRoot);
    if (shadowless) return [...root.querySelectorAll(selector)];
    return flatBelow(root).filter((el) => el.matches(selector));
  };
  // Tables and ARIA grids: rows, their cells, columns and header row (snapshot/js/tables.js).
  const { isTableRow, isCell, cellsOf, rowNumberOf, tableOf, partsOf, columnOf, cellAt, headerRow, groupOf } =
    (/*@TABLES*/)(flatParent, query);
  // The cell of a row that `el` is, or shows nothing but (a link filling its cell); else null.
  const cellOf = (el) => {
    for (let e = el; e && !isTableRow(e); e = flatParent(e)) {
      if (isCell(e) && e.parentElement && isTableRow(e.parentElement)) {
        return collapse(e.innerText) === collapse(el.innerText) ? e : null;
      }
    }
    return null;
  };
  // The column under the header that says `header`; -1 when no header says it (once).
  const columnNamed = (row, header) => {
    const head = headerRow(row);
    if (!head) return -1;
    const named = partsOf(head).flatMap(cellsOf).filter((c) => collapse(c.innerText) === header);
    return named.length === 1 ? columnOf(named[0]) : -1;
  };
  // Elements in the order a person reads them: a grid that numbers its rows may keep them
  // in the document in another order (sorted by moving them on screen, or split across
  // containers); its rows' elements are read by row number, where its first one stands.
  const readingOrder = (elements) => {
    const rowOf = new Map();
    const numberedRow = (el) => {
      if (!el) return null;
      if (!rowOf.has(el)) rowOf.set(el, isTableRow(el) && rowNumberOf(el) ? el : numberedRow(flatParent(el)));
      return rowOf.get(el);
    };
    const first = new Map();  // table -> where its first numbered row's element stands
    const keys = elements.map((el, i) => {
      const row = numberedRow(el);
      const table = row && tableOf(row);
      if (!table) return [el, i, 0, i];
      if (!first.has(table)) first.set(table, i);
      return [el, first.get(table), rowNumberOf(row), i];
    });
    keys.sort((a, b) => a[1] - b[1] || a[2] - b[2] || a[3] - b[3]);
    return keys.map((key) => key[0]);
  };
  // Where a field stands in its row (a recorded "where"): a selector under the row, the
  // cell under a column header ({column}), the cell at a place in a table without headers
  // ({cell}), the first element after the row that a selector hits ({next}) before the
  // next row (a <dd> after its <dt>), or one of these in the group row the row stands under
  // ({group}: a calendar list's day above its events).
  const fieldIn = (row, where, isRow) => {
    if (where.group !== undefined) {
      const group = groupOf(row);
      return group && fieldIn(group, where.group, () => false);
    }
    if (typeof where === "string") {
      let hits;
      try { hits = query(row, where); } catch { return null; }
      return hits.length === 1 ? hits[0] : null;
    }
    if (where.column !== undefined || where.cell !== undefined) {
      if (!row.parentElement || !partsOf(row).some((part) => cellsOf(part).length)) return null;
      const column = where.column !== undefined ? columnNamed(row, where.column) : where.cell;
      return column < 0 ? null : cellAt(row, column);
    }
    for (let e = row.nextElementSibling; e && !isRow(e); e = e.nextElementSibling) {
      if (e.matches(where.next)) return e;
    }
    return null;
  };
  // The rows of one group of a list whose groups stand under headers among its rows (an
  // autocomplete's categories): the `rows` hits right after the one element that says
  // `under` and is no row, up to the next element that is none (the next group's header).
  const rowsUnder = (root, where) => {
    const isRow = (el) => el.matches(where.rows);
    const heads = flatBelow(root).filter((el) => !isRow(el) && el.nextElementSibling &&
      isRow(el.nextElementSibling) && visible(el) && textOf(el) === where.under);
    if (heads.length !== 1) return [];
    const rows = [];
    for (let e = heads[0].nextElementSibling; e && isRow(e); e = e.nextElementSibling) if (visible(e)) rows.push(e);
    return rows;
  };
  // The rows a recorded row selector finds under `root`, in reading order: a selector's
  // visible hits, or one group's rows ({rows, under}).
  const rowsBy = (root, where) => typeof where === "string"
    ? readingOrder(query(root, where).filter((el) => visible(el))) : rowsUnder(root, where);
  const sourceOf = (el, url) => (url ? "href" : FORM_FIELDS.has(el.localName) ? "value" : "text");
  const testIdOf = (el) => {
    for (const name of TEST_ID_ATTRS) {
      const value = el.getAttribute(name);
      if (value) return [name, value];
    }
    return null;
  };
  const quote = (value) => '"' + value.replace(/\\/g, "\\\\").replace(/"/g, '\\"') + '"';

  // ---------------------------------------------------------------- ground
  if (args.mode === "ground") {
    const all = readingOrder(flatBelow(document.body).filter((el) => visible(el)));
    const order = new Map(all.map((el, i) => [el, i]));
    const texts = new Map(all.map((el) => [el, textOf(el)]));
    // The innermost visible elements showing one of `patterns` (or links to `url`, or a
    // checkbox in the `checked` state), in flat-tree order: [element, source, text, token, index].
    const showing = (leaf) => {
      if (leaf.checked !== undefined) {
        const state = String(leaf.checked);
        return all.filter((el) => checkedOf(el) === state).map((el) => [el, "checked", state, state, 0]);
      }
      if (leaf.url) {
        const links = all.filter((el) => el.localName === "a" && el.href === leaf.url);
        if (links.length) return links.map((el) => [el, "href", el.href, el.href, 0]);
      }
      const pattern = new RegExp(leaf.pattern, "u");
      const found = [];
      const labelled = [];  // where no text shows it: an aria-label, a name the snapshot shows
      for (const el of all) {
        const text = FORM_FIELDS.has(el.localName) ? read(el, "value") : texts.get(el);
        const match = pattern.exec(text);
        const label = !match && read(el, "label");
        const named = label && pattern.exec(label);
        if (named) labelled.push([el, "label", label, named[0], named.index]);
        if (!match) continue;
        const inner = !FORM_FIELDS.has(el.localName) &&
          [...el.children, ...flatChildren(el)].some((c) => texts.has(c) && pattern.test(texts.get(c)));
        if (!inner) found.push([el, sourceOf(el, false), text, match[0], match.index]);
      }
      return found.length ? found : labelled;
    };
    // Text in the flat tree: innerText reads nothing a slot shows (Shoelace's checkbox label).
    const flatText = (n) => n.nodeType === Node.TEXT_NODE ? n.data : n.nodeType !== Node.ELEMENT_NODE || ["style", "script", "template"].includes(n.localName) ? ""
      : [...(n.localName === "slot" && n.assignedNodes().length ? n.assignedNodes({ flatten: true }) : (n.shadowRoot || n).childNodes)].map(flatText).join(" ");
    // What names a checkbox for a person (its label), else the text around the element.
    const labelOf = (el, source) => {
      const labelled = source === "checked" && el.labels && el.labels[0];
      const named = labelled ? collapse(labelled.innerText) || flatText(labelled) : source === "checked" && el.getAttribute("aria-label");
      return collapse(named || (flatParent(el) ? flatParent(el).innerText : ""));
    };
    const shown = (el, candidate) => ({
      source: candidate[1], text: candidate[2], token: candidate[3], index: candidate[4],
      element: describe(el), label: labelOf(el, candidate[1]), line: lineOf(el),
    });

    const after = (a, b) => !b || order.get(a) > order.get(b);
    // A row a person counts as one: a list's item, a table's row, and the items of a menu,
    // a list box, a tree or a tab list (a menu item shows its text in an inner label).
    const ROW_LIKE = "li, tr, article, dt, [role=listitem], [role=row], [role=menuitem], " +
      "[role=menuitemcheckbox], [role=menuitemradio], [role=option], [role=treeitem], [role=tab]";

    // Where each of `targets` stands in its row `rows[i]`, best first (see fieldIn): one
    // `where` that finds exactly it in every row.
    const relative = (rows, targets, isRow) => {
      const options = [];
      if (targets.every((t, i) => t === rows[i])) return [":scope"];
      const ids = targets.map(testIdOf);
      if (ids.every((id) => id && id[0] === ids[0][0] && id[1] === ids[0][1])) {
        options.push(`[${ids[0][0]}=${quote(ids[0][1])}]`);
      }
      // Text slotted into a component's named slot (its headline, its supporting text): the
      // slot says what the text is in the component's layout (a <slot> passing it on to an
      // inner component's slot of that name is not the text).
      const slot = targets[0].getAttribute("slot");
      if (slot && targets.every((t) => t.getAttribute("slot") === slot)) options.push(`[slot=${quote(slot)}]:not(slot)`);
      // A table cell by its column's header, as a person finds it; by its place where the
      // table has no header.
      const cells = targets.map((t, i) => (isCell(t) && partsOf(rows[i]).includes(t.parentElement) ? t : null));
      if (cells.every((c) => c)) {
        const column = columnOf(cells[0]);
        const head = headerRow(rows[0]);
        const header = head && cellAt(head, column);
        if (header && cells.every((c) => columnOf(c) === column)) {
          const name = collapse(header.innerText);
          if (name) options.push({ column: name });
        } else if (!head && cells.every((c) => columnOf(c) === column)) {
          options.push({ cell: column });
        }
      }
      const shared = [...targets[0].classList].filter((c) => targets.every((t) => t.classList.contains(c)));
      for (const c of shared.slice(0, 2)) options.push(`.${CSS.escape(c)}`);
      const tag = targets[0].localName;
      if (targets.every((t) => t.localName === tag)) {
        options.push(CSS.escape(tag));
        const up = targets[0].parentElement;
        if (up && targets.every((t) => t.parentElement && t.parentElement.localName === up.localName)) {
          options.push(`${CSS.escape(up.localName)} > ${CSS.escape(tag)}`);
        }
        // An element after its row (a <dd> after its <dt>), not inside it.
        if (targets.every((t, i) => !contains(rows[i], t))) options.push({ next: CSS.escape(tag) });
      }
      return options.filter((where) => rows.every((row, i) => fieldIn(row, where, isRow) === targets[i]));
    };

    // A list: rows under a container, and a read per field of each row.
    const groundList = (node) => {
      const items = node.items;
      if (!items.length) return { unreadable: "an empty list has no rows to read again" };
      const objects = items[0].kind === "object";
      if (items.some((item) => item.kind !== (objects ? "object" : "leaf"))) {
        return { unreadable: "a list whose items are lists or mixed values cannot be read again" };
      }
      const fieldNames = objects ? Object.keys(items[0].fields) : [null];
      const leafOf = (item, name) => (name === null ? item : item.fields[name]);
      const readable = fieldNames.filter((name) => items.every((item) => leafOf(item, name).kind === "leaf"));
      // The anchor: a field whose values are each shown somewhere, those that tell the rows
      // apart first (a calendar list's titles repeat, "Offsite" on two days, where its days,
      // distinct, head groups of rows and are no rows of their own).
      const distinct = (name) => new Set(items.map((item) => leafOf(item, name).pattern)).size === items.length;
      const anchors = objects ? [...readable.filter(distinct), ...readable.filter((name) => !distinct(name))] : readable;
      // The rows around anchors `heads` (one per item, one after another), their container
      // and the selectors that enumerate exactly them; or why they cannot be read again.
      const rowsAround = (heads) => {
        // Each row: the largest element around its anchor that holds no other row's anchor,
        // up to a table row (not its section, where a group has one row); a list of values
        // each in a cell of its own row (a column): that row.
        let rows = heads;
        const cells = heads.map(cellOf);
        if (objects) {
          rows = heads.map((head, i) => {
            let row = head;
            for (let up = flatParent(row); up && up !== document.body && !isTableRow(row) &&
                 !heads.some((other, j) => j !== i && contains(up, other)); up = flatParent(row)) {
              row = up;
            }
            return row;
          });
          if (items.length === 1) {  // no neighbour to bound it: the nearest item-like ancestor
            let row = heads[0];
            while (flatParent(row) && !row.matches(ROW_LIKE)) row = flatParent(row);
            rows = [row.matches(ROW_LIKE) ? row : flatParent(heads[0])];
          }
        } else if (cells.every((c) => c) && new Set(cells.map((c) => c.parentElement)).size === cells.length) {
          rows = cells.map((c) => c.parentElement);
        }
        // The row selector must enumerate exactly these rows, in this order: a model's choice
        // of some rows (the cheap ones, the first three) cannot be read again.
        const selectorsOf = (container, rows) => {
          const options = [];
          const ids = rows.map(testIdOf);
          if (ids.every((id) => id && id[0] === ids[0][0] && id[1] === ids[0][1])) options.push(`[${ids[0][0]}=${quote(ids[0][1])}]`);
          for (const c of [...rows[0].classList].filter((c) => rows.every((r) => r.classList.contains(c))).slice(0, 2)) options.push(`.${CSS.escape(c)}`);
          if (rows.every((r) => r.localName === rows[0].localName)) {
            options.push(CSS.escape(rows[0].localName));
            if (rows[0].localName === "tr") options.push("tr:has(> td)");  // not the header row
          }
          // An ARIA grid's rows of cells: not its header row, nor a group's row of one header.
          if (rows.every((r) => r.getAttribute("role") === "row")) options.push("[role=row]:has(> [role=gridcell], > [role=cell])");
          const enumerates = (where) => {
            let hits;
            try { hits = rowsBy(container, where); } catch { return false; }
            return hits.length === rows.length && hits.every((hit, i) => hit === rows[i]);
          };
          const exact = options.filter(enumerates);
          if (exact.length) return exact;
          // All the rows of one group, one after another under its header (the element
          // before the first row, no row itself): the rows under that header.
          const header = rows[0].previousElementSibling;
          const run = rows.every((row, i) => i === 0 || row.previousElementSibling === rows[i - 1]);
          const under = run && header && textOf(header);
          return under ? options.map((selector) => ({ rows: selector, under })).filter(enumerates) : [];
        };
        let container = containerOf(rows);
        if (!container) return { unreadable: "its rows have no common container" };
        let rowSelectors = selectorsOf(container, rows);
        // Values alone in no element of their own kind (a link beside another in each table
        // row): their rows are the items around them, one each.
        const holders = objects ? [] : heads.map((head) => flatClosest(head, ROW_LIKE));
        if (!rowSelectors.length && !objects && holders.every((h, i) => h && !holders.slice(0, i).includes(h))) {
          const around = containerOf(holders);
          const selectors = around ? selectorsOf(around, holders) : [];
          if (selectors.length) [rows, container, rowSelectors] = [holders, around, selectors];
        }
        if (!rowSelectors.length) {
          return { unreadable: "it is a selection of the rows the page shows (or rows without a common selector), not all of them in order" };
        }
        return { heads, rows, container, rowSelectors };
      };
      // Each field of rows `found`: where it stands in every row (see fieldIn) and how each
      // row shows it; or why it cannot be read again.
      const fieldsOf = ({ heads, rows }) => {
        const isRow = (el) => rows.includes(el);
        // What belongs to row i: what it holds, and what stands after it before the next row.
        const inRow = (i, el) => {
          if (partsOf(rows[i]).some((part) => contains(part, el))) return true;
          for (let e = rows[i].nextElementSibling; e && !isRow(e); e = e.nextElementSibling) if (contains(e, el)) return true;
          return false;
        };
        // The element showing each row's value of `name` in `scopes[i]` (what `holds(i, el)`),
        // and how it shows it; null where a row does not.
        const shownIn = (name, scopes, holds) => {
          const targets = [];
          const shownRows = [];
          for (let i = 0; i < rows.length; i++) {
            const shown = showing(leafOf(items[i], name)).filter((c) => holds(i, c[0]));
            const own = shown.find((c) => c[0] === heads[i]) || shown[0];
            if (!own) return null;
            // A value filling its table cell is read from the cell, under its column.
            const cell = own[1] === "text" ? cellOf(own[0]) : null;
            targets.push(cell && partsOf(scopes[i]).includes(cell.parentElement) ? cell : own[0]);
            shownRows.push({ source: own[1], text: own[2], token: own[3], index: own[4] });
          }
          return { targets, shownRows };
        };
        // How each row's own label shows its value of `name`; null where one does not.
        const labelsOf = (name) => {
          const shownRows = [];
          for (let i = 0; i < rows.length; i++) {
            const leaf = leafOf(items[i], name);
            const label = leaf.pattern !== undefined && read(rows[i], "label");
            const match = label && new RegExp(leaf.pattern, "u").exec(label);
            if (!match) return null;
            shownRows.push({ source: "label", text: label, token: match[0], index: match.index });
          }
          return shownRows;
        };
        const fields = {};
        for (const name of fieldNames) {
          const key = name === null ? "" : name;
          if (!readable.includes(name)) { fields[key] = { unreadable: "a nested value inside a list item cannot be read again" }; continue; }
          const own = shownIn(name, rows, inRow);
          const selectors = own ? relative(rows, own.targets, isRow) : [];
          if (selectors.length) { fields[key] = { selectors, rows: own.shownRows }; continue; }
          // Rows whose own label says each value, where their text shows it in unlike places
          // or not at all (TinyMCE's menu: most items' text in an inner label, a colour
          // item's only in its aria-label): read the label of every row, one rule for all.
          const labelled = labelsOf(name);
          if (labelled) { fields[key] = { selectors: [":scope"], rows: labelled }; continue; }
          // Not in its row: in the group row it stands under (the day above a day's events).
          const groups = rows.map(groupOf);
          const grouped = groups.every((g) => g) ? shownIn(name, groups, (i, el) => contains(groups[i], el)) : null;
          const inGroup = grouped ? relative(groups, grouped.targets, () => false) : [];
          if (inGroup.length) {
            fields[key] = { selectors: inGroup.map((where) => ({ group: where })), rows: grouped.shownRows };
          } else {
            fields[key] = { unreadable: own ? "no selector finds it alone in every row" : "not shown in every row" };
          }
        }
        return fields;
      };
      // The first rows whose every field reads again, of the anchors' values shown one after
      // another from each place the first is shown (a select's chosen value stands before its
      // options); else the first rows found.
      let found = null;
      search: for (const name of anchors) {
        for (const first of showing(leafOf(items[0], name)).slice(0, 12).map((c) => c[0])) {
          const heads = [first];
          for (const item of items.slice(1)) {
            const next = showing(leafOf(item, name)).map((c) => c[0]).find((el) => after(el, heads[heads.length - 1]));
            if (!next) break;
            heads.push(next);
          }
          if (heads.length < items.length) break;  // a later start shows no more of them
          const tried = rowsAround(heads);
          if (!tried.unreadable) tried.fields = fieldsOf(tried);
          if (found === null || (found.unreadable && !tried.unreadable)) found = tried;
          if (tried.fields && !Object.values(tried.fields).some((f) => f.unreadable)) { found = tried; break search; }
        }
      }
      if (found === null) {
        return { unreadable: "its items are not shown one after another on the page", nowhere: true };
      }
      if (found.unreadable) return found;
      return { container: describe(found.container), rows: found.rowSelectors, fields: found.fields };
    };

    const ground = (node) => {
      if (node.kind === "leaf") {
        const candidates = showing(node).slice(0, 12).map((c) => shown(c[0], c));
        // A text the page does not show whole may be joined from parts it shows.
        if (!candidates.length && node.parts) return { candidates, parts: node.parts.map(ground) };
        return { candidates };
      }
      if (node.kind === "object") {
        const out = {};
        for (const [name, child] of Object.entries(node.fields)) out[name] = ground(child);
        return { fields: out };
      }
      if (node.kind === "list") return { list: groundList(node) };
      return {};
    };
    return JSON.stringify(ground(args.tree));
  }

  // ---------------------------------------------------------------- rows
  // Each row's fields under `root`, read with the recorded selectors; null when no recorded
  // row selector finds rows whose fields all read.
  const rowsIn = (root) => {
    for (const selector of args.rows) {
      let rows;
      try { rows = rowsBy(root, selector); } catch { continue; }
      if (!rows.length) continue;
      const isRow = (el) => rows.includes(el);
      const read_rows = [];
      let broken = "";
      for (const row of rows) {
        const values = {};
        for (const [name, field] of Object.entries(args.fields)) {
          let hit = null;
          for (const where of field.selectors) {
            hit = fieldIn(row, where, isRow);
            if (hit) break;
          }
          if (!hit) { broken = `a row has no single element for ${name || "the value"}`; break; }
          values[name] = read(hit, field.source);
        }
        if (broken) break;
        read_rows.push(values);
      }
      if (!broken) return { selector, rows: read_rows, found: rows };
    }
    return null;
  };
  if (args.mode === "rows") {
    const found = rowsIn(args.root);
    if (!found) return JSON.stringify({ broken: "no recorded row selector finds rows whose fields all read" });
    // Read in another scope than the recorded container: say where the rows are now.
    const container = args.describe ? { container: describe(containerOf(found.found) || args.root) } : {};
    return JSON.stringify({ selector: found.selector, rows: found.rows, ...container });
  }

  // ---------------------------------------------------------------- holders
  // The elements the recorded rows stand in now, each the nearest that holds its rows (a
  // list, and the element around two alike lists), with its rows read: where a recorded
  // list may be, described (at most 50).
  if (args.mode === "holders") {
    const rows = new Set();
    for (const selector of args.rows) {
      try { for (const row of rowsBy(document.body, selector)) rows.add(row); } catch { continue; }
    }
    const count = new Map();  // element -> how many rows it holds
    for (const row of rows) {
      for (let up = flatParent(row); up; up = flatParent(up)) count.set(up, (count.get(up) || 0) + 1);
    }
    // Not the nearest: an element whose child holds all its rows.
    const over = new Set([...count].filter(([el, n]) => count.get(flatParent(el)) === n).map(([el]) => flatParent(el)));
    const found = [];
    for (const el of count.keys()) {
      if (over.has(el) || el === document.documentElement) continue;
      const read = rowsIn(el);
      if (read) found.push({ element: describe(el), rows: read.rows });
      if (found.length >= 50) break;
    }
    return JSON.stringify(found);
  }

  // ---------------------------------------------------------------- like
  // Elements a recorded value may have moved to: visible, of the recorded tag, innermost
  // with text that fits the read rule (args.pattern; null: any text).
  if (args.mode === "like") {
    const pattern = args.pattern === null ? /\S/u : new RegExp(args.pattern, "u");
    const found = [];
    const tagged = flatBelow(document.body).filter((el) => el.localName === args.tag);
    for (let i = 0; i < tagged.length; i++) {
      const el = tagged[i];
      if (!visible(el)) continue;
      const text = read(el, args.source);
      if (text === null || !pattern.test(text)) continue;
      if (args.source === "text" && [...el.children, ...flatChildren(el)].some((c) => visible(c) && pattern.test(read(c, "text")))) continue;
      found.push({ text, element: describe(el), line: lineOf(el) });
      if (found.length >= 50) break;
    }
    return JSON.stringify(found);
  }

  // ---------------------------------------------------------------- one element
  // args.target: the element; args.source: how its value is read.
  return JSON.stringify({ value: read(args.target, args.source), line: lineOf(args.target) });
}

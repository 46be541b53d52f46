el => {
  const box = el.getBoundingClientRect();
  if (!box.width || !box.height) return "";
  const x = box.left + box.width / 2, y = box.top + box.height / 2;
  if (x < 0 || y < 0 || x >= innerWidth || y >= innerHeight) return "";
  const up = (e) => e.assignedSlot || e.parentElement || e.getRootNode().host || null;
  const within = (e, of) => { for (; e; e = up(e)) if (e === of) return true; return false; };
  const plain = !el.matches("input, textarea, select") && !el.isContentEditable;
  const target = (plain && el.closest("button, [role=button], a, [role=link]")) || el;
  const hit = el.getRootNode().elementFromPoint(x, y);
  if (!hit || within(hit, target)) return "";
  const control = "a[href], button, input, select, textarea, [role=button], [role=link], "
    + "[role=checkbox], [role=switch], [role=radio], dialog, [role=dialog], [aria-modal=true]";
  if (hit.closest(control)) return "";
  const labels = [...(el.labels || [])];
  const wrapper = el.parentElement;
  const ownWrapper = () => {
    if (!wrapper || wrapper === document.body || wrapper === document.documentElement) return false;
    if (!wrapper.contains(hit)) return false;
    const inLabel = (node) => labels.some((l) => l.contains(node));
    const others = [...wrapper.querySelectorAll(control)].filter((c) => c !== el && !inLabel(c));
    if (others.length) return false;
    const walker = document.createTreeWalker(wrapper, NodeFilter.SHOW_TEXT);
    for (let t = walker.nextNode(); t; t = walker.nextNode()) {
      if (t.data.trim() && !inLabel(t)) return false;
    }
    return true;
  };
  const over = labels.findIndex((l) => l.contains(hit));
  // A control that takes no pointer itself (a toggle button's hidden input) is drawn by its
  // label: a person clicks that, whatever lies over the input's own box.
  const drawnByLabel = getComputedStyle(el).pointerEvents === "none";
  const own = over >= 0 || ownWrapper();
  if (!own && !drawnByLabel) return "";
  // The label at the point where the label itself takes the click, never a link in it.
  const at = (i, px, py) => {
    const b = labels[i].getBoundingClientRect();
    const there = labels[i].getRootNode().elementFromPoint(px, py);
    const ok = there && labels[i].contains(there) && !there.closest(control);
    return ok ? `label:${i}:${Math.round(px - b.left)},${Math.round(py - b.top)}` : "";
  };
  if (over >= 0) return at(over, x, y);
  const shown = labels.findIndex((l) => l.checkVisibility() && l.getBoundingClientRect().width > 0);
  if (shown >= 0) {
    const b = labels[shown].getBoundingClientRect();
    return at(shown, b.left + b.width / 2, b.top + b.height / 2);
  }
  if (!own) return "";  // no label of its own shown: the cover is Playwright's to name
  const part = hit.getBoundingClientRect(), whole = wrapper.getBoundingClientRect();
  const inside = part.left >= whole.left - 1 && part.top >= whole.top - 1
    && part.right <= whole.right + 1 && part.bottom <= whole.bottom + 1;
  if (!inside) return "";
  const words = (hit.className && typeof hit.className === "string" ? hit.className : "")
    .split(/\s+/).filter(Boolean).slice(0, 2);
  return `point:${[hit.localName, ...words].join(".")}`;
}

([x, y, items]) => {
  const hit = document.elementFromPoint(x, y);
  if (!hit || hit === document.documentElement || hit === document.body) return null;
  if (hit.closest("canvas")) return { element: hit.closest("canvas") };
  const ids = new Map();
  for (const [id, selector] of items) {
    try { const el = document.querySelector(selector); if (el) ids.set(el, id); } catch (e) {}
  }
  for (let e = hit; e; e = e.parentElement) if (ids.has(e)) return { id: ids.get(e) };
  return { element: hit.ownerSVGElement ? hit.closest("svg") : hit };
}

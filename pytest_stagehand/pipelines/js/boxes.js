items => items.map(([id, selector]) => {
  let el = null;
  try { el = document.querySelector(selector); } catch (e) { return null; }
  if (!el) return null;
  const r = el.getBoundingClientRect();
  return [id, r.x, r.y, r.width, r.height];
})

area => {
  const total = area.width * area.height;
  let covered = 0;
  for (const el of document.querySelectorAll("canvas, svg, img, video, object, embed")) {
    if (el.ownerSVGElement) continue;
    const r = el.getBoundingClientRect();
    const w = Math.min(r.right, area.x + area.width) - Math.max(r.left, area.x);
    const h = Math.min(r.bottom, area.y + area.height) - Math.max(r.top, area.y);
    if (w > 0 && h > 0 && getComputedStyle(el).visibility !== "hidden") covered += w * h;
  }
  return total ? Math.min(1, covered / total) : 0;
}

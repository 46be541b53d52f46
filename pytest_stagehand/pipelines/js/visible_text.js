() => {
  const body = document.body;
  if (!body) return "";
  let text = body.innerText;
  let at = 0;
  for (const select of body.querySelectorAll("select")) {
    if (!select.checkVisibility()) continue;  // not in innerText, which it would match wrongly
    const offered = select.innerText;
    const where = offered ? text.indexOf(offered, at) : -1;
    if (where < 0) continue;
    const chosen = [...select.selectedOptions].map((o) => o.label).join(", ");
    text = text.slice(0, where) + chosen + text.slice(where + offered.length);
    at = where + chosen.length;
  }
  return text;
}

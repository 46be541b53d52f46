(el) => {
  if (el.getRootNode() !== el.ownerDocument) return null;  // XPath cannot enter a shadow tree
  const row = el.closest("tr, [role=row]");
  const html = (e) => e.namespaceURI === "http://www.w3.org/1999/xhtml" &&
    /^[a-z][a-z0-9-]*$/.test(e.localName);
  if (!row || !html(row)) return null;
  const steps = [];
  for (let e = el; e !== row; e = e.parentElement) {
    if (!html(e)) return null;
    let index = 1;
    for (let s = e.previousElementSibling; s; s = s.previousElementSibling) {
      if (s.localName === e.localName) index++;
    }
    steps.unshift(`${e.localName}[${index}]`);
  }
  return [row.getAttribute("role") === "row" ? '*[@role="row"]' : row.localName, steps.join("/")];
}

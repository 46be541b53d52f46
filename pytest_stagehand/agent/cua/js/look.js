([x, y, focused]) => {
  const describe = /*@DESCRIBER*/;
  const deepest = (el, next) => {
    while (el && el.shadowRoot) {
      const inner = next(el.shadowRoot);
      if (!inner || inner === el) break;
      el = inner;
    }
    return el;
  };
  const hit = focused
    ? deepest(document.activeElement, (root) => root.activeElement)
    : deepest(document.elementFromPoint(x, y), (root) => root.elementFromPoint(x, y));
  if (!hit || hit === document.body) return { at: hit ? "body" : "", element: null };
  const at = hit.tagName.toLowerCase() + (hit.id ? "#" + hit.id : "");
  let control = hit.tagName === "IFRAME" ? null : hit.closest(/*@CONTROLS*/);
  if (control && control.tagName === "LABEL") control = control.control;
  const editable = control && (control.isContentEditable
    || ["INPUT", "TEXTAREA"].includes(control.tagName)
    || ["textbox", "combobox", "searchbox"].includes(control.getAttribute("role")));
  if (focused && !editable) control = null;
  return { at, element: control ? describe(control) : null };
}

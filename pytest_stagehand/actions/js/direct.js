(found, [method, text, stay = false]) => {
  if (!found || found.length !== 1) return null;
  const el = found[0];
  const visible = el.checkVisibility({ visibilityProperty: true });
  if (!visible || el.matches(":disabled") || el.closest("[aria-disabled=true]")) {
    return null;
  }
  if (!(/*@SHOWN*/)(el)) return null;
  if ((/*@MOVING*/)(el)) return null;
  if (method === "fill") {
    const typed = ["email", "password", "search", "tel", "text", "url"];
    const field = el.localName === "textarea"
      || (el.localName === "input" && typed.includes(el.type));
    if (!field || el.readOnly) return null;
    const calm = (/*@AT_REST*/)();
    el.focus();
    el.select();
    if (document.activeElement !== el) return null;
    if (!document.execCommand("insertText", false, text)) return null;
    // On a page at rest, what the fill changed as it typed is its own: the page is at
    // rest again (a settle waits for what it started after: timers, requests).
    if (calm) (/*@CALM_AT*/)(null);
    return [(/*@TAKE_OPENS*/)()];
  }
  const centre = () => {
    const box = el.getClientRects()[0];
    if (!box || !box.width || !box.height) return null;
    const x = box.left + box.width / 2, y = box.top + box.height / 2;
    return x >= 0 && y >= 0 && x < innerWidth && y < innerHeight ? [x, y] : null;
  };
  let point = centre();
  if (!point && !stay) {
    el.scrollIntoView({ block: "center", inline: "center", behavior: "instant" });
    point = centre();
  }
  if (!point || (/*@STAND_IN*/)(el) !== "") return null;
  const hit = el.getRootNode().elementFromPoint(point[0], point[1]);
  if (!hit || !el.contains(hit)) return null;
  const key = Symbol.for("pytest-stagehand.guard");
  if (window[key]) window[key].stop();
  const guard = { verdict: "", navigation: null, submit: null, calm: false };
  const pointer = ["pointerdown", "mousedown", "pointerup", "mouseup", "click"];
  const watch = (event) => {
    if (!event.isTrusted) return;
    if (!guard.verdict) {
      guard.verdict = event.composedPath().includes(el) ? "hit" : "missed";
      guard.calm = (/*@AT_REST*/)();  // the page was at rest as the click began
    }
    if (guard.verdict === "missed") {
      event.preventDefault();
      event.stopImmediatePropagation();
    }
    if (event.type === "click") {
      unwatch();
      // On a page at rest, what the click changes as it is handled (its listeners, a
      // form's submit) is its own: counted in the first task after it, ahead of any timer
      // its listeners set (READ_GUARD puts the page at rest there).
      const own = () => { guard.own = (/*@CHANGES_NOW*/)(); };
      // On the page's own timers untraced (PAGE_CHANGES): it is no work the click started.
      if (guard.calm && guard.verdict === "hit") ((/*@PAGE_CHANGES_STATE*/)?.wait || setTimeout)(own, 0);
    }
  };
  const navigated = (event) => { guard.navigation ||= event; };
  const submitted = (event) => { guard.submit ||= event; };
  const unwatch = () => { for (const type of pointer) removeEventListener(type, watch, true); };
  guard.stop = () => {
    unwatch();
    removeEventListener("submit", submitted, true);
    if (window.navigation) navigation.removeEventListener("navigate", navigated);
    clearTimeout(timer);
  };
  const timer = setTimeout(guard.stop, 5000);
  for (const type of pointer) addEventListener(type, watch, true);
  addEventListener("submit", submitted, true);
  if (window.navigation) navigation.addEventListener("navigate", navigated);
  window[key] = guard;
  return point;
}

(/*@PAGE_CHANGES_STATE*/ ||= (() => {
  const state = {
    id: Math.random().toString(36).slice(2), last: performance.now(), changes: 0, wake: [],
    calm: -1,
  };
  const changed = () => {
    state.last = performance.now();
    state.changes += 1;
    for (const wake of state.wake.splice(0)) wake();
  };
  // The overlay drawn over the page for a screenshot (covering.py), and taken away, is no change.
  const overlay = (record) => record.type === "childList" &&
    [...record.addedNodes, ...record.removedNodes].every((node) => node.id === /*@OVERLAY_ID*/);
  const observer = new MutationObserver((records) => { if (!records.every(overlay)) changed(); });
  observer.observe(document, {
    subtree: true, childList: true, attributes: true, characterData: true,
  });
  state.take = () => {
    const records = observer.takeRecords();
    if (records.length && !records.every(overlay)) changed();
  };
  for (const type of ["transitionend", "animationend"]) addEventListener(type, changed, true);
  // A document that changed only while it loaded (the parser and its scripts, up to the
  // load event) is at rest once loaded: those changes are the navigation's own. What the
  // page's load handlers and timers change comes after, and is waited for.
  addEventListener("load", () => { if (state.calm < 0) { state.take(); state.calm = state.changes; } });
  return state;
})())

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
  // The timers the page sets while it handles typing (a search field's debounce), and those
  // their callbacks set in turn (a render scheduled on a timer): what typing started is not
  // done until they have run. Only short ones (up to TIMER_MS): a longer one is time passing.
  const TIMER_MS = 1000;
  const native = { set: setTimeout, clear: clearTimeout };
  state.timers = new Map();  // id -> when it is due
  state.wait = (callback, ms) => native.set.call(window, callback, ms);
  let traced = false;  // the task running now was started by typing or by a timer it set
  const trace = () => { traced = true; state.wait(() => { traced = false; }, 0); };
  for (const type of ["input", "keydown", "keyup", "keypress"]) {
    addEventListener(type, (event) => { if (event.isTrusted) trace(); }, true);
  }
  window.setTimeout = function (callback, ms, ...rest) {
    const delay = Number(ms) || 0;
    if (!traced || typeof callback !== "function" || delay > TIMER_MS) return native.set.call(window, callback, ms, ...rest);
    const id = native.set.call(window, function () {
      state.timers.delete(id);
      trace();
      return callback.apply(this, arguments);
    }, ms, ...rest);
    state.timers.set(id, performance.now() + delay);
    return id;
  };
  window.clearTimeout = function (id) {
    state.timers.delete(id);
    return native.clear.call(window, id);
  };
  // The documents asked for in this one's place (a link, a form, a script setting
  // location, a download: the Navigation API's navigate event), noted as each is asked
  // for: its request may reach the browser's network, and the test's routes, only after
  // the step that asked has settled.
  state.leaving = [];
  if (window.navigation) {
    navigation.addEventListener("navigate", (event) => {
      if (!event.destination.sameDocument) state.leaving.push(event);
    });
  }
  return state;
})())

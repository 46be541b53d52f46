(/*@PAGE_CHANGES_STATE*/ ||= (() => {
  const state = {
    id: Math.random().toString(36).slice(2), last: performance.now(), changes: 0, wake: [],
    calm: -1,
  };
  const changed = () => {
    state.last = performance.now();
    state.changes += 1;
    if (!loading()) state.changedAfterLoad = true;
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
  // The same for the document's loading: its scripts while it loads, its load handlers,
  // and the work they start (short timers, animation frames, requests and the reading of
  // their answers), and theirs in turn. A page may wire up its controls in that work
  // without changing the DOM (jQuery runs its ready handlers on a timer): until all of it
  // has run (`loadWork` is empty), the document is not known to be at rest.
  // `changedAfterLoad`: the DOM changed in a task that was not part of it.
  let loadTraced = false;
  const loadTrace = () => { loadTraced = true; state.wait(() => { loadTraced = false; }, 0); };
  const loading = () => loadTraced || document.readyState !== "complete";
  addEventListener("load", loadTrace, true);
  state.loadWork = new Set();
  state.changedAfterLoad = false;
  // Whether this watch saw the whole load: set up as the document was created (an init
  // script), not by a settle later on.
  const sawLoad = document.readyState === "loading";
  // The document has loaded, and every change it made since it started was its loading's,
  // all that work done; so have its frames (one it cannot look into is not known to).
  state.loaded = () => sawLoad && document.readyState === "complete" && !state.loadWork.size &&
    !state.changedAfterLoad && Array.from({ length: window.frames.length }, (_, index) => window.frames[index])
      .every((frame) => { try { return frame[/*@PAGE_CHANGES_KEY*/].loaded(); } catch { return false; } });
  // Work `key` has run: the task running it is traced as the one that scheduled it was.
  const ran = (key, typing, load) => {
    state.timers.delete(key);
    state.loadWork.delete(key);
    if (typing) trace();
    if (load) loadTrace();
  };
  window.setTimeout = function (callback, ms, ...rest) {
    const delay = Number(ms) || 0;
    const typing = traced, load = loading();
    if ((!typing && !load) || typeof callback !== "function" || delay > TIMER_MS) return native.set.call(window, callback, ms, ...rest);
    const id = native.set.call(window, function () {
      ran(id, typing, load);
      return callback.apply(this, arguments);
    }, ms, ...rest);
    if (typing) state.timers.set(id, performance.now() + delay);
    if (load) state.loadWork.add(id);
    return id;
  };
  window.clearTimeout = function (id) {
    state.timers.delete(id);
    state.loadWork.delete(id);
    return native.clear.call(window, id);
  };
  const animationFrames = { request: window.requestAnimationFrame, cancel: window.cancelAnimationFrame };
  window.requestAnimationFrame = function (callback) {
    if (!loading() || typeof callback !== "function") return animationFrames.request.call(window, callback);
    const id = animationFrames.request.call(window, function () {
      ran(`frame ${id}`, false, true);
      return callback.apply(this, arguments);
    });
    state.loadWork.add(`frame ${id}`);
    return id;
  };
  window.cancelAnimationFrame = function (id) {
    state.loadWork.delete(`frame ${id}`);
    return animationFrames.cancel.call(window, id);
  };
  // A promise the load work waits on (a response, its body): part of that work until it
  // settles, and what runs on its answer is too.
  const awaited = (promise) => {
    const key = {};
    state.loadWork.add(key);
    const done = () => { state.loadWork.delete(key); loadTrace(); };
    return promise.then((value) => { done(); return value; }, (error) => { done(); throw error; });
  };
  const fetch = window.fetch;
  window.fetch = function () {
    const answer = fetch.apply(this, arguments);
    return loading() ? awaited(answer) : answer;
  };
  for (const read of ["json", "text"]) {
    const own = Response.prototype[read];
    Response.prototype[read] = function () {
      const body = own.apply(this, arguments);
      return loading() ? awaited(body) : body;
    };
  }
  const send = XMLHttpRequest.prototype.send;
  XMLHttpRequest.prototype.send = function () {
    if (loading()) {
      const key = {};
      state.loadWork.add(key);
      // Capturing: before the page's own listeners, so that theirs is a traced task.
      this.addEventListener("readystatechange", () => {
        if (this.readyState === XMLHttpRequest.DONE) { loadTrace(); state.loadWork.delete(key); }
      }, true);
    }
    return send.apply(this, arguments);
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

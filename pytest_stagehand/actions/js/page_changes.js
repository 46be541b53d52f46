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
  // The timers and animation frames the page sets while it handles a person's input,
  // typing or a press of the pointer (a search field's debounce, a sort a framework
  // renders after the next frame), and those their callbacks set in turn: what the input
  // started is not done until they have run. Only short timers (up to TIMER_MS: a longer
  // one is time passing), and only INPUT_STEPS steps from the input: further on, a frame
  // asking for the next is an animation loop.
  const TIMER_MS = 1000, INPUT_STEPS = 20;
  const native = { set: setTimeout, clear: clearTimeout };
  state.timers = new Map();  // key -> when it is due
  state.wait = (callback, ms) => native.set.call(window, callback, ms);
  let traced = 0;  // how many steps from an input the task running now is (0: none's)
  const trace = (step) => { traced = step; state.wait(() => { traced = 0; }, 0); };
  const INPUTS = ["input", "keydown", "keyup", "keypress", "pointerdown", "mousedown",
    "pointerup", "mouseup", "click"];
  for (const type of INPUTS) {
    addEventListener(type, (event) => { if (event.isTrusted) trace(1); }, true);
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
  // `schedule` (setTimeout, requestAnimationFrame) with the work an input or loading asks of
  // it traced, under the key `keyOf(id)`: the task that runs it is traced as the one that
  // asked for it was. `delayOf` reads the delay asked for from the arguments after the callback.
  const tracing = (schedule, keyOf, delayOf) => function (callback, ...rest) {
    const delay = delayOf(rest);
    const step = traced && traced < INPUT_STEPS ? traced + 1 : 0, load = loading();
    if ((!step && !load) || typeof callback !== "function" || delay > TIMER_MS) return schedule.call(window, callback, ...rest);
    const id = schedule.call(window, function () {
      state.timers.delete(keyOf(id));
      state.loadWork.delete(keyOf(id));
      if (step) trace(step);
      if (load) loadTrace();
      return callback.apply(this, arguments);
    }, ...rest);
    if (step) state.timers.set(keyOf(id), performance.now() + delay);
    if (load) state.loadWork.add(keyOf(id));
    return id;
  };
  const cancelling = (cancel, keyOf) => function (id) {
    state.timers.delete(keyOf(id));
    state.loadWork.delete(keyOf(id));
    return cancel.call(window, id);
  };
  // A hidden document (a tab behind another, in a headed browser) draws no frames: none
  // is waited for there, asked for while it is hidden or still to come as it is hidden.
  const FRAME_MS = 16;
  const frame = (id) => `frame ${id}`;
  document.addEventListener("visibilitychange", () => {
    if (!document.hidden) return;
    for (const key of [...state.timers.keys()]) if (String(key).startsWith("frame ")) state.timers.delete(key);
  }, true);
  window.setTimeout = tracing(native.set, (id) => id, ([ms]) => Number(ms) || 0);
  window.clearTimeout = cancelling(native.clear, (id) => id);
  window.requestAnimationFrame = tracing(window.requestAnimationFrame, frame, () => (document.hidden ? Infinity : FRAME_MS));
  window.cancelAnimationFrame = cancelling(window.cancelAnimationFrame, frame);
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

async (describe, [quiet, least, cap, early]) => {
  const end = performance.now() + cap;
  if (document.readyState === "loading") {
    const loaded = await new Promise(resolve => {
      document.addEventListener("DOMContentLoaded", () => resolve(true), { once: true });
      setTimeout(() => resolve(false), cap);
    });
    if (!loaded) return null;
  }
  const state = /*@PAGE_CHANGES*/;
  state.wait(describe.prepare, 0);  // its own task: not in the way of an early return
  const floor = performance.now() + least - quiet;
  // How long the CSS transitions and animations running now take to end: the page is
  // still changing while one runs. A modal's backdrop fades in, and only at its end does
  // the modal itself show. Not waited for: a spinner's (endless), and one longer than
  // OPENING (a progress bar, a countdown), which shows time passing, not a page coming
  // to rest.
  const OPENING = 2000;
  const moving = () => {
    let left = 0;
    for (const animation of document.getAnimations()) {
      const timing = animation.playState === "running" && animation.effect && animation.effect.getComputedTiming();
      if (!timing || !Number.isFinite(timing.endTime) || timing.activeDuration > OPENING) continue;
      const rate = Math.abs(animation.playbackRate) || 1;
      left = Math.max(left, (timing.endTime - (timing.localTime || 0)) / rate);
    }
    return left;
  };
  // How long until the timers that an input started (PAGE_CHANGES) have run: at least a
  // moment for one that is due but waits for a busy page.
  const timers = () => {
    let left = 0;
    for (const due of state.timers.values()) left = Math.max(left, due - performance.now(), 1);
    return left;
  };
  for (;;) {
    state.take();
    const now = performance.now();
    const quietAt = Math.max(state.last, floor) + quiet;
    const still = quietAt <= now ? Math.max(moving(), timers()) : 0;
    if (quietAt <= now && !still) state.calm = state.changes;
    if ((quietAt <= now && !still) || end <= now) return [state.id, state.changes, true];
    // A document never settled before is at rest once its loading's work has all run, if
    // that work made all its changes and nothing moves.
    if (early && state.calm < 0 && state.loaded() && !moving()) state.calm = state.changes;
    if (early && state.changes === state.calm && !state.timers.size) return [state.id, state.changes, false];
    await new Promise(resolve => state.wait(resolve, Math.min(Math.max(quietAt, now + still), end) - now));
  }
}

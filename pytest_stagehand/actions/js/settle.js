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
  describe.prepare();
  const floor = performance.now() + least - quiet;
  for (;;) {
    state.take();
    const now = performance.now();
    const quietAt = Math.max(state.last, floor) + quiet;
    if (quietAt <= now) state.calm = state.changes;
    if (quietAt <= now || end <= now) return [state.id, state.changes, true];
    if (early && state.changes === state.calm) return [state.id, state.changes, false];
    await new Promise(resolve => setTimeout(resolve, Math.min(quietAt, end) - now));
  }
}

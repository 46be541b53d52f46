async ([id, seen, cap]) => {
  const state = /*@PAGE_CHANGES*/;
  if (state.id !== id || state.changes !== seen) return true;
  return await new Promise(resolve => {
    const timer = state.wait(() => resolve(false), cap);  // untraced: not the page's work
    state.wake.push(() => { clearTimeout(timer); resolve(true); });
  });
}

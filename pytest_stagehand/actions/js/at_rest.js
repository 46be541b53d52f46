() => {
  const state = /*@PAGE_CHANGES_STATE*/;
  if (!state) return false;
  state.take();
  return state.changes === state.calm;
}

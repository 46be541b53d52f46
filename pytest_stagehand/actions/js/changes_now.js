() => {
  const state = /*@PAGE_CHANGES_STATE*/;
  if (!state) return null;
  state.take();
  return state.changes;
}

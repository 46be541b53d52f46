(changes) => {
  const state = /*@PAGE_CHANGES_STATE*/;
  if (state) state.calm = changes ?? (/*@CHANGES_NOW*/)();
}

() => {
  const state = /*@PAGE_CHANGES_STATE*/;
  if (!state) return [];
  return state.leaving.splice(0).filter((event) => !event.defaultPrevented)
    .map((event) => event.destination.url);
}

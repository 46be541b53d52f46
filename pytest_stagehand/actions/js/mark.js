() => { const state = /*@PAGE_CHANGES*/; return [state.id, state.changes]; }

// An init script: a document given the describer as it is created prepares it (PREPARE)
// once it has been parsed, in a task of its own, while the page still loads or waits for
// the next step: the first look after a navigation then finds it compiled.
if (window === window.top) {
  document.addEventListener("DOMContentLoaded", () => {
    const state = /*@PAGE_CHANGES_STATE*/;
    if (state) state.wait(() => { const describe = /*@DESCRIBER*/; if (describe) describe.prepare(); }, 0);
  }, { once: true });
}

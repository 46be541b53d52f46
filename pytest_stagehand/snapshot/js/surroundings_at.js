(describe, elements, selectors) => {
  // Playwright's CSS pierces open shadow roots and the document's own query does not: with
  // any shadow root in the document, every element is left to a look of its own (null).
  const walker = document.createTreeWalker(document, NodeFilter.SHOW_ELEMENT);
  while (walker.nextNode()) if (walker.currentNode.shadowRoot) return JSON.stringify(selectors.map(() => null));
  const memo = {};
  return JSON.stringify(selectors.map((selector) => {
    let found;
    try { found = document.querySelectorAll(selector); } catch { return null; }
    return found.length === 1 ? describe.snapshot({ around: found[0], origin: "", memo }) : null;
  }));
}

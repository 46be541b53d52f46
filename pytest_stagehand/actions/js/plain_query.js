(selector, lightOnly = /*@NO_SHADOW_ROOTS*/) => {
  try {
    if (selector.startsWith("xpath=")) {
      const result = document.evaluate(
        selector.slice(6), document, null, XPathResult.ORDERED_NODE_SNAPSHOT_TYPE, null);
      const found = [];
      for (let i = 0; i < result.snapshotLength; i++) {
        const node = result.snapshotItem(i);
        if (node.nodeType === Node.ELEMENT_NODE) found.push(node);
      }
      return found;
    }
    const found = document.querySelectorAll(selector);
    return lightOnly() ? found : null;
  } catch {
    return null;
  }
}

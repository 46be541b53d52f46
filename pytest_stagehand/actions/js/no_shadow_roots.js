() => {
  const walker = document.createTreeWalker(document, NodeFilter.SHOW_ELEMENT);
  while (walker.nextNode()) if (walker.currentNode.shadowRoot) return false;
  return true;
}

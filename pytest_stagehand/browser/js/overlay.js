([id, boxes, secrets]) => {
  document.getElementById(id)?.remove();
  // Every part lets the mouse through: "all:initial" would make it a target again, and a
  // part under the pointer would take the hover from the page (a hover menu closes).
  const drawn = "all:initial;pointer-events:none;position:fixed;";
  const root = document.createElement("div");
  root.id = id;
  root.style.cssText = `${drawn}inset:0;z-index:2147483647`;
  // A margin around the box: glyphs overhang it, and a scaled-down image blends its edge.
  const cover = (r, shown) => {
    if (!r.width || !r.height) return;
    const box = document.createElement("div");
    box.textContent = shown;
    box.style.cssText = `${drawn}left:${r.x - 2}px;top:${r.y - 2}px;` +
      `width:${r.width + 4}px;height:${r.height + 4}px;background:#777;color:#fff;` +
      "font:11px/1 monospace;overflow:hidden";
    root.append(box);
  };
  const matchers = secrets.map(([value, shown, word]) => [word
    ? ((pattern) => (text) => pattern.test(text))(new RegExp(word, "iu"))
    : ((lower) => (text) => text.toLowerCase().includes(lower))(value.toLowerCase()), shown]);
  const holds = (text) => matchers.find(([matches]) => matches(text));
  const visit = (scope) => {
    const walker = document.createTreeWalker(scope, NodeFilter.SHOW_ELEMENT | NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      if (node.nodeType === Node.TEXT_NODE) {
        const found = holds(node.data);
        const parent = node.parentElement;
        if (found && parent) cover(parent.getBoundingClientRect(), found[1]);
        continue;
      }
      if (["input", "textarea", "select"].includes(node.localName)) {
        // A closed select shows its chosen option's text, which may not be its value.
        const chosen = node.selectedOptions ? [...node.selectedOptions].map((o) => o.text) : [];
        const found = holds([String(node.value || ""), ...chosen].join(" "));
        if (found) cover(node.getBoundingClientRect(), found[1]);
      }
      if (node.shadowRoot) visit(node.shadowRoot);
    }
  };
  if (matchers.length) visit(document.documentElement);
  const colours = ["#e6194b", "#3cb44b", "#4363d8", "#f58231", "#911eb4", "#008080"];
  boxes.forEach(([mark, x, y, w, h], i) => {
    const colour = colours[i % colours.length];
    const box = document.createElement("div");
    box.style.cssText = `${drawn}left:${x}px;top:${y}px;width:${w}px;` +
      `height:${h}px;outline:2px solid ${colour};outline-offset:-1px;box-sizing:border-box`;
    const label = document.createElement("div");
    label.textContent = mark;
    const above = y >= 14;
    label.style.cssText = `${drawn}left:${x}px;top:${above ? y - 14 : y}px;` +
      `background:${colour};color:#fff;font:bold 11px/14px monospace;padding:0 2px`;
    root.append(box, label);
  });
  if (root.childElementCount) document.documentElement.append(root);
}

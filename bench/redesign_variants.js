// Four redesigns of one page of the example shop, built in place from its markup, for
// bench_redesign.py. `({ variant, seed })`; "a+b" applies one after the other. Every control keeps its role and its job; what
// a redesign changes is changed: names of ids and classes (restyled), visible wording
// (reworded), markup structure, order and ids (rebuilt), components with open shadow roots
// two deep (componentised). The element each step was recorded on carries the attribute
// `data-bench-truth`, which the healer never reads; it moves with the element.
({ variant, seed }) => {
  let state = seed;
  const random = () => (state = (state * 1103515245 + 12345) % 2147483648) / 2147483648;
  const token = () => Math.floor(random() * 36 ** 5).toString(36).padStart(5, "0");
  const elements = () => [...document.body.querySelectorAll("*")];

  // Ids and classes renamed everywhere they are referred to: labels, ARIA references and
  // the style sheets, so the page keeps its looks and what is hidden stays hidden.
  function rename(newId, newClass) {
    const ids = new Map();
    const classes = new Map();
    for (const el of elements()) {
      if (el.id) { ids.set(el.id, newId(el.id)); el.id = ids.get(el.id); }
      if (el.classList.length) {
        const renamed = [...el.classList].map((c) => {
          if (!classes.has(c)) classes.set(c, newClass(c));
          return classes.get(c);
        });
        el.setAttribute("class", renamed.join(" "));
      }
    }
    for (const el of document.querySelectorAll("[for], [aria-labelledby], [aria-describedby], [aria-controls], [list]")) {
      for (const name of ["for", "aria-labelledby", "aria-describedby", "aria-controls", "list"]) {
        const value = el.getAttribute(name);
        if (value) el.setAttribute(name, value.split(/\s+/).map((v) => ids.get(v) || v).join(" "));
      }
    }
    const swap = (text) => text
      .replace(/#([\w-]+)/g, (m, id) => (ids.has(id) ? `#${ids.get(id)}` : m))
      .replace(/\.([\w-]+)/g, (m, c) => (classes.has(c) ? `.${classes.get(c)}` : m));
    const visit = (rules) => {
      for (const rule of rules) {
        if (rule.selectorText) rule.selectorText = swap(rule.selectorText);
        if (rule.cssRules) visit(rule.cssRules);
      }
    };
    for (const sheet of document.styleSheets) { try { visit(sheet.cssRules); } catch {} }
  }

  const SYNONYMS = [
    ["i agree to the terms and conditions", "I accept the terms of service"],
    ["remember me", "Keep me signed in"],
    ["log in to your account", "Sign in to your account"],
    ["log in", "Sign in"],
    ["log out", "Sign out"],
    ["confirm password", "Repeat passphrase"],
    ["password", "Passphrase"],
    ["username", "Login name"],
    ["full name", "Your name"],
    ["email address", "E-mail"],
    ["email", "E-mail"],
    ["add to cart", "Add to basket"],
    ["continue shopping", "Keep browsing"],
    ["checkout", "Proceed to payment"],
    ["cart", "Basket"],
    ["remove", "Delete"],
    ["continue", "Next step"],
    ["cancel", "Go back"],
    ["first name", "Given name"],
    ["last name", "Surname"],
    ["postal code", "ZIP code"],
    ["payment method", "How to pay"],
    ["shipping method", "Delivery option"],
    ["express delivery", "Express shipping"],
    ["standard delivery", "Standard shipping"],
    ["credit card", "Card"],
    ["finish", "Place order"],
    ["sort by", "Order by"],
    ["search products", "Find products"],
    ["search", "Find"],
    ["create account", "Register"],
    ["sign up", "Register"],
    ["subscribe", "Join"],
    ["quantity", "Qty"],
    ["category", "Department"],
    ["filter", "Refine"],
  ];
  const PHRASE = new RegExp(`\\b(${SYNONYMS.map(([a]) => a).join("|")})\\b`, "gi");
  const reword = (text) => text.replace(PHRASE, (m) => {
    const to = SYNONYMS.find(([a]) => a === m.toLowerCase())[1];
    return m[0] === m[0].toLowerCase() ? to.toLowerCase() : to;
  });

  function reworded() {
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let node; (node = walker.nextNode()); ) {
      if (node.parentElement.closest('a[href*="/products/"], [data-test*=item-name], [data-test*=desc]')) continue;
      node.textContent = reword(node.textContent);
    }
    for (const el of elements()) {
      for (const name of ["placeholder", "aria-label", "title", "alt"]) {
        const value = el.getAttribute(name);
        if (value) el.setAttribute(name, reword(value));
      }
      if (el.localName === "option") el.label = reword(el.label);
    }
  }

  function rebuilt() {
    rename(() => `r-${token()}`, (c) => `u${token()}`);
    for (const el of elements()) {
      for (const name of ["data-test", "data-testid"]) el.removeAttribute(name);
    }
    // Lists become ARIA lists of divs; forms and panels get extra wrappers; the blocks of
    // each container are laid out in another order.
    const asDiv = (el, role) => {
      const div = document.createElement("div");
      for (const { name, value } of el.attributes) div.setAttribute(name, value);
      if (!div.hasAttribute("role")) div.setAttribute("role", role);
      div.append(...el.childNodes);
      el.replaceWith(div);
      return div;
    };
    for (const list of document.querySelectorAll("ul, ol")) {
      for (const item of [...list.children]) asDiv(item, "listitem");
      asDiv(list, "list");
    }
    for (const el of document.querySelectorAll("form, section, fieldset, header, footer, main")) {
      const wrapper = document.createElement("div");
      wrapper.className = `w${token()}`;
      wrapper.append(...el.childNodes);
      el.append(wrapper);
      const blocks = [...wrapper.children].filter((c) => !["h1", "h2", "h3", "legend", "label"].includes(c.localName));
      if (blocks.length > 1 && random() < 0.7) {
        const first = blocks[0];
        blocks[blocks.length - 1].after(first);  // the first block moves to the end
      }
    }
  }

  function componentised() {
    const sheet = new CSSStyleSheet();
    const rules = [];
    for (const s of document.styleSheets) { try { for (const r of s.cssRules) rules.push(r.cssText); } catch {} }
    sheet.replaceSync(rules.join("\n"));
    const targets = [...document.querySelectorAll("header, nav, main > *, form, fieldset, li, article, aside, section, dialog")];
    for (const target of targets) {
      const kind = target.localName === "li" ? "item" : target.localName;
      const host = document.createElement(`shop-${kind}`);
      target.replaceWith(host);
      const outer = host.attachShadow({ mode: "open" });
      outer.adoptedStyleSheets = [sheet];
      const body = document.createElement(`shop-${kind}-body`);
      outer.append(body);
      const inner = body.attachShadow({ mode: "open" });
      inner.adoptedStyleSheets = [sheet];
      inner.append(target);
    }
  }

  const BUILD = {
    unchanged: () => {},
    restyled: () => rename(() => `x${token()}`, () => `css-${token()}`),
    reworded,
    rebuilt,
    componentised,
  };
  for (const part of variant.split("+")) {  // "reworded+rebuilt": one after the other
    if (!BUILD[part]) throw new Error(`unknown variant ${part}`);
    BUILD[part]();
  }
}

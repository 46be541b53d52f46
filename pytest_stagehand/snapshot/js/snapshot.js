// One frame's DOM -> outline lines + the data needed to act on and recognise each element,
// kept in the page (or, given `args.target`, just that element's description). Evaluated once
// per frame by outline.py as `(args) => json`. It only reads the page: no attribute, property
// or node of the app's is written (its one write is our store, under a symbol of ours), so
// snapshots never disturb the app under test.
// Roles follow HTML-AAM and names follow accname 1.2, with Playwright's choices where the
// specs leave room, so that our roles and names agree with Playwright's own AI snapshot.
// Kept whole: the page receives it as one script per frame, and its helpers share one read
// of the document.
(args) => {
  const scope = args.root || document.documentElement;
  const frameElements = args.frames || [];
  const topOrigin = args.origin;
  // What is read from the whole document (shadow roots, labels, ids, style sheets), kept in
  // `args.memo` when given: a page script describing many elements in one call reads it once.
  const memo = args.memo || {};

  // ---------------------------------------------------------------- DOM helpers

  // What this run has read of an element, in one record: one Map lookup where each cache
  // had its own (a large page's walk would look each element up in several). Each field is
  // undefined until read.
  class Facts {
    style = undefined;  // its computed style
    display = undefined;  // and these two of its properties: each read of one costs
    visibility = undefined;
    role = undefined;  // roleOf
    name = undefined;  // nameOf
    hidden = undefined;  // hiddenForNames
    chain = undefined;  // hiddenChain
    disabled = undefined;  // ariaDisabledChain
    line = undefined;  // its outline line, once the walk made one
    pending = false;  // a text-only generic box: it keeps a parent's name visible
    step = undefined;  // stepOf
    row = undefined;  // rowIndex
  }
  const facts = new Map();
  const factsOf = (el) => {
    let f = facts.get(el);
    if (!f) facts.set(el, (f = new Facts()));
    return f;
  };
  const styleOf = (el) => {
    const f = factsOf(el);
    return f.style || (f.style = getComputedStyle(el));
  };
  const displayOf = (el) => {
    const f = factsOf(el);
    return f.display ?? (f.display = (f.style || (f.style = getComputedStyle(el))).display);
  };
  const visibilityOf = (el) => {
    const f = factsOf(el);
    return f.visibility ?? (f.visibility = (f.style || (f.style = getComputedStyle(el))).visibility);
  };
  const parentOf = (el) => el.parentElement || (el.parentNode && el.parentNode.host) || null;
  // The tree as the browser renders it. A component may override its host's own accessors
  // (Stencil's scoped components show only the children their user wrote, not what they
  // render), so the walk reads Node's and Element's own.
  const native = (proto, name) => Object.getOwnPropertyDescriptor(proto, name).get;
  const FIRST_CHILD = native(Node.prototype, "firstChild");
  const LAST_CHILD = native(Node.prototype, "lastChild");
  const NEXT_SIBLING = native(Node.prototype, "nextSibling");
  const TEXT_CONTENT = native(Node.prototype, "textContent");
  const firstChildOf = (node) => FIRST_CHILD.call(node);
  const lastChildOf = (node) => LAST_CHILD.call(node);
  const nextOf = (node) => NEXT_SIBLING.call(node);
  const textOf = (node) => TEXT_CONTENT.call(node);
  const childNodesOf = (node) => {
    const nodes = [];
    for (let c = firstChildOf(node); c; c = nextOf(c)) nodes.push(c);
    return nodes;
  };
  const childrenOf = (node) => childNodesOf(node).filter((c) => c.nodeType === 1);
  const firstElementOf = (node) => {
    let c = firstChildOf(node);
    while (c && c.nodeType !== 1) c = nextOf(c);
    return c;
  };
  // getAttribute reads a string without creating Attr nodes: cheaper than caching `attributes`.
  // Most elements of a large page (rows, cells, wrappers) have no attribute at all, and
  // asking whether there is any costs less than looking a name up.
  const attr = (el, name) => el.hasAttributes() ? el.getAttribute(name) : null;
  const COLLAPSED = /^(?:\S+ )*\S+$/;  // already one space between words: most names and labels
  const collapse = (s) => COLLAPSED.test(s) && !/[\u200b\u00ad]/.test(s) ? s
    : s.replace(/[\u200b\u00ad]/g, "").replace(/\s+/g, " ").trim();
  const NONE = Object.freeze([]);
  const idRefs = (el, name) => {
    const value = attr(el, name);
    if (!value) return NONE;
    const root = el.getRootNode();
    const found = [];
    for (const id of value.split(/\s+/)) {
      const ref = id && root.getElementById && root.getElementById(id);
      if (ref && !found.includes(ref)) found.push(ref);
    }
    return found;
  };
  const SKIP_TAGS = new Set(["script", "style", "noscript", "template", "head", "meta", "link", "title", "base"]);
  const isInline = (el) => displayOf(el) === "inline";
  const FORM_FIELDS = new Set(["input", "select", "textarea"]);  // their text is a value, not content
  // `element.labels` scans the whole document on first use; one pass over the labels is enough.
  const labelled = () => {  // each labelled control -> its labels
    if (!memo.labels) {
      memo.labels = new Map();
      for (const root of allRoots()) {
        const labels = root.querySelectorAll("label");
        for (let i = 0; i < labels.length; i++) {
          const control = labels[i].control;
          if (control) memo.labels.set(control, [...(memo.labels.get(control) || []), labels[i]]);
        }
      }
    }
    return memo.labels;
  };
  const labelsOf = (el) => labelled().get(el) || [];
  const ariaHidden = (el) => (attr(el, "aria-hidden") || "").toLowerCase() === "true";
  // A document in design mode (an editor's iframe) is edited as a whole: its body is the host.
  const isEditingHost = (el) => el.localName === "body" && el.ownerDocument.designMode === "on" ||
    attr(el, "contenteditable") !== null && el.isContentEditable &&
    !(el.parentElement && el.parentElement.isContentEditable);

  // ---------------------------------------------------------------- roles (HTML-AAM)

  const VALID_ROLES = new Set(("alert alertdialog application article banner blockquote button caption cell " +
    "checkbox code columnheader combobox complementary contentinfo definition deletion dialog directory " +
    "document emphasis feed figure form generic grid gridcell group heading img insertion link list listbox " +
    "listitem log main mark marquee math meter menu menubar menuitem menuitemcheckbox menuitemradio " +
    "navigation none note option paragraph presentation progressbar radio radiogroup region row rowgroup " +
    "rowheader scrollbar search searchbox separator slider spinbutton status strong subscript superscript " +
    "switch tab table tablist tabpanel term textbox time timer toolbar tooltip tree treegrid treeitem").split(" "));
  const GLOBAL_ARIA = ["aria-atomic", "aria-busy", "aria-controls", "aria-current", "aria-describedby",
    "aria-details", "aria-dropeffect", "aria-flowto", "aria-grabbed", "aria-hidden", "aria-keyshortcuts",
    "aria-label", "aria-labelledby", "aria-live", "aria-owns", "aria-relevant", "aria-roledescription"];
  const TAG_ROLES = {
    article: "article", aside: "complementary", blockquote: "blockquote", button: "button",
    caption: "caption", code: "code", datalist: "listbox", dd: "definition", del: "deletion",
    details: "group", dfn: "term", dialog: "dialog", dt: "term", em: "emphasis", fieldset: "group",
    figure: "figure", h1: "heading", h2: "heading", h3: "heading", h4: "heading", h5: "heading",
    h6: "heading", hr: "separator", html: "document", ins: "insertion", li: "listitem", main: "main",
    mark: "mark", math: "math", menu: "list", meter: "meter", nav: "navigation", ol: "list",
    optgroup: "group", option: "option", output: "status", p: "paragraph", progress: "progressbar",
    search: "search", strong: "strong", sub: "subscript", sup: "superscript", svg: "img",
    table: "table", tbody: "rowgroup", textarea: "textbox", tfoot: "rowgroup", thead: "rowgroup",
    time: "time", tr: "row", ul: "list",
  };
  const INPUT_ROLES = { button: "button", checkbox: "checkbox", image: "button", number: "spinbutton",
    radio: "radio", range: "slider", reset: "button", submit: "button", file: "button" };
  const LANDMARK_BLOCKERS = "article:not([role]), aside:not([role]), main:not([role]), nav:not([role]), " +
    "section:not([role]), [role=article], [role=complementary], [role=main], [role=navigation], [role=region]";
  // Children whose implicit role is dropped when their container is role=presentation/none.
  const PRESENTATION_PARENTS = { dd: ["dl", "div"], div: ["dl"], dt: ["dl", "div"], li: ["ol", "ul"],
    tbody: ["table"], td: ["tr"], tfoot: ["table"], th: ["tr"], thead: ["table"],
    tr: ["thead", "tbody", "tfoot", "table"] };

  const closestAcrossShadow = (el, css) => {
    for (let e = el; e; e = e.getRootNode().host) {
      const found = e.closest(css);
      if (found) return found;
    }
    return null;
  };
  const hasAccessibleNameAttr = (el) => attr(el, "aria-label") !== null || attr(el, "aria-labelledby") !== null;
  const hasTabIndex = (el) => attr(el, "tabindex") !== null && !Number.isNaN(Number(attr(el, "tabindex")));
  const isFocusable = (el) => {
    if (nativelyDisabled(el)) return false;
    const tag = el.localName;
    if (["button", "details", "select", "textarea"].includes(tag) || hasTabIndex(el)) return true;
    if (tag === "a" || tag === "area") return attr(el, "href") !== null;
    return tag === "input" && !el.hidden;
  };
  const explicitRole = (el) => {
    const value = attr(el, "role");
    if (!value) return null;
    return value.toLowerCase().split(" ").map((r) => r.trim()).find((r) => VALID_ROLES.has(r)) || null;
  };
  const isHeaderCell = (el) => !!el && el.localName === "th";
  const isDataCellWithContent = (el) =>
    !!el && el.localName === "td" && !!(textOf(el).trim() || childrenOf(el).length);
  const thRole = (el) => {
    const scopeAttr = attr(el, "scope");
    if (scopeAttr === "col" || scopeAttr === "colgroup") return "columnheader";
    if (scopeAttr === "row" || scopeAttr === "rowgroup") return "rowheader";
    const next = el.nextElementSibling;
    const prev = el.previousElementSibling;
    if (!next && !prev) {
      const row = el.parentElement && el.parentElement.localName === "tr" ? el.parentElement : null;
      const table = row && row.closest("table");
      return table && table.rows.length <= 1 ? null : "columnheader";
    }
    if (isHeaderCell(next) && isHeaderCell(prev)) return "columnheader";
    if (isDataCellWithContent(next) || isDataCellWithContent(prev)) return "rowheader";
    return "columnheader";
  };
  const tagRole = (el) => {
    const tag = el.localName;
    switch (tag) {
      case "a": case "area": return attr(el, "href") !== null ? "link" : null;
      case "footer": return closestAcrossShadow(el, LANDMARK_BLOCKERS) ? null : "contentinfo";
      case "header": return closestAcrossShadow(el, LANDMARK_BLOCKERS) ? null : "banner";
      case "form": return hasAccessibleNameAttr(el) ? "form" : null;
      case "section": return hasAccessibleNameAttr(el) ? "region" : null;
      case "img":
        return attr(el, "alt") === "" && !attr(el, "title") &&
          !hasGlobalAria(el, "") && !hasTabIndex(el) ? "presentation" : "img";
      case "input": {
        const type = el.type.toLowerCase();
        if (["email", "search", "tel", "text", "url", ""].includes(type)) {
          const list = idRefs(el, "list")[0];
          if (list && list.localName === "datalist") return "combobox";
          return type === "search" ? "searchbox" : "textbox";
        }
        if (type === "hidden") return null;
        return INPUT_ROLES[type] || "textbox";
      }
      case "select": return el.multiple || el.size > 1 ? "listbox" : "combobox";
      case "td": {
        const table = closestAcrossShadow(el, "table");
        const tableRole = table ? explicitRole(table) : null;
        return tableRole === "grid" || tableRole === "treegrid" ? "gridcell" : "cell";
      }
      case "th": return thRole(el);
      default: return TAG_ROLES[tag] || null;
    }
  };
  const implicitRole = (el) => {
    const role = tagRole(el);
    if (!role) return null;
    for (let child = el; ;) {
      const parent = parentOf(child);
      const allowed = PRESENTATION_PARENTS[child.localName];
      if (!parent || !allowed || !allowed.includes(parent.localName)) return role;
      const parentRole = explicitRole(parent);
      const presentational = parentRole === "none" || parentRole === "presentation";
      if (presentational && !keepsOwnRole(parent, parentRole)) return parentRole;
      child = parent;
    }
  };
  const LABEL_PROHIBITED = new Set(["caption", "code", "deletion", "emphasis", "generic", "insertion",
    "paragraph", "presentation", "strong", "subscript", "superscript"]);
  const hasGlobalAria = (el, role) => GLOBAL_ARIA.some((a) => attr(el, a) !== null &&
    !((a === "aria-label" || a === "aria-labelledby") && LABEL_PROHIBITED.has(role)) &&
    !(a === "aria-roledescription" && role === "generic"));
  // role=presentation is ignored on focusable elements and those with global ARIA attributes.
  const keepsOwnRole = (el, role) => hasGlobalAria(el, role || "") || isFocusable(el);
  const roleOf = (el, f = factsOf(el)) => {  // f: el's record, where the caller has it
    let role = f.role;
    if (role !== undefined) return role;
    role = explicitRole(el);
    if (!role) role = implicitRole(el);
    else if (role === "none" || role === "presentation") {
      const implicit = implicitRole(el);
      if (keepsOwnRole(el, implicit)) role = implicit;
    }
    f.role = role;
    return role;
  };

  // ---------------------------------------------------------------- states

  const nativelyDisabled = (el) => {
    if (!["button", "input", "select", "textarea", "option", "optgroup"].includes(el.localName)) return false;
    if (attr(el, "disabled") !== null) return true;
    if (el.localName === "option" && el.closest("optgroup[disabled]")) return true;
    const fieldset = el.closest("fieldset[disabled]");
    if (!fieldset) return false;
    const legend = fieldset.querySelector(":scope > legend");
    return !legend || !legend.contains(el);
  };
  const DISABLEABLE = new Set(("application button composite gridcell group input link menuitem scrollbar " +
    "separator tab checkbox columnheader combobox grid listbox menu menubar menuitemcheckbox menuitemradio " +
    "option radio radiogroup row rowheader searchbox select slider spinbutton switch tablist textbox " +
    "toolbar tree treegrid treeitem").split(" "));
  const ariaDisabledChain = (el) => {
    const f = factsOf(el);
    let disabled = f.disabled;
    if (disabled === undefined) {
      const value = (attr(el, "aria-disabled") || "").toLowerCase();
      const parent = value === "true" || value === "false" ? null : parentOf(el);
      disabled = value === "true" || (!!parent && ariaDisabledChain(parent));
      f.disabled = disabled;
    }
    return disabled;
  };
  const CHECKABLE = new Set(["checkbox", "menuitemcheckbox", "option", "radio", "switch", "menuitemradio",
    "treeitem"]);
  const EXPANDABLE = new Set(("application button checkbox combobox gridcell link listbox menuitem row " +
    "rowheader tab treeitem columnheader menuitemcheckbox menuitemradio switch").split(" "));
  const SELECTABLE = new Set(["gridcell", "option", "row", "tab", "rowheader", "columnheader", "treeitem"]);
  const VALUE_ROLES = new Set(["textbox", "searchbox", "combobox", "spinbutton", "slider"]);
  const ariaBool = (el, name) => {
    const value = (attr(el, name) || "").toLowerCase();
    return value === "true" ? true : value === "false" ? false : value === "mixed" ? "mixed" : undefined;
  };

  function statesOf(el, role, name) {
    const states = {};
    const tag = el.localName;
    if (tag === "select") {
      const chosen = [...el.selectedOptions].map((o) => collapse(o.label || o.textContent));
      if (chosen.length) states.value = chosen.join(", ");
    } else if (tag === "input" || tag === "textarea") {
      const valueless = ["checkbox", "radio", "file", "submit", "button", "reset", "image"].includes(el.type);
      if (el.value && !valueless) states.value = el.type === "password" ? "***" : el.value;  // no secrets
    } else if (VALUE_ROLES.has(role)) {
      const value = attr(el, "aria-valuetext") || attr(el, "aria-valuenow");
      if (value) states.value = value;
    }
    const placeholder = attr(el, "placeholder");
    if (placeholder && placeholder !== name && VALUE_ROLES.has(role)) states.placeholder = placeholder;
    if (CHECKABLE.has(role)) {
      let checked;
      if (tag === "input" && (el.type === "checkbox" || el.type === "radio")) {
        checked = el.indeterminate ? "mixed" : el.checked;
      } else if (role !== "option") checked = ariaBool(el, "aria-checked") || false;
      if (checked) states.checked = checked;
    }
    if (SELECTABLE.has(role)) {
      const selected = tag === "option" ? el.selected : ariaBool(el, "aria-selected") === true;
      if (selected) states.selected = true;
    }
    if (role === "button") {
      const pressed = ariaBool(el, "aria-pressed");
      if (pressed !== undefined) states.pressed = pressed;
    }
    const details = tag === "summary" && el.parentElement;
    if (details && details.localName === "details") states.expanded = details.open;
    else if (EXPANDABLE.has(role)) {
      const expanded = ariaBool(el, "aria-expanded");
      if (expanded !== undefined) states.expanded = expanded;
    }
    if (nativelyDisabled(el) || (DISABLEABLE.has(role) && ariaDisabledChain(el))) states.disabled = true;
    if (el.required || ariaBool(el, "aria-required") === true) states.required = true;
    if ((tag === "input" || tag === "textarea") && el.readOnly) states.readonly = true;
    if (ariaBool(el, "aria-invalid") === true) states.invalid = true;
    const level = /^h[1-6]$/.test(tag) ? Number(tag[1]) : Number(attr(el, "aria-level"));
    const leveled = ["heading", "listitem", "row", "treeitem"].includes(role);
    if (leveled && Number.isInteger(level) && level > 0) states.level = level;
    if (isEditingHost(el)) states.editable = true;
    return states;
  }

  // ---------------------------------------------------------------- accessible names (accname 1.2)

  const NAMING_PROHIBITED = new Set(["caption", "code", "definition", "deletion", "emphasis", "generic",
    "insertion", "mark", "paragraph", "presentation", "strong", "subscript", "suggestion", "superscript",
    "term", "time"]);
  const NAME_FROM_CONTENT = new Set(["button", "cell", "checkbox", "columnheader", "gridcell", "heading",
    "link", "menuitem", "menuitemcheckbox", "menuitemradio", "option", "radio", "row", "rowheader",
    "switch", "tab", "tooltip", "treeitem"]);
  const NAME_FROM_CONTENT_INSIDE = new Set(["", "caption", "code", "contentinfo", "definition", "deletion",
    "emphasis", "insertion", "list", "listitem", "mark", "none", "paragraph", "presentation", "region",
    "row", "rowgroup", "section", "strong", "subscript", "superscript", "table", "term", "time"]);
  const RANGE_ROLES = new Set(["progressbar", "scrollbar", "slider", "spinbutton", "meter"]);
  const PLACEHOLDER_TYPES = new Set(["text", "password", "number", "search", "tel", "email", "url"]);

  // Hidden from the accessibility tree: not rendered, or display:none, aria-hidden, unslotted or
  // in closed <details> somewhere up the flat tree.
  function hiddenForNames(el) {
    const f = factsOf(el);
    let hidden = f.hidden;
    if (hidden !== undefined) return hidden;
    if (SKIP_TAGS.has(el.localName)) hidden = true;
    else if (displayOf(el) === "contents" && el.localName !== "slot") {
      hidden = true;
      for (let c = firstChildOf(el); c && hidden; c = nextOf(c)) {
        if (c.nodeType === 1 ? !hiddenForNames(c) : c.nodeType === 3 && c.nodeValue.trim()) hidden = false;
      }
    } else {
      const optionInSelect = el.localName === "option" && el.closest("select");
      hidden = (!optionInSelect && el.localName !== "slot" && visibilityOf(el) !== "visible") || hiddenChain(el);
    }
    f.hidden = hidden;
    return hidden;
  }
  function hiddenChain(el) {
    const f = factsOf(el);
    let hidden = f.chain;
    if (hidden !== undefined) return hidden;
    const parent = el.parentElement;
    hidden = (parent && parent.shadowRoot && !el.assignedSlot) || displayOf(el) === "none" || ariaHidden(el) ||
      (!!parent && ((parent.localName === "details" && !parent.open && el !== summaryOf(parent)) ||
        hidesContent(parent)));
    if (!hidden) { const up = parentOf(el); hidden = !!up && hiddenChain(up); }
    f.chain = hidden;
    return hidden;
  }
  // content-visibility: hidden renders none of an element's content (hidden=until-found sets it).
  const hidesContent = (el) => reaches(styled.hiding, el) && styleOf(el).contentVisibility === "hidden";
  const summaryOf = (details) => [...details.children].find((c) => c.localName === "summary");
  // ::before/::after text. Asking an element for its pseudo styles is the slowest part of a
  // walk, so only the elements some rule may give one are asked (ruleReach).
  const pseudoCache = new Map();
  const pseudoText = (el, pseudo) => {
    if (!reaches(styled.pseudo, el)) return "";
    let texts = pseudoCache.get(el);
    if (!texts) pseudoCache.set(el, (texts = {}));
    if (!(pseudo in texts)) texts[pseudo] = computePseudoText(el, pseudo);
    return texts[pseudo];
  };
  const computePseudoText = (el, pseudo) => {
    const style = getComputedStyle(el, pseudo);
    const content = style.content;
    if (!content || content === "none" || content === "normal") return "";
    if (style.display === "none" || style.visibility === "hidden") return "";
    const match = /^"((?:[^"\\]|\\.)*)"$/.exec(content);  // only plain string content carries text
    if (!match) return "";
    const text = match[1].replace(/\\(.)/g, "$1");
    return style.display === "inline" ? text : ` ${text} `;
  };

  // How an element's text is being asked for (accname's traversal state). `contributors`
  // collects the elements whose text ended up in the name.
  const context = (visited, contributors, how) => ({ visited, contributors, self: false, descendant: false,
    inLabelledBy: false, inLabel: false, inNative: false, hiddenRef: false, fromContent: false, fromPart: false,
    ...how });
  const childContext = (ctx) => ({ visited: ctx.visited, contributors: ctx.contributors, self: false,
    descendant: ctx.self || ctx.descendant, inLabelledBy: ctx.inLabelledBy, inLabel: ctx.inLabel,
    inNative: ctx.inNative, hiddenRef: ctx.hiddenRef, fromContent: false });
  // Following a reference (aria-labelledby, <label>) starts a fresh traversal from there.
  const refContext = (ctx, ref, how) => context(ctx.visited, ctx.contributors, { ...how, hiddenRef: hiddenForNames(ref) });
  // A caption-like part (legend, figcaption, caption, svg title) continues the current one.
  const partContext = (ctx, part, how) => ({ ...childContext(ctx), ...how, hiddenRef: hiddenForNames(part) });
  const contributed = (ctx, el, text) => {
    if (text && ctx.contributors) ctx.contributors.push(el);
    return text || "";
  };

  // A descendant's text is the same for every ancestor whose name takes it in, so it is computed
  // once: without this, a table row, its cells and their links would each walk the same text.
  const descendantTexts = new Map();  // element -> {text, contributors}
  function textAlternative(el, ctx) {
    if (!ctx.descendant || ctx.self || ctx.inLabelledBy || ctx.inLabel || ctx.inNative || ctx.hiddenRef) {
      return computeTextAlternative(el, ctx);
    }
    let known = descendantTexts.get(el);
    if (!known) {
      const contributors = [];
      known = { text: computeTextAlternative(el, context(ctx.visited, contributors, { descendant: true })), contributors };
      descendantTexts.set(el, known);
    }
    for (const c of known.contributors) ctx.contributors.push(c);
    return known.text;
  }
  function computeTextAlternative(el, ctx) {
    if (ctx.visited.has(el)) return "";
    if (!ctx.hiddenRef && hiddenForNames(el)) { ctx.visited.add(el); return ""; }
    const labelledBy = idRefs(el, "aria-labelledby");
    if (!ctx.inLabelledBy && labelledBy.length) {
      const text = labelledBy.map((ref) => textAlternative(ref, refContext(ctx, ref, { inLabelledBy: true })))
        .filter(Boolean).join(" ");
      if (text.trim()) {
        if (ctx.self && labelledBy.some((ref) => ref === el || el.contains(ref))) {
          ctx.fromContent = true;
          ctx.fromPart = !labelledBy.includes(el);  // a part of it (a dialog's title), not all its text
        }
        return text;
      }
    }
    const role = roleOf(el) || "";
    const tag = el.localName;
    if ((ctx.inLabel || ctx.inLabelledBy || ctx.descendant) && !labelledBy.includes(el)) {
      const embedded = embeddedValue(el, tag, role, ctx);
      if (embedded !== undefined) return embedded;
    }
    const ariaLabel = attr(el, "aria-label") || "";
    if (ariaLabel.trim()) { ctx.visited.add(el); return contributed(ctx, el, ariaLabel); }
    const presentational = role === "presentation" || role === "none";
    if (!presentational) {
      const native = nativeName(el, tag, labelledBy.length > 0, ctx);
      if (native !== undefined) return native;
    }
    if (NAME_FROM_CONTENT.has(role) || (ctx.descendant && NAME_FROM_CONTENT_INSIDE.has(role)) ||
        (tag === "summary" && !presentational) || ctx.inLabelledBy || ctx.inLabel || ctx.inNative) {
      ctx.visited.add(el);
      const text = contentText(el, childContext(ctx));
      if (ctx.self ? text.trim() : text) {
        if (ctx.self && text.trim()) ctx.fromContent = true;
        if (text.trim() && ctx.contributors) ctx.contributors.push(el);
        return text;
      }
    }
    ctx.visited.add(el);
    const title = attr(el, "title") || "";
    return !presentational || tag === "iframe" ? contributed(ctx, el, title.trim() ? title : "") : "";
  }

  // Inside another element's name, a control stands for its current value.
  function embeddedValue(el, tag, role, ctx) {
    if (role === "textbox" || role === "searchbox") {
      ctx.visited.add(el);
      if (el.type === "password") return "";  // a typed secret never becomes a name
      return contributed(ctx, el, tag === "input" || tag === "textarea" ? el.value : textOf(el));
    }
    if (role === "combobox" || role === "listbox") {
      ctx.visited.add(el);
      let options;
      if (tag === "select") {
        options = [...el.selectedOptions];
        if (!options.length && el.options.length) options.push(el.options[0]);
      } else {
        const listbox = role === "combobox" ? [...el.querySelectorAll("*")].find((e) => roleOf(e) === "listbox") : el;
        const selected = listbox ? listbox.querySelectorAll('[aria-selected="true" i]') : NONE;
        options = [...selected].filter((e) => roleOf(e) === "option");
      }
      if (!options.length && tag === "input") return contributed(ctx, el, el.value);
      return options.map((o) => textAlternative(o, childContext(ctx))).filter(Boolean).join(" ");
    }
    if (RANGE_ROLES.has(role)) {
      ctx.visited.add(el);
      return contributed(ctx, el, attr(el, "aria-valuetext") || attr(el, "aria-valuenow") || attr(el, "value"));
    }
    if (role === "menu") { ctx.visited.add(el); return ""; }
    return undefined;
  }

  // Names that HTML defines natively (labels, alt, legend, caption, value, ...); undefined: none applies.
  function nativeName(el, tag, labelledBy, ctx) {
    const done = (text) => { ctx.visited.add(el); return contributed(ctx, el, text); };
    if (tag === "input" && ["button", "submit", "reset"].includes(el.type)) {
      if (el.value.trim()) return done(el.value);
      return done(el.type === "submit" ? "Submit" : el.type === "reset" ? "Reset" : attr(el, "title"));
    }
    const labels = labelsOf(el);
    if (tag === "input" && (el.type === "file" || el.type === "image")) {
      if (labels.length && !ctx.inLabelledBy) return labelText(el, labels, ctx);
      if (el.type === "file") return done("Choose File");
      return done((attr(el, "alt") || "").trim() ? attr(el, "alt") :
        (attr(el, "title") || "").trim() ? attr(el, "title") : "Submit");
    }
    const firstChild = (name) => [...childrenOf(el)].find((c) => c.localName === name);
    if (!labelledBy) {
      if (tag === "button" && labels.length) return labelText(el, labels, ctx);
      if (tag === "output") return labels.length ? labelText(el, labels, ctx) : done(attr(el, "title"));
      if (["textarea", "select", "input", "meter", "progress"].includes(tag)) {
        if (labels.length) return labelText(el, labels, ctx);
        const usePlaceholder = (tag === "input" && PLACEHOLDER_TYPES.has(el.type)) || tag === "textarea";
        const title = attr(el, "title") || "";
        return done(!usePlaceholder || title ? title : attr(el, "placeholder"));
      }
      const captionTag = { fieldset: "legend", figure: "figcaption" }[tag];
      if (captionTag) {
        const caption = firstChild(captionTag);
        return caption ? textAlternative(caption, partContext(ctx, caption, { inNative: true })) : done(attr(el, "title"));
      }
    }
    if (tag === "img" || tag === "area") {
      const alt = attr(el, "alt") || "";
      return done(alt.trim() ? alt : attr(el, "title"));
    }
    if (tag === "table") {
      const caption = firstChild("caption");
      if (caption) return textAlternative(caption, partContext(ctx, caption, { inNative: true }));
      if (attr(el, "summary")) return done(attr(el, "summary"));
    }
    if (tag === "svg" || el.ownerSVGElement) {
      const title = [...childrenOf(el)].find((c) => c.localName === "title" && c.ownerSVGElement);
      if (title) return textAlternative(title, partContext(ctx, title, { inLabelledBy: true }));
    }
    return undefined;
  }
  function labelText(el, labels, ctx) {
    ctx.visited.add(el);  // a label around the control does not name it with its own value
    return labels.map((label) => textAlternative(label, refContext(ctx, label, { inLabel: true })))
      .filter(Boolean).join(" ");
  }

  // The text of an element's rendered children: a shadow host shows its shadow tree (light
  // children come in through slots), closed <details> hide their text.
  function contentText(el, ctx) {
    let text = pseudoText(el, "::before");
    const assigned = el.localName === "slot" ? el.assignedNodes() : NONE;
    const skipText = !ctx.hiddenRef && el.localName === "details" && !el.open;
    if (assigned.length) for (const node of assigned) text += nodeText(node, ctx, false);
    else for (let c = firstChildOf(el.shadowRoot || el); c; c = nextOf(c)) text += nodeText(c, ctx, skipText);
    return text + pseudoText(el, "::after");
  }
  function nodeText(node, ctx, skipText) {
    if (node.nodeType === 1) {
      const text = textAlternative(node, ctx);
      return isInline(node) && node.localName !== "br" ? text : ` ${text} `;
    }
    return node.nodeType === 3 && !skipText ? node.nodeValue : "";
  }

  // {text, fromContent, fromPart, contributors}: contributors are the elements whose text made up
  // the name; fromPart: it is the text of parts of the element, not of all of it.
  function nameOf(el) {
    const f = factsOf(el);
    let result = f.name;
    if (result) return result;
    const role = roleOf(el) || "";
    if (NAMING_PROHIBITED.has(role)) result = { text: "", fromContent: false, fromPart: false, contributors: NONE };
    else {
      const ctx = context(new Set(), [], { self: true });
      const text = textAlternative(el, ctx);
      result = { text: collapse(text), fromContent: ctx.fromContent, fromPart: ctx.fromPart,
        contributors: ctx.contributors };
    }
    f.name = result;
    return result;
  }

  // ---------------------------------------------------------------- the outline tree

  const INTERACTIVE = new Set(["button", "link", "textbox", "searchbox", "combobox", "listbox", "checkbox",
    "radio", "switch", "slider", "spinbutton", "tab", "menuitem", "menuitemcheckbox", "menuitemradio",
    "option", "treeitem", "gridcell"]);
  // Roles that add no outline line of their own: their text flows into the parent.
  const TEXT_LEVEL = new Set(["generic", "none", "presentation", "strong", "emphasis", "code", "mark",
    "subscript", "superscript", "deletion", "insertion", "time", "document", "rowgroup", "separator",
    "caption"]);
  const BREAK = null;  // block boundary between text runs

  const outlineRole = (el) => el.localName === "iframe" || el.localName === "frame" ? "iframe" : roleOf(el) || "generic";

  // node: {el, role, items: (string | BREAK | node)[], control, clickable, frame}
  const frameLines = [];  // the iframes' lines, in the order they were made
  let lineCount = 0;

  function walk(node, out, textVisible) {
    if (node.nodeType === 3) {
      if (textVisible) out.push(node.nodeValue);
      return;
    }
    if (node.nodeType !== 1) return;
    const el = node;
    const tag = el.localName;
    if (SKIP_TAGS.has(tag) || ariaHidden(el)) return;
    const f = factsOf(el);  // its record, read here directly: the walk visits every element
    const style = f.style || (f.style = getComputedStyle(el));
    const display = f.display ?? (f.display = style.display);
    if (display === "none") return;
    if (hidesContent(el)) return;
    const contents = display === "contents";
    const visible = (f.visibility ?? (f.visibility = style.visibility)) === "visible";
    // The walk has just checked what name computation would check again on the way up.
    f.chain = false;
    if (visible && !contents) f.hidden = false;
    // Layout is read only where it decides something: a box that clips its text, an iframe,
    // and a would-be line with no lines under it (a zero-size control is left out).
    let zero = contents ? false : undefined;  // read once, where needed: zero ??= isZeroSize(el)
    const clips = CLIPPING_TAGS.has(tag) || reaches(styled.clip, el);
    const childTextVisible = visible && (contents || !clips || style.overflow === "visible" || !(zero ??= isZeroSize(el)));
    const role = tag === "iframe" || tag === "frame" ? "iframe" : roleOf(el, f) || "generic";  // outlineRole
    const block = !contents && display !== "inline";

    if (role === "iframe") {
      if (!visible || (zero ??= isZeroSize(el))) return;
      const line = { el, role, items: [], frame: frameElements.indexOf(el) };
      f.line = line;
      frameLines.push(line);
      lineCount++;
      out.push(line);
      return;
    }
    const interactive = visible && (INTERACTIVE.has(role) || isClickable(el, tag, style));
    const leaf = !interactive && role === "generic" && !contents && childTextVisible && leafTextOf(el);
    if (leaf) {  // a badge, a count, a status word: pointable if it stands on its own (runsOf)
      if (block) { out.push(BREAK); f.pending = true; }
      out.push({ leaf: el, text: leaf });
      if (block) out.push(BREAK);
      return;
    }
    if (!visible || (!interactive && (TEXT_LEVEL.has(role) || (role === "img" && !nameOf(el).text)))) {
      const linesBefore = lineCount;
      if (block) out.push(BREAK);
      walkChildren(el, out, childTextVisible);
      if (block) out.push(BREAK);
      // Playwright keeps text-only generic boxes as leaves; they keep a parent's name visible.
      const only = firstChildOf(el);
      const singleText = !block && !!only && only === lastChildOf(el) && only.nodeType === 3;
      const textOnly = lineCount === linesBefore;
      if (visible && !contents && role === "generic" && !singleText && textOnly) f.pending = true;
      return;
    }
    const line = { el, role, items: [], control: interactive };
    if (tag === "select") selectOptions(el, line.items);
    else if (tag !== "textarea") walkChildren(el, line.items, childTextVisible);  // its text is its value
    // A control in a box that clips it to nothing (a widget's copy of its options kept for
    // screen readers beside the ones it draws) has no box of its own either: no click reaches it.
    if (!textVisible && interactive) zero ??= isZeroSize(el);
    if (zero && !line.items.some(isLine)) return;
    if (interactive && !INTERACTIVE.has(role)) {
      // A clicky container around real controls is layout, not a control of its own.
      line.control = line.clickable = !line.items.some(hasControl);
      if (!line.control && TEXT_LEVEL.has(role)) { out.push(BREAK, ...line.items, BREAK); return; }
    }
    f.line = line;
    lineCount++;
    out.push(line);
  }
  // The browser's own rules clip these (SVG's by their local names); a rule reaches the rest.
  const CLIPPING_TAGS = new Set(["canvas", "embed", "hr", "iframe", "img", "input", "object", "select",
    "textarea", "video", "marquee", "dialog", "svg", "symbol", "image", "marker", "pattern", "foreignObject"]);
  const isZeroSize = (el) => {
    const rect = el.getBoundingClientRect();
    return !(rect.width > 0 && rect.height > 0);
  };
  const isLine = (item) => !!item && typeof item === "object" && !item.leaf;
  const hasControl = (item) => isLine(item) && (item.control || item.items.some(hasControl));

  // Short text alone in a generic element (`<span class="badge">2</span>`), at most
  // LEAF_WORDS words: the raw text, else "". What a claim about a count or a status is about.
  const LEAF_WORDS = 3;
  const LEAF_CHARS = 24;
  function leafTextOf(el) {
    const only = firstChildOf(el);
    if (!only || only !== lastChildOf(el) || only.nodeType !== 3 || el.shadowRoot || el.localName === "slot") return "";
    const text = collapse(only.nodeValue);
    if (!text || text.length > LEAF_CHARS || text.split(" ").length > LEAF_WORDS) return "";
    return pseudoText(el, "::before") || pseudoText(el, "::after") ? "" : only.nodeValue;
  }

  // Generic elements that behave as controls: handlers, focusability, a pointer cursor, editing.
  function isClickable(el, tag, style) {
    // A body is the page, not a control on it; unless it is what the user types into (a
    // rich-text editor's iframe: its body holds the text).
    if (isEditingHost(el)) return true;
    if (tag === "label" || tag === "body" || tag === "html") return false;
    if (tag === "summary" || el.onclick || frameworkClick(el)) return true;
    const tabindex = attr(el, "tabindex");
    if (tabindex !== null && Number(tabindex) >= 0 && !["iframe", "textarea"].includes(tag)) return true;
    // A cursor no rule reaches is its parent's: it starts no pointer area of its own. The
    // browser's own rules give a link its pointer (a link given a generic role keeps it).
    const pointable = reaches(styled.cursor, el) || ((tag === "a" || tag === "area") && el.hasAttribute("href"));
    if (!pointable || style.cursor !== "pointer") return false;
    // A slotted element inherits from its slot (the flat tree), not from its host.
    const parent = el.assignedSlot || parentOf(el);
    return !parent || styleOf(parent).cursor !== "pointer";
  }

  // Click handlers a framework keeps on the element itself: React's props, Vue 3's
  // invokers, Angular's zone.js listeners. (addEventListener leaves no trace a page can read.)
  function frameworkClick(el) {
    for (const key of Object.keys(el)) {
      const value = el[key];
      if (key.startsWith("__reactProps$")) { if (value && (value.onClick || value.onMouseDown)) return true; }
      else if (key === "_vei") { if (value && (value.onClick || value.onMousedown)) return true; }
      else if (key.startsWith("__zone_symbol__click") || key.startsWith("__zone_symbol__mousedown")) return true;
    }
    return false;
  }

  function walkChildren(el, out, textVisible) {
    if (el.localName === "details" && !el.open) {
      const summary = summaryOf(el);
      if (summary) walk(summary, out, textVisible);
      return;
    }
    if (el.localName === "slot") {
      const assigned = el.assignedNodes();
      if (assigned.length) { for (const node of assigned) walk(node, out, textVisible); return; }
    }
    if (textVisible) out.push(pseudoText(el, "::before"));
    const root = el.shadowRoot || el;  // a shadow host renders its shadow tree; light children come in via slots
    const rows = firstElementOf(root)?.hasAttribute("aria-rowindex") && rowsInShownOrder(root);
    if (rows) for (const row of rows) walk(row, out, textVisible);
    else for (let c = firstChildOf(root); c; c = nextOf(c)) walk(c, out, textVisible);
    if (textVisible) out.push(pseudoText(el, "::after"));
  }

  // A grid that places its rows on screen by style, not by document order (a sorted AG
  // Grid moves each row with a transform), numbers them with aria-rowindex: its rows are
  // read in that order, as a person sees them. null when some child has no such number
  // or the order is the document's already.
  function rowsInShownOrder(root) {
    const rows = [...childrenOf(root)];
    if (rows.length < 2) return null;
    const at = rows.map((row) => Number.parseInt(row.getAttribute("aria-rowindex"), 10));
    if (at.some(Number.isNaN) || at.every((index, i) => i === 0 || at[i - 1] <= index)) return null;
    return rows.map((row, i) => [at[i], row]).sort((a, b) => a[0] - b[0]).map(([, row]) => row);
  }

  function selectOptions(select, out) {
    for (const option of select.querySelectorAll("option")) {
      if (displayOf(option) === "none") continue;
      const rect = option.getBoundingClientRect();  // shown in a list box, not in a drop-down
      const control = rect.width > 0 && rect.height > 0;
      const line = { el: option, role: "option", items: [], control, nativeOption: true };
      factsOf(option).line = line;
      lineCount++;
      out.push(line);
    }
  }

  // ---------------------------------------------------------------- rendering

  const quote = (s) => /["\\]/.test(s) ? `"${s.replace(/\\/g, "\\\\").replace(/"/g, '\\"')}"` : `"${s}"`;
  const absoluteHref = (el) => {
    const resolved = el.href;
    if (typeof resolved === "string") return resolved;  // <a> and <area> resolve it themselves
    const raw = attr(el, "href");
    try { return new URL(raw, el.baseURI).href; } catch { return raw; }
  };
  const shortHref = (href) => href.startsWith(`${topOrigin}/`) ? href.slice(topOrigin.length) : href;
  const stateText = (states) => {
    let text = "";
    for (const [key, value] of Object.entries(states)) {
      if (value === true) text += ` ${key}`;
      else if (key === "value" || key === "placeholder") text += ` ${key}=${quote(String(value))}`;
      else text += ` ${key}=${value}`;
    }
    return text;
  };

  const lines = [];     // [depth, elementIndex | -1, body, frameArgIndex], the last only for a frame
  const outlined = [];  // elements that get an id, in outline order

  // Merge strings between nodes and block breaks into whitespace-collapsed runs. A run that
  // is one leaf's text alone stays that leaf ({leaf, text}), to be outlined with an id; a
  // leaf inside a sentence ("You have <span>3</span> items") is just part of its text.
  function runsOf(items) {
    const parts = [];
    let buffer = "";
    let leaf = null;  // the run's first leaf, and how many it has
    let leaves = 0;
    let loose = false;  // the run has text of its own, outside any leaf
    const flush = () => {
      const text = collapse(buffer);
      if (text) parts.push(leaves === 1 && !loose ? { leaf, text } : text);
      buffer = "";
      leaf = null;
      leaves = 0;
      loose = false;
    };
    for (const item of items) {
      if (typeof item === "string") { buffer += item; loose ||= item.trim() !== ""; }
      else if (item && item.leaf) { buffer += item.text; if (!leaves++) leaf = item.leaf; }
      else { flush(); if (item) parts.push(item); }
    }
    flush();
    return parts;
  }
  const textOfPart = (part) => typeof part === "string" ? part : part.leaf ? part.text : null;

  // Roles whose name says which one it is (which dialog, which table), not what it contains.
  // Regions whose whole content is a message (an error, a status): pointable as one.
  const LIVE_REGIONS = new Set(["alert", "status", "log", "timer", "marquee"]);
  const IDENTIFYING_NAMES = new Set(("alertdialog dialog banner complementary contentinfo form main " +
    "navigation region search application document figure group grid listbox menu menubar radiogroup " +
    "tablist tabpanel toolbar tree treegrid table columnheader rowheader").split(" "));
  // The name shown on a line. Like Playwright, a name spelled out by child lines is not repeated.
  function shownNameOf(line) {
    if (line.shownName === undefined) {
      if (line.nativeOption) line.shownName = collapse(line.el.label || textOf(line.el));
      else {
        const { text, fromContent, contributors } = nameOf(line.el);
        let shown = false;
        let pending = false;
        for (const c of contributors) {
          const about = facts.get(c);
          shown ||= c !== line.el && !!about && about.line !== undefined;
          pending ||= !!about && about.pending;
        }
        const spelledOut = fromContent && shown && !pending && !IDENTIFYING_NAMES.has(line.role);
        line.shownName = spelledOut ? "" : text;
      }
    }
    return line.shownName;
  }
  // Text that only repeats its parent's or a neighbouring control's name (legend, label) adds nothing.
  const repeatsName = (text, neighbour) => isLine(neighbour) && shownNameOf(neighbour) === text;
  const withoutRepeats = (parts, parentName) => parts.filter((p, i) => {
    const text = textOfPart(p);
    return text === null ||
      !(text === parentName || repeatsName(text, parts[i - 1]) || repeatsName(text, parts[i + 1]));
  });

  // ---------------------------------------------------------------- unnamed controls
  // A control with no accessible name (an icon link, a clickable <div>) is described by what
  // it has: its title, its icon's file name, the words of its id and classes, else the named
  // line before it, so that a model can choose it. The icon is part of its fingerprint too,
  // so that a replay can tell it from another icon in its place.
  const NOISE_WORDS = new Set(("icon icons ico btn button link div span svg img image fa fas far fab " +
    "bi glyph glyphicon material symbols outlined js is has active wrapper wrap container inner outer " +
    "item el component ui control ctrl the and of").split(" "));
  const wordsOf = (text) => (text || "").replace(/([a-z])([A-Z])/g, "$1 $2").toLowerCase()
    .split(/[^a-z]+/).filter((w) => w.length > 1 && !NOISE_WORDS.has(w));
  // An icon font's glyph class ("fa-trash", "bi-heart-fill", "icon-play"), not a modifier.
  const GLYPH_CLASS = /^(?:fa[srbl]?|bi|mdi|icon|glyphicon|ion|ti|la[sbr]?|ri|bx[sl]?|ph|uil|gg|icofont|codicon|octicon|feather|lucide)-(.+)$/;
  // Where icon libraries name the glyph in markup: <i data-feather="x">, <ion-icon name="x">.
  const glyphAttributes = (e) => [attr(e, "data-icon"), attr(e, "data-feather"), attr(e, "data-lucide"),
    ...(e.localName.includes("icon") ? [attr(e, "name"), attr(e, "icon")] : [])];
  // Sizes, styles, animations and layout ("icon-only", "icon-left"): what a glyph looks like.
  const GLYPH_MODIFIER = new RegExp("^(?:lg|sm|md|xs|xl|\\dx|fw|li|solid|regular|light|thin|duotone|" +
    "brands|spin|pulse|border|inverse|beat|fade|bounce|shake|only|text|inline|block|small|large|" +
    "left|right|start|end|before|after|primary|secondary|default|(?:flip|rotate|stack|pull|size)\\b.*)$");
  // The file (or sprite fragment) name of the element's icon: its own or a descendant's
  // background image, <img src> or SVG <use href>, else its icon font's glyph class or the
  // glyph its markup names; "" when it has none or an inline one.
  function iconOf(el) {
    const candidates = elementsFrom(el);
    for (const e of candidates) {
      const image = /url\("?([^")]*)"?\)/.exec(styleOf(e).backgroundImage);
      const source = image ? image[1] : e.localName === "img" ? attr(e, "src")
        : e.localName === "use" ? attr(e, "href") || attr(e, "xlink:href") : null;
      if (!source || source.startsWith("data:")) continue;
      const fragment = source.includes("#") ? source.slice(source.lastIndexOf("#") + 1) : "";
      const file = source.split(/[?#]/)[0].split("/").pop().replace(/\.\w+$/, "");
      // Words only: "icon-cart.3f9a2c.svg" and "cart@2x.png" are both the cart.
      const words = wordsOf(fragment || file).filter((w) => !/^[a-f]{6,}$/.test(w));
      if (words.length) return words.join(" ");
    }
    return glyphIn(candidates).join(" ");
  }
  // el and its first descendants, where its icon is drawn, in document order; a slot by
  // what it shows (an icon slotted into a web component's button: Shoelace's prefix).
  function elementsFrom(el) {
    const elements = [];
    const visit = (e) => {
      if (elements.length >= 7) return;
      elements.push(e);
      for (const c of e.localName === "slot" ? e.assignedElements({ flatten: true }) : e.children) visit(c);
    };
    visit(el);
    return elements;
  }
  // The words of the first glyph an icon font draws among `elements`, by its class or the
  // glyph its markup names, the icon set's prefix left out; [] when none does.
  function glyphIn(elements) {
    for (const e of elements) {
      const glyphs = [...e.classList].map((c) => GLYPH_CLASS.exec(c))
        .filter((m) => m && !GLYPH_MODIFIER.test(m[1])).map((m) => m[1]);
      const words = wordsOf([...glyphs, ...glyphAttributes(e)].filter(Boolean).join(" "));
      if (words.length) return words;
    }
    return [];
  }
  // The glyph beside a named control's words ("file-pdf" of a "Download" button): it may
  // say what the words do not (which file), so a heal keeps it. An image's file name is
  // left out: a build renames it, and a picture is content, not the control's meaning. A
  // field has none. Only a look at one element reads it (`target`, `around`): a heal
  // compares it for the element a step recorded and its candidates, and a snapshot of a
  // large page would pay for it on every control.
  const glyphOf = (el) => FORM_FIELDS.has(el.localName) ? "" : glyphIn(elementsFrom(el)).join("-");
  // An inline SVG icon that names no glyph ("<svg><path d=…>", as Heroicons draws them),
  // known by its drawing: "drawn" and a hash of its shapes, which restyling (classes,
  // size, colour) leaves alone; "" when there is none.
  const GEOMETRY = ["d", "points", "cx", "cy", "r", "rx", "ry", "x", "y", "x1", "y1", "x2", "y2", "width", "height"];
  function drawnIconOf(el) {
    const svg = el.localName === "svg" ? el : el.querySelector("svg");
    if (!svg) return "";
    let shapes = "";
    for (const shape of svg.querySelectorAll("path, circle, rect, line, polyline, polygon, ellipse")) {
      shapes += shape.localName + GEOMETRY.map((name) => attr(shape, name) || "").join(",") + ";";
      if (shapes.length > 4000) break;
    }
    if (!shapes) return "";
    let hash = 0x811c9dc5;  // FNV-1a, 32 bits
    for (let i = 0; i < shapes.length; i++) hash = Math.imul(hash ^ shapes.charCodeAt(i), 0x01000193);
    return `drawn ${(hash >>> 0).toString(16).padStart(8, "0").slice(0, 6)}`;
  }
  let lastNamed = "";  // the name or text of the last named line rendered: a neighbour to go by
  // The text right after a checkbox or radio, up to a line break or another control: where a
  // person reads its label when no <label> ties them ("[x] checkbox 2"). So too for a control
  // that shows nothing inside it (a box its style draws, as a tree's checkbox with no role).
  const BOXES = new Set(["checkbox", "radio", "switch"]);
  const ENDS_A_LABEL = "input, select, textarea, button, a[href], br, [role]";
  function textAfter(el) {
    let text = "";
    // A row of flex items stands on one line as inline boxes do (a tree node's parts).
    const parent = parentOf(el);
    const inRow = !!parent && parent.nodeType === 1 && displayOf(parent).endsWith("flex") &&
      styleOf(parent).flexDirection.startsWith("row");
    for (let node = nextOf(el); node && text.length < 40; node = nextOf(node)) {
      if (node.nodeType === Node.TEXT_NODE) { text += node.data; continue; }
      if (node.nodeType !== Node.ELEMENT_NODE) continue;
      if (node.matches(ENDS_A_LABEL) || node.querySelector(ENDS_A_LABEL) ||
          !(inRow || displayOf(node).startsWith("inline"))) break;
      text += textOf(node);
    }
    return collapse(text).slice(0, 40);
  }
  // `wordless`: the control shows text, but none that says what it is (a badge "1", "×"):
  // its markup may, and the line before it does not.
  function hintOf(el, role, wordless, empty) {
    const parts = [];
    const title = attr(el, "title") || attr(el, "data-tooltip") || attr(el, "data-title");
    if (title && title.trim()) parts.push(collapse(title));
    const icon = iconOf(el);
    if (icon) parts.push(`icon ${icon}`);
    const words = new Set(["id", "class", "name", ...TEST_ID_ATTRS].flatMap((a) => wordsOf(attr(el, a))));
    for (const word of icon.split(" ")) words.delete(word);  // said once, as the icon
    if (words.size) parts.push([...words].slice(0, 6).join(" "));
    const label = BOXES.has(role) || empty ? textAfter(el) : "";
    if (label) parts.push(`text after it: ${label}`);
    // The line before says where it is, when nothing else does; not always: the line
    // before a list's checkbox is the item above, not the one the checkbox belongs to.
    if (!wordless && !parts.length && lastNamed) parts.push(`after ${lastNamed}`);
    return parts.join("; ");
  }

  const WRAPPERS = new Set(["listitem", "cell", "paragraph"]);
  function render(line, depth) {
    const { el, role } = line;
    const named = line.nativeOption ? null : nameOf(el);
    const name = named ? named.text : shownNameOf(line);
    const shownName = shownNameOf(line);
    let parts = line.nativeOption ? [] : runsOf(line.items);
    // the text is the name (not when the name is a part of it: the rest is said below)
    const inName = shownName && named && named.fromContent && !named.fromPart;
    parts = inName ? parts.filter(isLine) : withoutRepeats(parts, shownName);
    if (parts.length === 1 && parts[0].leaf) parts = [parts[0].text];  // the line's own text
    const states = line.nativeOption ? optionStates(el) : statesOf(el, role, name);
    if (line.clickable && !states.editable) states.clickable = true;
    const href = attr(el, "href") !== null ? absoluteHref(el) : null;
    const suffix = parts.length === 1 && typeof parts[0] === "string" ? parts[0] : "";
    const outline = line.nativeOption ? line.control
      : line.control || !!shownName || !!suffix || (LIVE_REGIONS.has(role) && parts.length > 0);
    // A list item or table cell around a single control adds a line and says nothing.
    const wrapper = WRAPPERS.has(role) && !outline && !suffix && parts.length === 1 && isLine(parts[0]);
    if (wrapper && !stateText(states)) { render(parts[0], depth); return; }
    const index = outline ? outlined.length : -1;
    if (outline) outlined.push({ el, role, name, states, href });
    let body = role + (shownName ? ` ${quote(shownName)}` : "") + stateText(states);
    const wordless = !!(name || suffix) && !/\p{L}/u.test(name + suffix);
    if (line.control && !line.nativeOption && (!name && !suffix || wordless)) {
      const hint = hintOf(el, role, wordless, !name && !suffix && !parts.length);
      if (hint) body += ` hint=${quote(hint)}`;
    }
    if (href && role === "link") body += ` -> ${shortHref(href)}`;
    if (suffix) body += `: ${suffix}`;
    if (shownName || suffix) lastNamed = (shownName || suffix).slice(0, 40);
    // A row with nothing of its own to say is a blank line before its cells, at its place.
    if (body === "row" && index < 0) {
      lines.push([depth, -1, ""]);
      renderParts(parts, depth);
      return;
    }
    lines.push(line.frame >= 0 ? [depth, index, body, line.frame] : [depth, index, body]);
    if (!suffix) renderParts(parts, depth + 1);
  }
  function renderParts(parts, depth) {
    for (const part of parts) {
      if (typeof part === "string") {
        lines.push([depth, -1, `text ${quote(part)}`]);
        lastNamed = part.slice(0, 40);
      } else if (part.leaf) {
        lastNamed = part.text.slice(0, 40);
        lines.push([depth, outlined.length, `text ${quote(part.text)}`]);
        outlined.push({ el: part.leaf, role: "generic", name: "", states: {}, href: null });
      } else render(part, depth);
    }
  }
  const optionStates = (option) => {
    const states = {};
    if (option.selected) states.selected = true;
    if (nativelyDisabled(option)) states.disabled = true;
    return states;
  };

  // ---------------------------------------------------------------- selectors and fingerprints
  // Elements are described against one shared table of ancestors (`rows`), so a 1,500-row
  // table does not ship the same path prefix thousands of times; snapshot.py expands it.

  // Every open shadow root, in Playwright's query order. A tree walker, not a for-of over
  // querySelectorAll("*"): iterating a NodeList is several times slower on a large page.
  const allRoots = () => {
    if (!memo.roots) {
      memo.roots = [document];
      const collect = (root) => {
        const walker = document.createTreeWalker(root, NodeFilter.SHOW_ELEMENT);
        while (walker.nextNode()) {
          const shadow = walker.currentNode.shadowRoot;
          if (shadow) { memo.roots.push(shadow); collect(shadow); }
        }
      };
      collect(document);
    }
    return memo.roots;
  };
  const TEST_ID_ATTRS = ["data-testid", "data-test-id", "data-test", "data-qa"];
  // How many elements have each attr=value of these, across all roots; and which test id
  // attributes any element has (memo.testIds): only those are asked of each element.
  const counted = () => {
    if (!memo.counts) {
      const counts = memo.counts = new Map();
      const attrs = ["id", ...TEST_ID_ATTRS];
      const present = new Set();
      for (const root of allRoots()) {
        const found = root.querySelectorAll(attrs.map((a) => `[${a}]`).join(","));
        for (let i = 0; i < found.length; i++) {
          for (const a of attrs) {
            const value = attr(found[i], a);
            if (value !== null) counts.set(`${a}=${value}`, (counts.get(`${a}=${value}`) || 0) + 1);
            if (value !== null) present.add(a);
          }
        }
      }
      memo.testIds = TEST_ID_ATTRS.filter((a) => present.has(a));
    }
    return memo.counts;
  };
  const countOf = (name, value) => counted().get(`${name}=${value}`) || 0;
  const testIdOf = (el) => {
    counted();
    for (const name of memo.testIds) {
      const value = attr(el, name);
      if (value) return [name, value];
    }
    return null;
  };
  // A selector matching only `el` in this frame (Playwright's CSS pierces shadow roots, so
  // uniqueness is counted across all of them), or "".
  // An id a framework makes anew on each load (React's ":r1:", a UUID, a hash), which a
  // recorded selector would never find again: its letters, digits and cases alternate at
  // least once every four characters, or it holds React's useId form, or a number of ten
  // digits or more (a time or a random number: TinyMCE's "menu-item_31500170718517957923").
  const generatedId = (id) => {
    if (/[:«]r[0-9a-z]+[:»]/.test(id) || /\d{10}/.test(id)) return true;
    const runs = id.replace(/[-_.:]+/g, "").match(/[A-Z]*[a-z]+|[A-Z]+|\d+|[^a-zA-Z\d]+/g) || [];
    return id.length >= 8 && runs.length - 1 >= id.length / 4;
  };
  const uniqueAnchor = (el) => {
    const testId = testIdOf(el);
    if (testId && countOf(...testId) === 1) return `[${testId[0]}=${quote(testId[1])}]`;
    const id = attr(el, "id");
    if (id && countOf("id", id) === 1 && !generatedId(id)) return `#${CSS.escape(id)}`;
    return "";
  };

  const escapedTags = new Map();
  const escapeTag = (tag) => {
    if (!escapedTags.has(tag)) escapedTags.set(tag, CSS.escape(tag));
    return escapedTags.get(tag);
  };
  // Tags are counted in Maps: a null-prototype object made per parent and keyed by the
  // tags the DOM hands out is slower to build and to read (one per parent of each row).
  // k of "tag:nth-of-type(k)" among its siblings; 0: its tag alone (always so for an only child).
  const stepOf = (el) => {
    if (!el.previousElementSibling && !el.nextElementSibling) return 0;
    const f = factsOf(el);
    if (f.step === undefined) {
      const parent = el.parentNode;
      const totals = new Map();
      const seen = new Map();
      for (let c = parent.firstElementChild; c; c = c.nextElementSibling) {
        totals.set(c.localName, (totals.get(c.localName) || 0) + 1);
      }
      for (let c = parent.firstElementChild; c; c = c.nextElementSibling) {
        const tag = c.localName;
        seen.set(tag, (seen.get(tag) || 0) + 1);
        factsOf(c).step = totals.get(tag) > 1 ? seen.get(tag) : 0;
      }
    }
    return f.step;
  };

  // rows[i] = [parent row or -1, css tag, its nth-of-type (0: none), css anchor or "", fingerprint
  // path item ("": the css tag), XPath-able (1 or 0)], without the fields at its end that
  // are 0, "", "" and 1, as most rows' are: a large page has tens of thousands of rows.
  // The CSS path of a row is its anchor, else its parent's path + " > " +
  // its step (`tag` or `tag:nth-of-type(nth)`; two fields, as on the wire they are shorter). Parents
  // come before children. A shadow root's children count as children of the host, as in
  // Playwright's CSS; XPath cannot enter shadow trees, so rows there are not XPath-able.
  const rows = [];
  const ROW_ENDS = [0, "", "", 1];  // the fields after the tag, when left out
  const viaHost = [];  // row -> its CSS path passes through a shadow host (may be ambiguous)
  const xpathRows = [];  // row -> XPath-able
  function rowIndex(el) {
    const f = factsOf(el);
    let row = f.row;
    if (row !== undefined) return row;
    const parent = parentOf(el);
    const up = parent ? rowIndex(parent) : -1;
    let anchor = uniqueAnchor(el);
    if (!parent) anchor = el.localName;
    else if (!anchor && el.localName === "body" && parent === document.documentElement) anchor = "body";
    const xpathable = el.namespaceURI === "http://www.w3.org/1999/xhtml" &&
      (el.parentNode === document || (el.parentNode.nodeType === 1 && xpathRows[up]));
    const id = attr(el, "id");
    const firstClass = (attr(el, "class") || "").trim().split(/\s+/)[0];
    const item = el.localName + (id ? `#${id}` : "") + (firstClass ? `.${firstClass}` : "");
    row = rows.length;
    const tag = escapeTag(el.localName);
    const fields = [up, tag, parent ? stepOf(el) : 0, anchor, item === tag ? "" : item, xpathable ? 1 : 0];
    while (fields.length > 2 && fields[fields.length - 1] === ROW_ENDS[fields.length - 3]) fields.pop();
    rows.push(fields);
    viaHost.push(!anchor && (viaHost[up] || !!parent.shadowRoot));
    xpathRows.push(xpathable);
    f.row = row;
    return row;
  }
  const compoundsOf = (row) => {
    const [up, tag, nth = 0, anchor = ""] = rows[row];
    return anchor ? [anchor] : [...compoundsOf(up), nth ? `${tag}:nth-of-type(${nth})` : tag];
  };
  // Where a path passes through a shadow host, a light child and a shadow child can both fit.
  // Replay Playwright's own query (same candidates, same order) and pin the index if needed.
  function exactSelector(el, row) {
    if (!viaHost[row]) return "";
    const compounds = compoundsOf(row);
    const matches = [];
    for (const root of allRoots()) {
      for (const candidate of root.querySelectorAll(compounds[compounds.length - 1])) {
        let e = candidate;
        let fits = true;
        for (let i = compounds.length - 2; i >= 0 && fits; i--) {
          e = parentOf(e);
          fits = !!e && e.matches(compounds[i]);
        }
        if (fits) matches.push(candidate);
      }
    }
    return matches.length === 1 ? "" : `${compounds.join(" > ")} >> nth=${matches.indexOf(el)}`;
  }
  function labelTextOf(el) {
    const labelledBy = idRefs(el, "aria-labelledby");
    if (labelledBy.length) return collapse(textOf(labelledBy[0]));
    const ariaLabel = attr(el, "aria-label");
    if (ariaLabel && ariaLabel.trim()) return collapse(ariaLabel);
    const labelable = ["button", "meter", "output", "progress", "select", "textarea"].includes(el.localName) ||
      (el.localName === "input" && el.type !== "hidden");
    return labelable && labelsOf(el).length ? collapse(textOf(labelsOf(el)[0])) : "";
  }
  // Playwright's text engine picks the innermost element with the text, so only own text counts.
  const ownText = (el, name, text) => {  // text: the element's textContent
    if (!name || FORM_FIELDS.has(el.localName) || /[\u0000-\u001f]/.test(name)) return false;
    if (collapse(text) !== name) return false;
    for (const c of childrenOf(el)) if (collapse(textOf(c)) === name) return false;
    return true;
  };

  const STABLE_ATTRS = new Set(["type", "name", "placeholder", "href", "aria-label", "title", "alt", "for",
    "role", "value", "src", "action", "aria-haspopup", "aria-controls"]);
  const VALUE_IS_LABEL = (el) => el.localName === "button" || el.localName === "option" ||
    (el.localName === "input" && ["button", "submit", "reset"].includes(el.type));
  function attributesOf(el) {
    const attributes = {};
    for (const name of el.getAttributeNames()) {
      if (STABLE_ATTRS.has(name) && (name !== "value" || VALUE_IS_LABEL(el))) attributes[name] = el.getAttribute(name);
    }
    return attributes;
  }

  // ---------------------------------------------------------------- where it is

  // The labels of the containers around an element, nearest first, each [kind, label]: the
  // dialog it asks in, its form, fieldset, named section or landmark, its row's key and its
  // column's header, the heading over it (a card's title, a section's heading), its frame,
  // and every other container whose name says which one it is (IDENTIFYING_NAMES): a tab's
  // panel, a menu, a list, a group, a table, a toolbar. They say what an element is about,
  // beyond its own name ("Confirm" in "Delete project"); a heal never changes them
  // (heal.meaning). Each container is read once per run (`places`).
  const HEADINGS = "h1, h2, h3, h4, h5, h6, [role=heading]";
  const PLACE_KINDS = { dialog: "dialog", alertdialog: "dialog", form: "form", row: "row",
    navigation: "landmark", complementary: "landmark", banner: "landmark", contentinfo: "landmark",
    main: "landmark", search: "landmark", region: "section", article: "section", tabpanel: "tab",
    menu: "menu", menubar: "menu", listbox: "list", list: "list", tree: "list", group: "group",
    radiogroup: "group", table: "table", grid: "table", treegrid: "table", toolbar: "toolbar",
    figure: "figure" };
  // Where HTML names a container by its first child of a kind, when nothing labels it.
  const CAPTIONS = { details: "summary", table: "caption", figure: "figcaption" };
  const CELLS = "td, th, [role=cell], [role=gridcell], [role=columnheader], [role=rowheader]";
  const shortText = (el) => collapse(textOf(el)).slice(0, 80);
  const ownLabel = (el) => {  // what names a container itself: aria-labelledby, aria-label
    const by = idRefs(el, "aria-labelledby");
    if (by.length) return collapse(by.map(textOf).join(" ")).slice(0, 80);
    return collapse(attr(el, "aria-label") || "").slice(0, 80);
  };
  const visibleIn = (root, css) => [...root.querySelectorAll(css)].filter((h) => h.checkVisibility());
  const places = memo.places ??= new Map();
  // A dialog, a popover (a dialog that does not block the page) or an article with no
  // label or heading is titled by the first text a person reads in it: "Delete project" in
  // bold, the alt of a card's picture (itemKey).
  function placeOf(el) {  // [kind, label] of a container, or null
    if (places.has(el)) return places.get(el);
    let place = null;
    const role = el.localName === "fieldset" ? "fieldset" : roleOf(el);
    const popover = !PLACE_KINDS[role] && el.hasAttribute("popover");
    const kind = popover ? "dialog" : PLACE_KINDS[role] || (role === "fieldset" ? "fieldset" : null);
    if (kind === "dialog") {
      const heading = visibleIn(el, HEADINGS)[0];
      place = [kind, ownLabel(el) || (heading ? shortText(heading) : itemKey(el, null))];
    } else if (role === "article") {
      place = [kind, ownLabel(el) || itemKey(el, null)];
    } else if (kind === "fieldset") {
      const legend = el.querySelector(":scope > legend");
      place = [kind, ownLabel(el) || (legend ? shortText(legend) : "")];
    } else if (kind === "row") {
      place = [kind, ""];  // its key depends on the cell asked from (rowKey)
    } else if (kind) {
      const caption = CAPTIONS[el.localName] && el.querySelector(`:scope > ${CAPTIONS[el.localName]}`);
      const opener = !caption && (kind === "menu" || kind === "list") ? openerOf(el, kind) : null;
      place = [kind, ownLabel(el) || (caption ? shortText(caption) : "") ||
        (opener ? collapse(nameOf(opener).text).slice(0, 80) : "")];
    }
    places.set(el, place);
    return place;
  }
  // A menu or list with no label of its own is named by what opens it, as a person reads
  // it ("Classic" of the submenu of "Rock", a combobox's options by the combobox): the
  // control whose aria-controls names it, else, for a menu, the item or button before it.
  const OPENERS = new Set(["menuitem", "menuitemcheckbox", "menuitemradio", "button"]);
  function openerOf(el, kind) {
    const id = attr(el, "id");
    const root = el.getRootNode();
    const by = id && root.querySelector && root.querySelector(`[aria-controls~="${CSS.escape(id)}"]`);
    if (by) return by;
    const before = kind === "menu" && el.previousElementSibling;
    return before && OPENERS.has(roleOf(before)) ? before : null;
  }
  // Rows split across containers (a grid's pinned column), columns by aria-colindex or
  // place, the header row: the model readback.js reads cells by (tables.js).
  const tables = memo.tables ??= (/*@TABLES*/)(parentOf, (root, css) => [...root.querySelectorAll(css)],
    (root, css) => root.querySelector(css));
  function rowKey(row, el) {  // the row header, else the first cell with text that is not el's
    const cells = tables.partsOf(row).flatMap(tables.cellsOf);
    const header = cells.find((c) => c.localName === "th" || attr(c, "role") === "rowheader");
    const key = header && !header.contains(el) ? header
      : cells.find((c) => !c.contains(el) && collapse(textOf(c)));
    return key ? shortText(key) : "";
  }
  // Does `later` come after `node` in the page? Nodes of different trees (a shadow root and
  // the document around it) are compared through the shadow hosts that stand for them in
  // one tree: compareDocumentPosition orders those arbitrarily, differently on each load.
  function comesAfter(node, later) {
    if (node.getRootNode() !== later.getRootNode()) {
      const trees = new Set();
      for (let n = node; n; n = n.getRootNode().host) trees.add(n.getRootNode());
      while (later && !trees.has(later.getRootNode())) later = later.getRootNode().host;
      if (!later) return false;
      while (node.getRootNode() !== later.getRootNode()) node = node.getRootNode().host;
      if (node === later) return false;
    }
    return !!(node.compareDocumentPosition(later) & Node.DOCUMENT_POSITION_FOLLOWING);
  }
  // What a list item is about, as a row's key is a row's: its first shown text outside el
  // and the controls in it ("Project Alpha" of "Project Alpha [Delete]"), or the alt of a
  // picture before it, read through shadow roots and slots, as a person sees it.
  function itemKey(item, el) {
    const text = firstShown(item, el);
    if (!text) return "";
    if (text.nodeType === Node.ELEMENT_NODE) return collapse(attr(text, "alt")).slice(0, 80);
    const parent = text.parentElement;
    const whole = parent && parent !== item && !parent.contains(el) && !parent.querySelector(CONTROL_TAGS);
    return whole ? shortText(parent) : collapse(text.data).slice(0, 80);
  }
  // The first text node (or picture with an alt) shown in `node`, outside el and controls.
  function firstShown(node, el) {
    const slotted = node.localName === "slot" ? node.assignedNodes() : [];
    for (const c of slotted.length ? slotted : childNodesOf(node.shadowRoot || node)) {
      if (c.nodeType === Node.TEXT_NODE && collapse(c.data)) return c;
      if (c.nodeType !== Node.ELEMENT_NODE || c === el || CONTROLS.has(roleOf(c)) || hiddenForNames(c)) continue;
      if (c.localName === "img" && collapse(attr(c, "alt") || "")) return c;
      const found = firstShown(c, el);
      if (found) return found;
    }
    return null;
  }
  // A block titled as a heading is, by no heading element ("Backpack" in bold atop a card
  // of <div>s): the first text of the nearest block around el that shows any, when that
  // text comes before el, in an element of its own that holds no control, set off from the
  // block's text (bold, 600 or more, where the block is not; or larger). Not within a
  // container that its own rule names (a dialog, a row, a list item with text; a list with
  // no label but a card's row of actions), nor a heading's (headingsOver), nor el's name,
  // nor the text of a part of the block (`partOf`).
  function titleOver(el) {
    for (let a = parentOf(el); a; a = parentOf(a)) {
      const place = placeOf(a);
      const item = a.localName === "li" || roleOf(a) === "listitem";
      if ((place && (place[0] !== "list" || place[1])) || a.matches(CELLS) ||
          MESSAGES.has(roleOf(a)) || (item && itemKey(a, el))) return "";
      const text = firstShown(a, el);
      if (!text) continue;
      const own = text.parentElement;
      if (text.nodeType !== Node.TEXT_NODE || !own || own === a || partOf(own, a) ||
          own.querySelector(CONTROL_TAGS) || own.closest(HEADINGS) ||
          nameOf(el).contributors.some((c) => c.contains(own)) ||
          !comesAfter(text, el)) return "";
      const style = styleOf(own), block = styleOf(a);
      const weight = parseFloat(style.fontWeight);
      const bolder = weight >= 600 && weight > parseFloat(block.fontWeight);
      return bolder || parseFloat(style.fontSize) > parseFloat(block.fontSize) ? shortText(own) : "";
    }
    return "";
  }
  // Is e inside a part of block a that speaks for itself: a list item, a cell, a container
  // (the bold current page among a pager's items, a column's header, is no block's title)?
  function partOf(e, a) {
    for (let p = e; p && p !== a; p = parentOf(p)) {
      if (p.localName === "li" || roleOf(p) === "listitem" || p.matches(CELLS) || placeOf(p)) return true;
    }
    return false;
  }
  const CONTROL_TAGS = "a[href], button, input, select, textarea, [role]";
  const MESSAGES = new Set(["alert", "status"]);
  function columnOf(cell) {  // the header of a cell's column, in a table or an ARIA grid
    const row = parentOf(cell);
    const head = row && tables.isTableRow(row) && tables.headerRow(row);
    const header = head && tables.cellAt(head, tables.columnOf(cell));
    return header && header.localName !== "td" ? shortText(header) : "";
  }
  // The headings that head a container's own content: each alone in the block of it that
  // holds it (a card's header), not inside a card, dialog or section of their own.
  const headingsIn = memo.headingsIn ??= new Map();
  const heads = (a, h) => {
    let block = h;
    while (parentOf(block) && parentOf(block) !== a) block = parentOf(block);
    return block === h || collapse(textOf(block)) === collapse(textOf(h));
  };
  // The headings over el, nearest first (a card's title, its section's; at most three): in
  // each container, the last that heads it before el. A page's title (level 1) names the
  // page, not a container in it: rewording it moves nothing.
  const SUBHEADINGS = "h2, h3, h4, h5, h6, [role=heading]:not([aria-level='1'])";
  // A tree's root -> its SUBHEADINGS, queried once: a container's are those it contains (as
  // its own query finds them), where a query of each container around a cell deep in a
  // large table would read the table again each time.
  const subheadingsOf = memo.subheadingsOf ??= new Map();
  const subheadingsIn = (a) => {
    const root = a.getRootNode();
    if (!subheadingsOf.has(root)) subheadingsOf.set(root, [...root.querySelectorAll(SUBHEADINGS)]);
    return subheadingsOf.get(root).filter((h) => h !== a && a.contains(h) && h.checkVisibility());
  };
  function headingsOver(el) {
    const found = [];
    for (let a = parentOf(el); a && found.length < 3; a = parentOf(a)) {
      if (!headingsIn.has(a)) headingsIn.set(a, subheadingsIn(a).filter((h) => heads(a, h)));
      const before = headingsIn.get(a).filter((h) => !h.contains(el) && comesAfter(h, el));
      const text = before.length ? shortText(before[before.length - 1]) : "";
      if (text && !found.includes(text)) found.push(text);
    }
    return found;
  }
  // The cell a value fills (<td>$10</td>, <td><span>$10</span></td>): a value, not a control
  // in a cell beside others (a "Delete" button), whose column says what it is.
  const CONTROLS = new Set([...INTERACTIVE].filter((role) => role !== "gridcell"));
  function cellFilled(el) {
    if (CONTROLS.has(roleOf(el))) return null;
    let cell = el;
    while (cell && !cell.matches(CELLS)) cell = parentOf(cell);
    return cell && collapse(textOf(cell)) === collapse(textOf(el)) ? cell : null;
  }
  // The term a value stands under: a definition's (<dt>Shipping</dt><dd>$14.99</dd>), the
  // header of the column of the cell it fills. What the value is, which a heal never changes.
  function termOf(el, cell) {
    if (cell) return columnOf(cell);
    const value = el.closest("dd");
    for (let s = value && value.previousElementSibling; s; s = s.previousElementSibling) {
      if (s.localName === "dt") return shortText(s);
    }
    return "";
  }
  function containersOf(el) {
    const headings = headingsOver(el);
    const title = titleOver(el);
    if (title && !headings.includes(title)) headings.unshift(title);
    const found = headings.map((heading) => ["heading", heading]);
    // What its description says it does ("Removes this draft only", aria-describedby), as
    // shown: unlike a screen reader's, one hidden (a tooltip not open, a message not
    // raised) says nothing now.
    const shown = (d) => textAlternative(d, context(new Set(), [], { inLabelledBy: true }));
    const description = collapse(idRefs(el, "aria-describedby").map(shown).join(" ")).slice(0, 80);
    if (description) found.unshift(["description", description]);
    const cell = cellFilled(el);
    const term = termOf(el, cell);
    if (term) found.unshift(["term", term]);
    for (let a = parentOf(el); a; a = parentOf(a)) {
      if (a.matches(CELLS) && a !== cell) {
        const column = columnOf(a);
        if (column) found.push(["column", column]);
      }
      // An <li> moved out of its list (into a component's shadow root) is still an item.
      if (roleOf(a) === "listitem" || (a.localName === "li" && !attr(a, "role"))) {
        const key = itemKey(a, el);
        if (key) found.push(["item", key]);
      }
      // A message's controls ("Undo" of "Message archived") act on what it says: its words,
      // not the numbers it counts or times ("Uploading 45%" moves as it is read).
      if (MESSAGES.has(roleOf(a))) {
        const words = collapse((ownLabel(a) || itemKey(a, el)).replace(/[^\p{L}\s]*\p{N}[^\p{L}\s]*/gu, " "));
        if (words) found.push(["message", words]);
      }
      const place = placeOf(a);
      if (!place) continue;
      const label = place[0] === "row" ? rowKey(a, el) : place[1];
      if (label) found.push([place[0], label]);
    }
    if (window !== window.top) {
      let title = document.title;
      try { title = attr(window.frameElement, "title") || title; } catch {}
      if (collapse(title || "")) found.push(["frame", collapse(title).slice(0, 80)]);
    }
    return found;
  }

  // [row, tag, role, name, states, attributes, own text, text (null: the name), href, id, classes,
  //  label, test id attribute, test id, test id unique, exact selector], without the empty
  //  ("", 0, null) fields at its end: most elements have few, and large pages have many elements.
  function describe({ el, role, name, states, href }) {
    const row = rowIndex(el);
    const attributes = attributesOf(el);
    const icon = !name && !FORM_FIELDS.has(el.localName) ? iconOf(el) || drawnIconOf(el) : "";
    if (icon) attributes.icon = icon;
    const testId = testIdOf(el) || ["", ""];
    const content = textOf(el);
    const text = FORM_FIELDS.has(el.localName) ? "" : collapse(content.slice(0, 2000)).slice(0, 120);
    const record = [row, el.localName, role, name, states, attributes, ownText(el, name, content) ? 1 : 0,
      text === name ? null : text, href, attr(el, "id") || "", attr(el, "class") || "", labelTextOf(el),
      testId[0], testId[1], testId[0] && countOf(...testId) === 1 ? 1 : 0, exactSelector(el, row)];
    while (record.length > 6 && !record[record.length - 1]) record.pop();
    return record;
  }

  // The visible text of the closest enclosing item (card, row, form, section), first 200
  // characters: what tells look-alikes apart. Text nodes are joined with spaces; innerText
  // would glue "Username" and "Password" together once a wrapper changes the layout. The
  // item may be outside the element's shadow root (a row's checkbox two components deep),
  // and its text inside open shadow roots of its components.
  const ITEMS = "li, tr, article, fieldset, form, dialog, section, [role=listitem], [role=row], " +
    "[role=article], [role=group], [role=dialog], [role=region], [role=form]";
  function surroundingsOf(el) {
    const parent = parentOf(el);
    const item = parent && closestAcrossShadow(parent, ITEMS);
    if (!item) return "";
    const texts = [];
    let length = 0;
    const visit = (root) => {
      const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT | NodeFilter.SHOW_ELEMENT);
      for (let node; (node = walker.nextNode()) && length < 200; ) {
        if (node.nodeType === Node.ELEMENT_NODE) {
          if (node.shadowRoot) visit(node.shadowRoot);
          continue;
        }
        if (!node.textContent.trim() || !node.parentElement || !node.parentElement.checkVisibility()) continue;
        texts.push(node.textContent);
        length += node.textContent.length;
      }
    };
    if (item.shadowRoot) visit(item.shadowRoot);
    visit(item);
    return texts.join(" ").replace(/\s+/g, " ").trim().slice(0, 200);
  }

  // What the page's style rules may change, by the elements they reach, so the walk asks only
  // those: ::before/::after text (a rule sets a `content`), a cursor, content-visibility,
  // overflow.
  // Each a Set; false when no rule does; true when that cannot be told and every element is
  // asked: a sheet that cannot be read, a nested or shadow-scoped rule, a selector the
  // browser refuses, an animated property, or more rules than matching them is worth (an
  // icon font's thousands). Without `pick` (a look at a few elements), true at the first rule:
  // asking those few is cheaper than matching the rules across the document.
  function ruleReach(pick) {
    const PSEUDO = /(?<!\\)::?(?:before|after)\b/i;  // not an escaped colon: `.md\:after\:block`
    // Selectors that mean something else in querySelectorAll, or hide a pseudo in a string.
    const UNCLEAR = /&|:scope|:host|::slotted|::part|["'][^"']*::?(?:before|after)/i;
    const MOST = 100;  // matching grows with the rules: at ~300, it costs what asking all does
    const wordless = new Set(["none", "normal", '""']);  // as the browser writes them
    // Inline styles (set by the page's scripts too: they write the attribute) and the
    // browser's own rules reach these; its pointer for links is isClickable's to read. A
    // slotted element inherits its cursor from its slot, not from the parent it is
    // compared with: those are added below.
    const always = { pseudo: [], cursor: ['[style*="cursor" i]', '[style*="all" i]'],
      hiding: ['[style*="content-visibility" i]', '[style*="all" i]', "[hidden=until-found i]"],
      clip: ['[style*="overflow" i]', '[style*="all" i]', "[popover]"] };
    const reach = { pseudo: new Map(), cursor: new Map(), hiding: new Map(), clip: new Map() };  // root -> selectors
    const concerns = Object.keys(reach);
    // A look reads its few elements: an inline style sets these without any rule.
    const unknown = new Set(pick ? [] : ["cursor", "hiding", "clip"]);
    const clipping = (style) => style.overflowX || style.overflowY || style.overflowInline || style.overflowBlock;
    const empty = document.createDocumentFragment();
    const refused = (selector) => { try { empty.querySelector(selector); return false; } catch { return true; } };
    const add = (concern, root, selector, unclear) => {
      if (unknown.has(concern)) return;
      const selectors = reach[concern].get(root) || [];
      if (!pick || unclear || selectors.length >= MOST || refused(selector)) unknown.add(concern);
      else reach[concern].set(root, [...selectors, selector]);
    };
    const visitRules = (rules, root, nested) => {
      for (const rule of rules) {
        const selector = rule.selectorText;
        const style = rule.style;
        if (style && selector === undefined) {  // a keyframe: it animates the property
          if (style.cursor) unknown.add("cursor");
          if (style.contentVisibility) unknown.add("hiding");
          if (clipping(style)) unknown.add("clip");
        }
        if (selector !== undefined) {
          const unclear = nested || UNCLEAR.test(selector);
          if (PSEUDO.test(selector) && style.content && !wordless.has(style.content)) {
            const base = selector.replace(/(^|[\s,>+~(])::?(?:before|after)\b/gi, "$1*")
              .replace(/(?<!\\)::?(?:before|after)\b/gi, "");
            add("pseudo", root, base, unclear);
          }
          // A rule for a pseudo-element matches no element here: it styles none either.
          if (style.cursor) add("cursor", root, selector, unclear);
          if (style.contentVisibility) add("hiding", root, selector, unclear);
          if (clipping(style)) add("clip", root, selector, unclear);
        }
        if (rule.styleSheet && visitSheet(rule.styleSheet, root)) return true;  // @import
        if (rule.cssRules && visitRules(rule.cssRules, root, nested || selector !== undefined)) return true;
      }
      return false;
    };
    const visitSheet = (sheet, root) => { try { return visitRules(sheet.cssRules, root, false); } catch { return true; } };
    const roots = allRoots();
    for (const root of roots) {
      if (unknown.size === concerns.length) break;
      const sheets = [...root.styleSheets, ...(root.adoptedStyleSheets || [])];
      if (sheets.some((sheet) => visitSheet(sheet, root))) return { pseudo: true, cursor: true, hiding: true, clip: true };
    }
    // Each query is a pass over the whole tree: one per concern a rule reaches elements for,
    // and one for what the browser and inline styles reach, whose few elements are then
    // sorted by concern.
    const asked = concerns.filter((concern) => !unknown.has(concern));
    const found = Object.fromEntries(concerns.map((concern) => [concern, unknown.has(concern) || new Set()]));
    const inline = asked.map((concern) => [concern, always[concern].join(",")]).filter(([, selector]) => selector);
    for (const root of roots) {
      for (const concern of asked) {
        if (!reach[concern].has(root)) continue;
        for (const el of root.querySelectorAll(reach[concern].get(root).join(","))) found[concern].add(el);
      }
      if (!inline.length) continue;
      for (const el of root.querySelectorAll(inline.map(([, selector]) => selector).join(","))) {
        for (const [concern, selector] of inline) if (el.matches(selector)) found[concern].add(el);
      }
    }
    if (found.cursor instanceof Set) for (const root of roots) if (root.host) for (const el of childrenOf(root.host)) found.cursor.add(el);
    for (const concern of asked) if (!found[concern].size) found[concern] = false;
    return found;
  }
  // Whether the rules reach `el` (ruleReach): false only where no rule can.
  const reaches = (found, el) => found === true || (!!found && found.has(el));

  // The tags tagRole's cases give a role to, by role (TAG_ROLES has the others): with the
  // elements that have a role attribute, every element that may have the role.
  const CASE_TAGS = { link: ["a", "area"], contentinfo: ["footer"], banner: ["header"], form: ["form"],
    region: ["section"], img: ["img"], presentation: ["img"], textbox: ["input"], searchbox: ["input"],
    combobox: ["input", "select"], listbox: ["select"], button: ["input"], checkbox: ["input"],
    spinbutton: ["input"], radio: ["input"], slider: ["input"], cell: ["td"], gridcell: ["td"],
    columnheader: ["th"], rowheader: ["th"] };
  const mayHaveRole = (role) => ["[role]", ...(CASE_TAGS[role] || []),
    ...Object.keys(TAG_ROLES).filter((tag) => TAG_ROLES[tag] === role)].join(",");
  // Where a name can come from more than an element's text: attributes, labels, controls,
  // images, roles or shadow roots, in the element or in it. Elsewhere a name is the
  // element's text (hidden parts left out, spaces added), so its letters are in the text,
  // in that order.
  const NAMED_OTHERWISE = "[aria-labelledby],[aria-label],[aria-owns],[title],[alt],[placeholder]," +
    "[value],[role],input,select,textarea,img,svg,area,object,embed,iframe,fieldset,table,figure," +
    "slot,meter,progress,output";
  // Labelled controls, shadow hosts, elements with pseudo-element text, and around them.
  const holdsNamesFromElsewhere = () => {
    if (!memo.holdsNamesFromElsewhere) {
      const held = memo.holdsNamesFromElsewhere = new Set();
      const mark = (el) => { for (let e = el; e && !held.has(e); e = parentOf(e)) held.add(e); };
      for (const root of allRoots()) if (root.host) mark(root.host);
      for (const control of labelled().keys()) mark(control);
      if (styled.pseudo instanceof Set) for (const host of styled.pseudo) mark(host);
    }
    return memo.holdsNamesFromElsewhere;
  };
  // False only where `el` cannot be named with these `letters` (a name without its
  // spaces): spares computing most names of a role.
  const mayBeNamed = (el, letters) => {
    if (styled.pseudo === true || el.matches(NAMED_OTHERWISE) || el.querySelector(NAMED_OTHERWISE) ||
      holdsNamesFromElsewhere().has(el)) {
      return true;
    }
    const text = textOf(el);
    let at = 0;
    for (const letter of letters) if (!(at = text.indexOf(letter, at) + 1)) return false;
    return true;
  };

  // ---------------------------------------------------------------- run

  // Whether the document has an open shadow root, for a script that shares `memo` with
  // the looks it makes next: they then walk the document for its roots once, not twice.
  if (args.shadowRoots) return allRoots().length > 1;

  const styled = memo.styled ??= ruleReach(!args.byRole && !args.target && !args.around);

  // The elements Playwright's `role=R[name="N"s]` finds (shown to the accessibility tree,
  // role R, name exactly N), by our roles and names: without its selector engine. The
  // first `most` of them, when given.
  if (args.byRole) {
    const [role, name, most = Infinity] = args.byRole;
    const css = mayHaveRole(role);
    const letters = name.replace(/\s+/g, "");
    const found = [];
    for (const root of allRoots()) {
      const candidates = root.querySelectorAll(css);
      for (let i = 0; i < candidates.length; i++) {
        const el = candidates[i];
        if (mayBeNamed(el, letters) && roleOf(el) === role && nameOf(el).text === name &&
          !hiddenForNames(el) && found.push(el) === most) return found;
      }
    }
    return found;
  }

  // What tells an element from its namesakes, read without describing it: the text
  // around it, the labels of its containers and its glyph, as `target` reads them.
  if (args.around) return [surroundingsOf(args.around), containersOf(args.around), glyphOf(args.around)];

  if (args.target) {  // one live element, described as a snapshot would describe it
    const el = args.target;
    const role = outlineRole(el);
    const name = nameOf(el).text;
    const href = attr(el, "href") !== null ? absoluteHref(el) : null;
    const element = describe({ el, role, name, states: statesOf(el, role, name), href });
    // The labels of its containers and its glyph only a look at one element reads: a heal
    // compares them for its few candidates, and a snapshot of a large page would pay for
    // every element.
    return JSON.stringify({ element, rows, context: surroundingsOf(el), containers: containersOf(el),
      glyph: glyphOf(el) });
  }

  const topItems = [];
  let hiddenScope = false;
  for (let e = parentOf(scope); e; e = parentOf(e)) hiddenScope ||= displayOf(e) === "none" || ariaHidden(e);
  if (!hiddenScope) walk(scope, topItems, styleOf(scope).visibility === "visible");
  renderParts(withoutRepeats(runsOf(topItems), ""), 0);

  const elements = outlined.map(describe);
  // Child frames shown in this frame: [argument index, row of the <iframe>, exact selector].
  const frames = [];
  for (const { el, frame } of frameLines) {
    if (frame >= 0) frames.push([frame, rowIndex(el), exactSelector(el, rowIndex(el))]);
  }
  // The descriptions stay in the page until asked for (`take`): a prompt reads the lines and
  // one or two elements, and a large page's descriptions cost more to send than to make.
  // Each document keeps its last few outlines; an older one is asked for in vain.
  const ancestors = (wanted) => {  // [row, fields] for the rows given and those above them
    const seen = new Set();
    for (let row of wanted) for (; row >= 0 && !seen.has(row); row = rows[row][0]) seen.add(row);
    return [...seen].map((row) => [row, rows[row]]);
  };
  const take = (indices) => JSON.stringify(indices === null ? { elements, rows } : {
    elements: indices.map((index) => [index, elements[index]]),
    rows: ancestors(indices.map((index) => elements[index][0])),
  });
  const key = Math.random().toString(36).slice(2);
  const store = /*@OUTLINES*/;
  if (!window[store]) Object.defineProperty(window, store, { value: new Map(), configurable: true });
  const kept = window[store];
  kept.set(key, take);
  for (const old of kept.keys()) if (kept.size > 4) kept.delete(old);
  return JSON.stringify({ lines, key, frames, rows: ancestors(frames.map(([, row]) => row)), title: document.title });
}

(el, property) => {
  if (el.localName === "select") return [...el.selectedOptions].map((o) => o.label).join(", ");
  if (property === "text") return slotted(el) ? flatText(el) : el.innerText;
  if (el.localName === "input" || el.localName === "textarea") return el.value;
  const shown = el.getAttribute("aria-valuetext") || el.getAttribute("aria-valuenow");
  if (shown !== null) return shown;
  throw new Error("it is not a form field and has no value");

  // Text a slot shows (a grid cell's content, a dialog's headline slotted into its heading)
  // or a shadow root holds is not in innerText: such an element's text is read in the flat
  // tree, as a person sees it.
  function slotted(element) {
    return !!element.shadowRoot || element.localName === "slot" || !!element.querySelector("slot") ||
      [...element.querySelectorAll("*")].some((e) => e.shadowRoot);
  }
  function flatText(node) {
    if (node.nodeType === Node.TEXT_NODE) {
      const parent = node.parentElement;
      return parent && getComputedStyle(parent).visibility !== "visible" ? "" : node.data;
    }
    if (node.nodeType !== Node.ELEMENT_NODE || ["script", "style", "template"].includes(node.localName)) return "";
    const style = getComputedStyle(node);
    if (style.display === "none") return "";
    const assigned = node.localName === "slot" ? node.assignedNodes() : [];
    const text = [...(assigned.length ? assigned : (node.shadowRoot || node).childNodes)].map(flatText).join("");
    return style.display.startsWith("inline") || style.display === "contents" ? text : ` ${text} `;
  }
}

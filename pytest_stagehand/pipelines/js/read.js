(el, property) => {
  if (el.localName === "select") return [...el.selectedOptions].map((o) => o.label).join(", ");
  if (property === "text") return el.innerText;
  if (el.localName === "input" || el.localName === "textarea") return el.value;
  const shown = el.getAttribute("aria-valuetext") || el.getAttribute("aria-valuenow");
  if (shown !== null) return shown;
  throw new Error("it is not a form field and has no value");
}

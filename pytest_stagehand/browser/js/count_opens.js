(() => {
  if (window.__stagehandOpens !== undefined) return;
  window.__stagehandOpens = 0;
  const open = window.open;
  window.open = function (...args) { window.__stagehandOpens++; return open.apply(this, args); };
  document.addEventListener("click", (event) => {
    const link = event.target instanceof Element ? event.target.closest("a[href][target]") : null;
    const target = link ? link.target.toLowerCase() : "_self";
    if (!["_self", "_parent", "_top", ""].includes(target)) window.__stagehandOpens++;
  }, true);
})()

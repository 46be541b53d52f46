() => {
  const key = Symbol.for("pytest-stagehand.guard");
  const guard = window[key];
  if (!guard) return null;
  delete window[key];
  guard.stop();
  if (guard.verdict === "hit" && guard.calm) (/*@CALM_AT*/)(guard.own);
  const opens = (/*@TAKE_OPENS*/)();
  const asked = guard.navigation;
  if (asked) {
    const away = !asked.destination.sameDocument && asked.downloadRequest === null;
    return [guard.verdict, away && !asked.defaultPrevented, opens];
  }
  const submit = guard.submit;
  if (!submit || submit.defaultPrevented) return [guard.verdict, false, opens];
  const by = submit.submitter;
  const form = submit.target;
  const target = (by && by.getAttribute("formtarget")) || form.getAttribute("target") || "";
  const method = (by && by.getAttribute("formmethod")) || form.getAttribute("method") || "";
  const here = ["", "_self", "_parent", "_top"].includes(target.toLowerCase());
  return [guard.verdict, here && method.toLowerCase() !== "dialog", opens];
}

() => {
  const opens = window.__stagehandOpens || 0;
  window.__stagehandOpens = 0;
  return opens;
}

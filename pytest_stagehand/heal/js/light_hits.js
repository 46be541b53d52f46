(describe, selectors) => {
  const query = /*@PLAIN_QUERY*/;
  let light;
  const lightOnly = () => light ??= (/*@NO_SHADOW_ROOTS*/)();
  const memo = {};
  const plain = (index) => typeof selectors[index] === "string";
  const found = selectors.map((s, index) => plain(index) ? query(s, lightOnly) : null);
  const one = (f) => f !== null && f.length === 1;
  const first = found.findIndex(one);
  const confirmed = [];
  selectors.forEach((selector, index) => {
    if (plain(index) || index > first) return;
    const by = (/*@CONFIRMED_BY*/)(describe, selector, found, memo);
    if (by >= 0) [found[index], confirmed[index]] = [found[by], by];
  });
  const described = new Map();
  const kept = [];
  const hits = found.map((f, index) => {
    kept.push(f && f.length === 1 ? f[0] : null);
    if (f === null || f.length !== 1) return f && [f.length, null, null, null];
    const el = f[0];
    if (!described.has(el)) described.set(el, describe(el, memo));
    const standIn = index === 0 ? (/*@STAND_IN*/)(el) : null;
    return [1, described.get(el), standIn, confirmed[index] ?? null];
  });
  return [(/*@KEEP*/)(kept), hits];
}

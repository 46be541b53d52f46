(describe, selectors, firstOnly) => {
  const query = /*@PLAIN_QUERY*/;
  const memo = {};
  let light;  // no shadow roots: found as the describer finds them, for it to reuse
  const lightOnly = () => light ??= !describe.shadowRoots(memo);
  const plain = (index) => typeof selectors[index] === "string";
  // What each plain selector finds, queried when first asked.
  const queried = [];
  const found = (index) => index in queried ? queried[index]
    : (queried[index] = plain(index) ? query(selectors[index], lightOnly) : null);
  const one = (f) => f !== null && f.length === 1;
  const confirmed = [];  // per role selector asked: the plain one that confirms it, or -1
  const byRole = (index) => {  // its element found, where a plain selector confirms it
    if (!(index in confirmed)) {
      const by = (/*@CONFIRMED_BY*/)(describe, selectors[index], found, selectors.length, memo);
      if (by >= 0) queried[index] = found(by);
      confirmed[index] = by;
    }
    return confirmed[index] >= 0;
  };
  const described = new Map();
  const kept = [];
  const hit = (f, index) => {
    kept.push(one(f) ? f[0] : null);
    if (!one(f)) return f && [f.length, null, null, null];
    const el = f[0];
    if (!described.has(el)) described.set(el, describe(el, memo));
    const standIn = index === 0 ? (/*@STAND_IN*/)(el) : null;
    return [1, described.get(el), standIn, confirmed[index] >= 0 ? confirmed[index] : null];
  };
  const first = selectors[0];
  if (firstOnly && first && (plain(0) ? one(found(0)) : byRole(0))) {
    return [(/*@KEEP*/)(kept), [hit(found(0), 0)]];
  }
  const all = selectors.map((s, index) => found(index));
  const settled = all.findIndex(one);
  selectors.forEach((selector, index) => {
    if (!plain(index) && selector && index <= settled) byRole(index);
  });
  const hits = selectors.map((s, index) => hit(found(index), index));
  return [(/*@KEEP*/)(kept), hits];
}

(kept) => {
  const held = /*@KEPT*/;
  const el = kept && held && held.key === kept[0] ? held.elements[kept[1]] : null;
  return el && el.isConnected ? el : null;
}

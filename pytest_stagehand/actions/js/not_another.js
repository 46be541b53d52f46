(found, kept) => {
  const el = (/*@KEPT_ELEMENT*/)(kept);
  return !el || found.length !== 1 || found[0] === el;
}

(elements) => {
  const key = Math.random().toString(36).slice(2);
  /*@KEPT*/ = { key, elements };
  return key;
}

([selector, how, kept]) => {
  const el = (/*@KEPT_ELEMENT*/)(kept);
  if (el) {
    const done = (/*@DIRECT*/)([el], how);
    if (done) delete /*@KEPT*/;
    return done;
  }
  const found = selector ? (/*@PLAIN_QUERY*/)(selector) : null;
  return found === null ? false : (/*@DIRECT*/)(found, how);
}

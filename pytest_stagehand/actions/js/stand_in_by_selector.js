(selector) => {
  const found = (/*@PLAIN_QUERY*/)(selector);
  return found && found.length === 1 ? (/*@STAND_IN*/)(found[0]) : null;
}

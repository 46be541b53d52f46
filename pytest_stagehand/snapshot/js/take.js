([key, indices]) => {
  const take = window[/*@OUTLINES*/]?.get(key);
  return take ? take(indices) : null;
}

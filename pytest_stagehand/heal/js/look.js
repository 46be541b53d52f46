(describe, [selectors, click, firstOnly]) => {
  const [key, hits] = (/*@LIGHT_HITS*/)(describe, selectors, firstOnly);
  const ready = click && hits[0] && hits[0][0] === 1 && hits[0][2] === "";
  const point = ready ? (/*@DIRECT*/)([/*@KEPT*/.elements[0]], ["click", "", true]) : null;
  return JSON.stringify([key, hits, point]);
}

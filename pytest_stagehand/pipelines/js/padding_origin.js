el => {
  const r = el.getBoundingClientRect();
  const k = el.offsetWidth ? r.width / el.offsetWidth : 1;
  const j = el.offsetHeight ? r.height / el.offsetHeight : 1;
  return [r.x + el.clientLeft * k, r.y + el.clientTop * j, el.clientWidth * k,
          el.clientHeight * j];
}

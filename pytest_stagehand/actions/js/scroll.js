(element, amount) => {
  let box = element || document.scrollingElement;
  while (box.parentElement && box.scrollHeight <= box.clientHeight) box = box.parentElement;
  if (box === document.body || box === document.documentElement) box = document.scrollingElement;
  const value = parseFloat(amount);
  const top = amount.trim().endsWith("%")
    ? (box.scrollHeight - box.clientHeight) * value / 100
    : box.scrollTop + value;
  box.scrollTo({ top, behavior: "instant" });
}

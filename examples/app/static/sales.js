// The sales chart: bars drawn on a canvas; a click on a bar shows its figure in the page.
(() => {
  const months = [["Jan", 42], ["Feb", 95], ["Mar", 61], ["Apr", 78]];
  const canvas = document.getElementById("sales-chart");
  const context = canvas.getContext("2d");
  const bars = months.map(([month, orders], i) => ({
    month, orders, x: 40 + i * 110, y: 220 - orders * 2, w: 70, h: orders * 2,
  }));
  context.fillStyle = "#ffffff";
  context.fillRect(0, 0, canvas.width, canvas.height);
  for (const bar of bars) {
    context.fillStyle = "#4363d8";
    context.fillRect(bar.x, bar.y, bar.w, bar.h);
    context.fillStyle = "#222222";
    context.font = "13px sans-serif";
    context.fillText(bar.month, bar.x + 24, 236);
  }
  canvas.addEventListener("click", (event) => {
    const bar = bars.find((b) => event.offsetX >= b.x && event.offsetX <= b.x + b.w &&
      event.offsetY >= b.y && event.offsetY <= b.y + b.h);
    document.getElementById("sales-picked").textContent =
      bar ? `${bar.month}: ${bar.orders} orders` : "none";
  });
})();

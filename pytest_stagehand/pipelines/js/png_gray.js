  const pixels = context.getImageData(0, 0, width, height).data;
  const levels = [];
  for (let i = 0; i < pixels.length; i += 4) {
    const [r, g, b] = pixels.subarray(i, i + 3);
    levels.push(Math.round(0.299 * r + 0.587 * g + 0.114 * b));
  }
  return levels;

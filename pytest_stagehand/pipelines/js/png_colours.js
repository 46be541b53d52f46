  return Array.from(context.getImageData(0, 0, width, height).data)
    .filter((_, i) => i % 4 !== 3);

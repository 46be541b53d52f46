async ([data, ...size]) => {
  const bytes = Uint8Array.from(atob(data), (c) => c.charCodeAt(0));
  const [width, height] = size.length === 1 ? [size[0], size[0]] : size;
  const bitmap = await createImageBitmap(new Blob([bytes], { type: 'image/png' }),
    { resizeWidth: width, resizeHeight: height, resizeQuality: 'high' });
  const canvas = new OffscreenCanvas(width, height);
  const context = canvas.getContext('2d');
  context.drawImage(bitmap, 0, 0);
/*@THEN*/
}

el => {
  const up = el.assignedSlot || el.parentElement || el.getRootNode().host;
  return !up || up.checkVisibility({ opacityProperty: true });
}

(el, ms) => new Promise((resolve) => {
  if ((/*@SHOWN*/)(el)) {
    resolve(true);
    return;
  }
  // Not drawn yet: until it is drawn, and its appear transition has run.
  const end = performance.now() + ms;
  const poll = () => {
    const drawn = (/*@SHOWN*/)(el) && !(/*@MOVING*/)(el);
    if (drawn || performance.now() >= end) resolve(drawn);
    else setTimeout(poll, /*@POLL_MS*/);
  };
  poll();
})

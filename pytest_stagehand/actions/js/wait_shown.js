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
    else ((/*@PAGE_CHANGES_STATE*/)?.wait || setTimeout)(poll, /*@POLL_MS*/);  // untraced: not the page's work
  };
  poll();
})

(describe, elements, [role, name]) => {
  const memo = {};
  return JSON.stringify(describe.byRole(role, name, memo).filter((el) => !elements.includes(el))
    .map((el) => describe.snapshot({ around: el, origin: "", memo })));
}

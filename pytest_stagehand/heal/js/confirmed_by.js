(describe, [role, name], found, count, memo) => {
  const byRole = describe.byRole(role, name, memo, 2);
  if (byRole.length !== 1) return -1;
  for (let index = 0; index < count; index++) {
    const f = found(index);
    if (f !== null && f.length === 1 && f[0] === byRole[0]) return index;
  }
  return -1;
}

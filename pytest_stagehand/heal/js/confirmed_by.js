(describe, [role, name], found, memo) => {
  const byRole = describe.byRole(role, name, memo, 2);
  if (byRole.length !== 1) return -1;
  return found.findIndex((f) => f !== null && f.length === 1 && f[0] === byRole[0]);
}
